/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.core.catalog;

import io.firn.core.io.LocalFileIO;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.CatalogProperties;
import org.jspecify.annotations.Nullable;

/**
 * How to reach an Iceberg catalog.
 *
 * @param name the catalog's name (shown in messages and metric labels)
 * @param type one of {@link #TYPES}: {@code jdbc}, {@code hadoop}, {@code rest}, {@code hive} (a
 *     Hive Metastore), {@code glue} (AWS Glue), or {@code custom} (any Iceberg {@code Catalog}
 *     class, named by the property {@code catalog-impl}); {@link #of} infers it from the URI when
 *     it is left out (ADR 0025)
 * @param uri the JDBC URL ({@code jdbc:sqlite:/path/catalog.db}, {@code
 *     jdbc:postgresql://host/db}), REST endpoint ({@code https://host/...}) or metastore ({@code
 *     thrift://host:9083}, several separated by commas); null for a Hadoop or Glue catalog
 * @param warehouse the warehouse location; required for jdbc and hadoop
 * @param properties further Iceberg catalog properties ({@code jdbc.user}, {@code io-impl}, {@code
 *     s3.endpoint}, ...; object storage: {@link ObjectStorage})
 */
public record CatalogSettings(
    String name,
    String type,
    @Nullable String uri,
    @Nullable String warehouse,
    Map<String, String> properties) {

  /** The Iceberg catalog property naming a catalog class (type {@code custom}). */
  public static final String CATALOG_IMPL = "catalog-impl";

  /** The catalog types Firn connects to, in the order messages and docs list them. */
  public static final List<String> TYPES =
      List.of("jdbc", "hadoop", "rest", "hive", "glue", "custom");

  /** Iceberg's property for the Glue endpoint (a VPC endpoint, or a test server). */
  public static final String GLUE_ENDPOINT = "glue.endpoint";

  /** Iceberg's property for the AWS region of Glue and S3 clients. */
  public static final String CLIENT_REGION = "client.region";

  /**
   * Catalog types that read and write a local warehouse through {@link LocalFileIO} unless {@code
   * io-impl} says otherwise: their FileIO holds every file of a table. (A Hadoop catalog commits
   * through Hadoop's file system itself and keeps its {@code HadoopFileIO}.)
   */
  static final Set<String> LOCAL_FILE_IO_TYPES = Set.of("jdbc", "hive");

  /**
   * Settings as a configuration file or the command line gives them, where the type may be left
   * out: a null {@code type} is inferred from the URI (a {@code jdbc:} URL is jdbc, {@code http(s)}
   * rest, {@code thrift://} hive, none hadoop; ADR 0025).
   *
   * @throws CatalogConnectionException when a key the type needs is missing, or the type is unknown
   */
  public static CatalogSettings of(
      String name,
      @Nullable String type,
      @Nullable String uri,
      @Nullable String warehouse,
      Map<String, String> properties) {
    return new CatalogSettings(
        name, type == null ? inferType(uri) : type, uri, warehouse, properties);
  }

  public CatalogSettings {
    properties = Map.copyOf(properties);
    // Callers outside NullAway's checks may still pass no type; it is inferred as in of().
    if (type == null) {
      type = inferType(uri);
    }
    type = type.toLowerCase(Locale.ROOT);
    switch (type) {
      case "jdbc" -> {
        require(
            uri != null,
            "catalog '"
                + name
                + "' of type jdbc needs a uri (key 'uri', on the command line --catalog-uri"
                + " jdbc:...)");
        require(
            warehouse != null,
            "catalog '"
                + name
                + "' of type jdbc needs a warehouse (key 'warehouse', on the command line"
                + " --warehouse)");
      }
      case "hadoop" ->
          require(
              warehouse != null,
              "catalog '"
                  + name
                  + "' of type hadoop needs a warehouse (key 'warehouse', on the command line"
                  + " --warehouse)");
      case "rest" ->
          require(
              uri != null,
              "catalog '"
                  + name
                  + "' of type rest needs a uri (key 'uri', on the command line --catalog-uri"
                  + " https://...)");
      case "hive" -> {
        String metastores =
            present(
                uri,
                "catalog '"
                    + name
                    + "' of type hive needs a uri: the metastore's thrift://host:9083 (key 'uri', on"
                    + " the command line --catalog-uri thrift://...; several separated by commas)");
        for (String metastore : metastores.split(",", -1)) {
          require(
              metastore.strip().startsWith("thrift://"),
              "catalog '"
                  + name
                  + "' of type hive: uri '"
                  + metastore.strip()
                  + "' is not a metastore address thrift://host:port");
        }
      }
      case "glue" ->
          require(
              uri == null,
              "catalog '"
                  + name
                  + "' of type glue takes no uri: Glue is found by region (property "
                  + CLIENT_REGION
                  + ", or the AWS_REGION environment variable); another endpoint (a VPC endpoint) is"
                  + " the property "
                  + GLUE_ENDPOINT);
      case "custom" ->
          require(
              properties.get(CATALOG_IMPL) != null,
              "catalog '"
                  + name
                  + "' of type custom needs the property "
                  + CATALOG_IMPL
                  + " (the class of an Iceberg Catalog; key 'properties', on the command line"
                  + " --catalog-property "
                  + CATALOG_IMPL
                  + "=org.example.MyCatalog)");
      default ->
          throw new CatalogConnectionException(
              "catalog '"
                  + name
                  + "': type '"
                  + type
                  + "' is not one of "
                  + String.join(", ", TYPES));
    }
  }

  private static String inferType(@Nullable String uri) {
    if (uri == null) {
      return "hadoop";
    }
    if (uri.startsWith("jdbc:")) {
      return "jdbc";
    }
    if (uri.startsWith("http://") || uri.startsWith("https://")) {
      return "rest";
    }
    if (uri.startsWith("thrift://")) {
      return "hive";
    }
    throw new CatalogConnectionException(
        "catalog uri '"
            + uri
            + "' is neither a JDBC URL (jdbc:...), a REST endpoint (http...) nor a Hive Metastore"
            + " (thrift://...); set the catalog type explicitly (one of "
            + String.join(", ", TYPES)
            + ")");
  }

  private static String present(@Nullable String value, String message) {
    if (value == null) {
      throw new CatalogConnectionException(message);
    }
    return value;
  }

  private static void require(boolean ok, String message) {
    if (!ok) {
      throw new CatalogConnectionException(message);
    }
  }

  /** The properties handed to Iceberg's {@code CatalogUtil.buildIcebergCatalog}. */
  public Map<String, String> icebergProperties() {
    Map<String, String> all = new LinkedHashMap<>();
    if (!"custom".equals(type)) {
      // Iceberg refuses both a type and a catalog-impl.
      all.put("type", type);
    }
    if (uri != null) {
      all.put("uri", uri);
    }
    if (warehouse != null) {
      all.put("warehouse", warehouse);
    }
    all.putAll(properties);
    ObjectStorage.addDefaults(type, warehouse, all);
    if (LOCAL_FILE_IO_TYPES.contains(type) && warehouse != null && LocalFileIO.isLocal(warehouse)) {
      // Hadoop's local file system forks a chmod process per file it creates (two with its .crc
      // file): with a local warehouse that bounds a writer's rate (ADR 0027).
      all.putIfAbsent(CatalogProperties.FILE_IO_IMPL, LocalFileIO.class.getName());
    }
    return all;
  }

  /**
   * Where the catalog is, for messages: the URI, and for Glue the endpoint and region (never a
   * secret; a {@code password=} in a URI is left out).
   */
  public @Nullable String location() {
    if ("glue".equals(type)) {
      String endpoint = properties.get(GLUE_ENDPOINT);
      String region = properties.get(CLIENT_REGION);
      return (endpoint == null ? "the AWS Glue endpoint of its region" : "endpoint " + endpoint)
          + ", region "
          + (region == null ? "from the environment (no " + CLIENT_REGION + " set)" : region)
          + (properties.containsKey("glue.id") ? ", catalog id " + properties.get("glue.id") : "");
    }
    return uri == null ? null : CatalogCredentials.uriWithoutPassword(uri);
  }

  /** The settings for messages: never prints secrets. */
  @Override
  public String toString() {
    String location = location();
    return "catalog '"
        + name
        + "' ("
        + type
        + (location == null ? "" : ", " + location)
        + (warehouse == null ? "" : ", warehouse " + warehouse)
        + ")";
  }
}
