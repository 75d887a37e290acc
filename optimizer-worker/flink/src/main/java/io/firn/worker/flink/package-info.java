/**
 * The worker protocol hosted by a Flink streaming job: each parallel subtask of {@link
 * io.firn.worker.flink.WorkerSource} runs one executor slot.
 */
package io.firn.worker.flink;
