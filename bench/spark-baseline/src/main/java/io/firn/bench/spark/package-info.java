/**
 * Baseline side of the end-to-end compaction benchmark: Iceberg's own Spark actions ({@code
 * rewriteDataFiles}, {@code rewritePositionDeletes}) on a table that Firn's side of the benchmark
 * also compacts. Runs in its own JVM because {@code iceberg-spark-runtime} cannot share a classpath
 * with the thin Iceberg jars that Firn uses (CONTRIBUTING.md, "Versions and classpath rules").
 */
package io.firn.bench.spark;
