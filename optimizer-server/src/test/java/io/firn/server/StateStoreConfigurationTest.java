/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dropwizard.configuration.ConfigurationValidationException;
import io.dropwizard.db.DataSourceFactory;
import io.firn.server.testing.ConfigurationFiles;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code stateStore:}: the keys of before keep working; the pool's settings (ADR 0016). */
class StateStoreConfigurationTest {
  @TempDir Path dir;

  @Test
  void theKeysOfBeforeKeepWorkingAndThePoolValidatesEveryConnectionItLends() throws Exception {
    StateStoreConfiguration store =
        parse(
                """
                stateStore:
                  url: jdbc:postgresql://db:5432/firn
                  user: firn
                  password: secret
                """)
            .getStateStore();

    assertThat(store.getMaxConnections()).isEqualTo(8);
    assertThat(store.getRetryInterval().toJavaDuration()).isEqualTo(Duration.ofSeconds(1));
    DataSourceFactory pool = store.dataSourceFactory();
    assertThat(pool.getUrl()).isEqualTo("jdbc:postgresql://db:5432/firn");
    assertThat(pool.getUser()).isEqualTo("firn");
    assertThat(pool.getPassword()).isEqualTo("secret");
    assertThat(pool.getDriverClass()).isEqualTo("org.postgresql.Driver");
    assertThat(pool.getMaxSize()).isEqualTo(8);
    assertThat(pool.getMinSize()).isEqualTo(1);
    assertThat(pool.getCheckConnectionOnBorrow()).isTrue();
    assertThat(pool.getValidationInterval().toMilliseconds()).isZero();
    assertThat(pool.getValidationQuery()).contains("SELECT 1");
  }

  @Test
  void readsThePoolKeysAndTheDefaultIsAnH2File() throws Exception {
    StateStoreConfiguration store =
        parse("stateStore:\n  maxConnections: 3\n  retryInterval: 250ms\n").getStateStore();

    assertThat(store.getUrl()).isEqualTo(StateStoreConfiguration.DEFAULT_URL);
    assertThat(store.dataSourceFactory().getDriverClass()).isEqualTo("org.h2.Driver");
    assertThat(store.dataSourceFactory().getMaxSize()).isEqualTo(3);
    assertThat(store.getRetryInterval().toJavaDuration()).isEqualTo(Duration.ofMillis(250));
    assertThat(StateStoreConfiguration.driverClass("jdbc:other:x")).isNull();
  }

  @Test
  void rejectsAPoolWithoutConnections() {
    assertThatThrownBy(() -> parse("stateStore:\n  maxConnections: 0\n"))
        .isInstanceOf(ConfigurationValidationException.class)
        .hasMessageContaining("stateStore.maxConnections must be greater than or equal to 1");
  }

  private FirnServerConfiguration parse(String yaml) throws Exception {
    Path file = dir.resolve("firn-server.yaml");
    Files.writeString(file, yaml);
    return ConfigurationFiles.read(file);
  }
}
