/**
 * A model-based history test of Firn's promise: compacting files and removing or converting delete
 * files next to live writers changes no row.
 *
 * <ul>
 *   <li>{@link io.firn.worker.history.UpsertWriter}: the live writers (a Flink upsert job, Spark
 *       merge-on-read deletes, schema and spec evolution), written with Iceberg's generic writers;
 *   <li>{@link io.firn.worker.history.ReferenceModel}: key → row, derived from the writer's intent
 *       only, and {@link io.firn.worker.history.Rows}, the values every row gets;
 *   <li>{@link io.firn.worker.history.Op}: one concrete step; {@link
 *       io.firn.worker.history.History} runs steps on a real table (writer steps, Firn's plans in
 *       flight, remote and in-process runs, partial commits, maintenance) and checks after each;
 *   <li>{@link io.firn.worker.history.Invariants} and {@link io.firn.worker.history.TableReads}:
 *       the checks, computed with Iceberg's readers and Iceberg's documented delete rules only;
 *   <li>{@link io.firn.worker.history.ScheduleGenerator}: random steps from a seed; {@link
 *       io.firn.worker.history.HistoryRunner}: runs seeds and shrinks a failing schedule;
 *   <li>{@link io.firn.worker.history.HistoryTest}: the bounded runs, the soak and the named
 *       regressions.
 * </ul>
 */
package io.firn.worker.history;
