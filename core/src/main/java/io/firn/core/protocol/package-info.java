/**
 * The worker protocol (ARCHITECTURE.md, "Worker protocol"): the messages exchanged between the
 * optimizer server and its workers, and the codec that carries Iceberg files inside them as JSON
 * through Iceberg's own parsers. Every message carries {@link
 * io.firn.core.protocol.WorkerProtocol#VERSION}. The records serialize with plain Jackson; the
 * Iceberg parts are opaque JSON strings, so that a worker whose Iceberg relocates Jackson (engine
 * runtime jars) can still decode them.
 */
package io.firn.core.protocol;
