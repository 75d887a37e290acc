package io.firn.core.catalog;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * How to reach an Iceberg catalog.
 *
 * @param name the catalog's name (shown in messages and metric labels)
 * @param type {@code jdbc}, {@code hadoop}, {@code rest}, or {@code custom} (any Iceberg {@code
 *     Catalog} class, named by the property {@code catalog-impl}); inferred from the URI when null
 * @param uri the JDBC URL ({@code jdbc:sqlite:/path/catalog.db}, {@code jdbc:postgresql://host/db})
 *     or REST endpoint; null for a Hadoop catalog
 * @param warehouse the warehouse location; required for jdbc and hadoop
 * @param properties further Iceberg catalog properties ({@code jdbc.user}, {@code io-impl}, {@code
 *     s3.endpoint}, ...; object storage: {@link ObjectStorage})
 */
public record CatalogSettings(
    String name, String type, String uri, String warehouse, Map<String, String> properties) {

  /** The Iceberg catalog property naming a catalog class (type {@code custom}). */
  public static final String CATALOG_IMPL = "catalog-impl";

  public CatalogSettings {
    properties = Map.copyOf(properties);
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
      case "rest" -> require(uri != null, "catalog '" + name + "' of type rest needs a uri");
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
                  + "' is not one of jdbc, hadoop, rest, custom");
    }
  }

  private static String inferType(String uri) {
    if (uri == null) {
      return "hadoop";
    }
    if (uri.startsWith("jdbc:")) {
      return "jdbc";
    }
    if (uri.startsWith("http://") || uri.startsWith("https://")) {
      return "rest";
    }
    throw new CatalogConnectionException(
        "catalog uri '"
            + uri
            + "' is neither a JDBC URL (jdbc:...) nor a REST endpoint (http...);"
            + " set the catalog type explicitly");
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
    return all;
  }

  /** The settings for messages: never prints secrets. */
  @Override
  public String toString() {
    return "catalog '"
        + name
        + "' ("
        + type
        + (uri == null ? "" : ", " + uri)
        + (warehouse == null ? "" : ", warehouse " + warehouse)
        + ")";
  }
}
