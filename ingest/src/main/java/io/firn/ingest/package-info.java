/**
 * Firn's ingest job: parse JSON events, route each to its Iceberg v2 table, evolve schemas on the
 * fly, upsert by key and dead-letter what cannot be routed (DESIGN.md §3, issue 6).
 */
package io.firn.ingest;
