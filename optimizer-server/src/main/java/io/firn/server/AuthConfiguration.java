/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.server;

import com.fasterxml.jackson.annotation.JsonProperty;
import org.jspecify.annotations.Nullable;

/**
 * {@code auth:} bearer tokens. Workers send {@code workerToken} on every protocol call; trigger,
 * cancel, pause and resume need {@code adminToken}. A token that is not set disables the endpoints
 * it guards (they answer 403 saying which key to set); read-only endpoints are open. {@code
 * shareCatalogCredentials: false} withholds the catalogs' credentials (passwords, secrets, tokens,
 * keys) from the answer to a worker's registration; workers then bring their own ({@code
 * FIRN_CATALOG_PROPERTIES}, ADR 0017).
 */
public class AuthConfiguration {
  private @Nullable String workerToken;
  private @Nullable String adminToken;
  private boolean shareCatalogCredentials = true;

  @JsonProperty
  public boolean isShareCatalogCredentials() {
    return shareCatalogCredentials;
  }

  @JsonProperty
  public void setShareCatalogCredentials(boolean shareCatalogCredentials) {
    this.shareCatalogCredentials = shareCatalogCredentials;
  }

  @JsonProperty
  public @Nullable String getWorkerToken() {
    return workerToken;
  }

  @JsonProperty
  public void setWorkerToken(@Nullable String workerToken) {
    this.workerToken = workerToken;
  }

  @JsonProperty
  public @Nullable String getAdminToken() {
    return adminToken;
  }

  @JsonProperty
  public void setAdminToken(@Nullable String adminToken) {
    this.adminToken = adminToken;
  }
}
