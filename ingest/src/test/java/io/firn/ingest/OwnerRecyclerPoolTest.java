/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.util.BufferRecycler;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

class OwnerRecyclerPoolTest {

  @Test
  void keepsTheReleasedRecyclerForTheNextParse() {
    OwnerRecyclerPool pool = new OwnerRecyclerPool();
    BufferRecycler first = pool.acquireAndLinkPooled();
    first.releaseToPool();

    BufferRecycler second = pool.acquireAndLinkPooled();
    assertThat(second).isSameAs(first);
    assertThat(pool.acquirePooled()).as("a second parser at once gets its own").isNotSameAs(first);
  }

  @Test
  void mapperParsesOneEventAfterAnother() throws Exception {
    ObjectMapper mapper = OwnerRecyclerPool.mapper();
    for (int i = 0; i < 3; i++) {
      assertThat(mapper.readTree("{\"id\":" + i + ",\"name\":\"n" + i + "\"}").get("id").asLong())
          .isEqualTo(i);
    }
  }
}
