/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.testkit;

import java.util.Map;
import org.apache.iceberg.jdbc.JdbcCatalog;

/**
 * A real JDBC catalog that refuses to open without the property {@value #KEY} = {@value #SECRET},
 * as a catalog refuses a client without its password. Used as {@code catalog-impl} by the tests of
 * withheld catalog credentials: a worker that does not bring the secret cannot reach the table.
 */
public class SecretCheckingCatalog extends JdbcCatalog {
  public static final String KEY = "test.token";
  public static final String SECRET = "s3cr3t";

  @Override
  public void initialize(String name, Map<String, String> properties) {
    if (!SECRET.equals(properties.get(KEY))) {
      throw new IllegalArgumentException(
          "catalog " + name + " refuses the connection: " + KEY + " is missing or wrong");
    }
    super.initialize(name, properties);
  }
}
