/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.core.catalog;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;

/** Ports on 127.0.0.1 for the catalog connection tests. */
final class LoopbackPorts {
  private LoopbackPorts() {}

  /** A port on 127.0.0.1 that was free a moment ago and that nothing listens on: refused. */
  static int closed() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
  }
}
