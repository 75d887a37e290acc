/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.core.protocol;

import java.util.List;

/**
 * @param protocolVersion {@link WorkerProtocol#VERSION}
 * @param abandon attempts the worker must stop and whose output it must delete: lease lost, task
 *     re-leased elsewhere, or process cancelled
 */
public record HeartbeatResponse(int protocolVersion, List<String> abandon) {
  public HeartbeatResponse {
    abandon = List.copyOf(abandon);
  }
}
