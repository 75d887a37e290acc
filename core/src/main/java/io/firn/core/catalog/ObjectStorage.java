/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.core.catalog;

import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.io.FileIO;
import org.jspecify.annotations.Nullable;
import software.amazon.awssdk.core.exception.SdkServiceException;

/**
 * Object storage of a catalog (ADR 0024): the defaults Firn adds to Iceberg's S3FileIO settings and
 * the check that its endpoint answers.
 *
 * <p>Firn ships Iceberg's {@code S3FileIO} with the AWS SDK's S3 and STS modules and only the JDK's
 * HTTP client ({@code url-connection-client}); Iceberg's default client type ({@code apache}) is
 * not on the classpath, so {@code http-client.type} defaults to {@code urlconnection}.
 */
public final class ObjectStorage {
  /** Iceberg's S3 FileIO class. */
  public static final String S3_FILE_IO = "org.apache.iceberg.aws.s3.S3FileIO";

  static final String RESOLVING_FILE_IO = "org.apache.iceberg.io.ResolvingFileIO";
  static final String HTTP_CLIENT_TYPE = "http-client.type";
  static final String URL_CONNECTION = "urlconnection";
  static final String ENDPOINT = "s3.endpoint";
  static final String REGION = "client.region";

  /**
   * Catalog types whose FileIO Firn picks for an S3 warehouse: Iceberg's JDBC and Hive catalogs
   * would take {@code HadoopFileIO}; Glue's default is {@code S3FileIO} already, named so that the
   * reachability check runs for it too.
   */
  static final java.util.Set<String> OWN_FILE_IO = java.util.Set.of("jdbc", "hive", "glue");

  /** The key the reachability check asks for under the warehouse; it need not exist. */
  static final String CHECK_KEY = ".firn-connection-check";

  private ObjectStorage() {}

  /** Whether a location is on S3 or an S3-compatible store ({@code s3://}, {@code s3a://}, ...). */
  public static boolean isS3(@Nullable String location) {
    if (location == null) {
      return false;
    }
    String lower = location.toLowerCase(Locale.ROOT);
    return lower.startsWith("s3://") || lower.startsWith("s3a://") || lower.startsWith("s3n://");
  }

  /**
   * Adds Firn's object-storage defaults to a catalog's Iceberg properties (explicit properties
   * win): a JDBC, Hive or Glue catalog with its warehouse on S3 reads and writes through {@code
   * S3FileIO} (Iceberg would take {@code HadoopFileIO}, which has no S3 file system here); and
   * every catalog that may use {@code S3FileIO} (named, resolved by {@code ResolvingFileIO}, handed
   * out by a REST catalog, or Glue's default) gets the HTTP client Firn ships; so does the Glue
   * client.
   */
  static void addDefaults(String type, @Nullable String warehouse, Map<String, String> properties) {
    if (OWN_FILE_IO.contains(type) && isS3(warehouse)) {
      properties.putIfAbsent(CatalogProperties.FILE_IO_IMPL, S3_FILE_IO);
    }
    String io = properties.get(CatalogProperties.FILE_IO_IMPL);
    if ("rest".equals(type)
        || "glue".equals(type)
        || S3_FILE_IO.equals(io)
        || RESOLVING_FILE_IO.equals(io)) {
      properties.putIfAbsent(HTTP_CLIENT_TYPE, URL_CONNECTION);
    }
  }

  /**
   * Checks that the object storage of a catalog whose warehouse is on S3 answers, so that a wrong
   * endpoint or a missing region fails at connect time naming the catalog and the endpoint, not in
   * the middle of a rewrite. Asks for one key under the warehouse without retries ({@code HEAD});
   * any answer of the store (including 403 and 404) counts as reachable: permissions are the
   * store's to check at each request, and a worker may lack {@code s3:ListBucket}.
   *
   * @throws CatalogConnectionException when the endpoint does not answer or the client cannot be
   *     built (no region, malformed endpoint)
   */
  static void checkReachable(CatalogSettings settings) {
    Map<String, String> properties = settings.icebergProperties();
    String warehouse = settings.warehouse();
    if (warehouse == null
        || !isS3(warehouse)
        || !S3_FILE_IO.equals(properties.get(CatalogProperties.FILE_IO_IMPL))) {
      return;
    }
    Map<String, String> once = new HashMap<>(properties);
    once.put("s3.retry.num-retries", "0");
    String key = (warehouse.endsWith("/") ? warehouse : warehouse + "/") + CHECK_KEY;
    try (FileIO io = CatalogUtil.loadFileIO(S3_FILE_IO, once, null)) {
      io.newInputFile(key).exists();
    } catch (SdkServiceException answered) {
      // The store answered: reachable.
    } catch (RuntimeException e) {
      String region = properties.get(REGION);
      String root = Catalogs.rootMessage(e);
      throw new CatalogConnectionException(
          settings
              + ": the object storage of warehouse "
              + warehouse
              + " does not answer at "
              + describeEndpoint(properties)
              + (region == null ? "" : " (client.region " + region + ")")
              + ": "
              + root
              + (root.contains("region")
                  ? "; set the catalog property client.region (any region name, e.g. us-east-1,"
                      + " for S3-compatible stores)"
                  : ""),
          e);
    }
  }

  private static String describeEndpoint(Map<String, String> properties) {
    String endpoint = properties.get(ENDPOINT);
    return endpoint == null
        ? "the AWS endpoint of its region (no s3.endpoint set)"
        : "s3.endpoint " + endpoint;
  }
}
