/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.server.testing;

import io.dropwizard.configuration.FileConfigurationSourceProvider;
import io.dropwizard.core.setup.Bootstrap;
import io.firn.server.FirnServerApplication;
import io.firn.server.FirnServerConfiguration;
import java.nio.file.Path;

/**
 * Test support of the optimizer server that needs the server's classes, published in this module's
 * test-jar ({@code <type>test-jar</type>}, only this package) for {@code deploy}'s tests (ADR
 * 0033). What needs no Firn class (a configuration's YAML, the catalog it names) is the testkit's.
 */
public final class ConfigurationFiles {
  private ConfigurationFiles() {}

  /**
   * Reads and validates a server configuration file with the factory the application uses for
   * {@code server} and {@code check} (it fails on unknown properties, as the bootstrap's object
   * mapper is set up to).
   */
  public static FirnServerConfiguration read(Path file) throws Exception {
    FirnServerApplication application = new FirnServerApplication();
    Bootstrap<FirnServerConfiguration> bootstrap = new Bootstrap<>(application);
    application.initialize(bootstrap);
    return bootstrap
        .getConfigurationFactoryFactory()
        .create(
            FirnServerConfiguration.class,
            bootstrap.getValidatorFactory().getValidator(),
            bootstrap.getObjectMapper(),
            "dw")
        .build(new FileConfigurationSourceProvider(), file.toString());
  }
}
