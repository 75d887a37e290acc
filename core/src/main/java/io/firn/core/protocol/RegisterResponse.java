/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.core.protocol;

import io.firn.core.catalog.CatalogSettings;
import java.util.List;

/**
 * The server accepted a worker.
 *
 * @param protocolVersion {@link WorkerProtocol#VERSION}
 * @param workerId the id to send with every later message
 * @param workerSecret a random secret only this worker knows, sent with every later message: the
 *     worker id is public (the read API shows it), the secret is not
 * @param catalogs how to reach the catalogs whose tables the worker's tasks belong to
 * @param leaseMillis how long a lease lasts without a heartbeat
 * @param heartbeatMillis how often to send heartbeats (well below the lease)
 */
public record RegisterResponse(
    int protocolVersion,
    String workerId,
    String workerSecret,
    List<CatalogSettings> catalogs,
    long leaseMillis,
    long heartbeatMillis) {
  public RegisterResponse {
    catalogs = List.copyOf(catalogs);
  }

  /** Never prints the secret (nor the catalogs' credentials). */
  @Override
  public String toString() {
    return "RegisterResponse[worker "
        + workerId
        + ", "
        + catalogs.size()
        + " catalog(s), lease "
        + leaseMillis
        + " ms, heartbeat "
        + heartbeatMillis
        + " ms]";
  }
}
