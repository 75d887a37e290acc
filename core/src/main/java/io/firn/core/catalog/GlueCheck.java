/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.core.catalog;

import java.time.Duration;
import java.util.Map;
import org.apache.iceberg.aws.AwsClientProperties;
import org.apache.iceberg.aws.AwsProperties;
import org.apache.iceberg.aws.HttpClientProperties;
import software.amazon.awssdk.retries.DefaultRetryStrategy;
import software.amazon.awssdk.services.glue.GlueClient;

/**
 * The connect-time check of a Glue catalog (ADR 0025): one {@code GetDatabases} call, without
 * retries and bounded in time, with the client settings Iceberg's {@code GlueCatalog} uses (region,
 * credentials, HTTP client, {@code glue.endpoint}). Iceberg's own client retries with backoff; a
 * wrong endpoint or region would otherwise surface only after several attempts.
 */
final class GlueCheck {
  /** How long the check waits for Glue at most. */
  static final Duration TIMEOUT = Duration.ofSeconds(10);

  private GlueCheck() {}

  /**
   * @throws CatalogConnectionException naming catalog, endpoint and region when Glue does not
   *     answer, refuses the call (credentials, permissions), or no client can be built (no region)
   */
  static void checkReachable(CatalogSettings settings) {
    Map<String, String> properties = settings.icebergProperties();
    AwsClientProperties aws = new AwsClientProperties(properties);
    HttpClientProperties http = new HttpClientProperties(properties);
    AwsProperties glueProperties = new AwsProperties(properties);
    String catalogId = properties.get(AwsProperties.GLUE_CATALOG_ID);
    try (GlueClient glue =
        GlueClient.builder()
            .applyMutation(aws::applyClientRegionConfiguration)
            .applyMutation(aws::applyClientCredentialConfigurations)
            .applyMutation(http::applyHttpClientConfigurations)
            .applyMutation(glueProperties::applyGlueEndpointConfigurations)
            .overrideConfiguration(
                c ->
                    c.retryStrategy(DefaultRetryStrategy.doNotRetry())
                        .apiCallTimeout(TIMEOUT)
                        .apiCallAttemptTimeout(TIMEOUT))
            .build()) {
      glue.getDatabases(r -> r.maxResults(1).catalogId(catalogId));
    } catch (RuntimeException e) {
      String root = Catalogs.rootMessage(e);
      throw new CatalogConnectionException(
          "cannot connect to "
              + settings
              + ": "
              + root
              + (root.toLowerCase(java.util.Locale.ROOT).contains("region")
                  ? "; set the catalog property "
                      + CatalogSettings.CLIENT_REGION
                      + " (e.g. us-east-1) or the AWS_REGION environment variable"
                  : ""),
          e);
    }
  }
}
