/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.ingest;

import java.sql.Driver;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.ServiceLoader;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.flink.CatalogLoader;

/**
 * A catalog loader that registers, before loading a JDBC catalog, the JDBC driver for its URI from
 * the loader's own class loader.
 *
 * <p>Why: {@link DriverManager} finds drivers once per JVM, through the context class loader of
 * whoever used JDBC first, and hands a caller only drivers its own class loader can see. In a Flink
 * session cluster a TaskManager outlives jobs: the second job's Iceberg classes (from its own job
 * jar) see no driver and fail with "No suitable driver found for jdbc:...". Registering the jar's
 * driver from the job's class loader fixes that; it is harmless when the driver is already there.
 */
final class DriverRegisteringCatalogLoader implements CatalogLoader {
  private static final long serialVersionUID = 1L;

  private final CatalogLoader delegate;
  private final String uri;

  DriverRegisteringCatalogLoader(CatalogLoader delegate, String uri) {
    this.delegate = delegate;
    this.uri = uri;
  }

  @Override
  public Catalog loadCatalog() {
    register(uri);
    return delegate.loadCatalog();
  }

  @Override
  @SuppressWarnings({"checkstyle:NoClone", "checkstyle:SuperClone"})
  public CatalogLoader clone() {
    return new DriverRegisteringCatalogLoader(delegate.clone(), uri);
  }

  @Override
  public String toString() {
    return delegate.toString();
  }

  /** Registers the first driver of this class loader that accepts {@code uri}, once. */
  static synchronized void register(String uri) {
    if (uri == null || !uri.startsWith("jdbc:")) {
      return;
    }
    ClassLoader own = DriverRegisteringCatalogLoader.class.getClassLoader();
    try {
      for (Driver driver : ServiceLoader.load(Driver.class, own)) {
        if (driver.getClass().getClassLoader() == own && driver.acceptsURL(uri)) {
          if (!registered(driver.getClass())) {
            DriverManager.registerDriver(driver);
          }
          return;
        }
      }
    } catch (SQLException | java.util.ServiceConfigurationError e) {
      // Leave it to DriverManager: its own message names the URI.
    }
  }

  private static boolean registered(Class<?> driverClass) {
    return DriverManager.drivers().anyMatch(d -> d.getClass() == driverClass);
  }
}
