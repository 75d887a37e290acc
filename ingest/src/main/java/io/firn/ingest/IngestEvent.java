/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.ingest;

/**
 * One raw event as it enters the job.
 *
 * <p>A Flink POJO (records are analysed as POJOs since Flink 1.19): no Kryo on the hot path.
 *
 * @param payload the raw event text
 * @param source where the event came from, stored with a dead letter: {@code
 *     topic/partition/offset} for Kafka, {@code generator/index} for the built-in generator; null
 *     when unknown
 */
public record IngestEvent(String payload, String source) {

  /** An event read from {@code source}. */
  public static IngestEvent of(String payload, String source) {
    return new IngestEvent(payload, source);
  }
}
