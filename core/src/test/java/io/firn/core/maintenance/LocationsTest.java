/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.core.maintenance;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Location comparisons of orphan cleanup on object stores (ADR 0010 §5, ADR 0024). */
class LocationsTest {
  @Test
  void s3SchemesAreOneAndSlashesDoNotCount() {
    assertThat(Locations.normalize("s3a://bucket/wh//db/t/"))
        .isEqualTo(Locations.normalize("s3n://bucket/wh/db/t"))
        .isEqualTo(Locations.normalize("S3://bucket/wh/db/t"))
        .isEqualTo("s3://bucket/wh/db/t");
    assertThat(Locations.normalize("file:///w/t")).isEqualTo(Locations.normalize("/w/t"));
  }

  @Test
  void aKeyPrefixIsNotATableLocation() {
    String root = Locations.normalize("s3://bucket/wh/db/t");
    assertThat(Locations.within(Locations.normalize("s3a://bucket/wh/db/t/data/a.parquet"), root))
        .isTrue();
    assertThat(
            Locations.within(Locations.normalize("s3://bucket/wh/db/t_old/data/a.parquet"), root))
        .isFalse();
    assertThat(Locations.within(Locations.normalize("s3://other/wh/db/t/data/a.parquet"), root))
        .isFalse();
    assertThat(Locations.within(root, Locations.normalize("s3a://bucket/wh/db"))).isTrue();
  }
}
