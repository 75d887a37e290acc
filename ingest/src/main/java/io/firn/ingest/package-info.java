/**
 * Firn's ingest job: parse JSON events, route each to its Iceberg v2 table, evolve schemas on the
 * fly, upsert by key and dead-letter what cannot be routed (ARCHITECTURE.md).
 */
package io.firn.ingest;
