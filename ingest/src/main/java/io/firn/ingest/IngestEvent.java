package io.firn.ingest;

/**
 * One raw event as it enters the job, or a checkpoint boundary mark.
 *
 * <p>A Flink POJO (records are analysed as POJOs since Flink 1.19): no Kryo on the hot path.
 *
 * @param payload the raw event text (null only for a boundary)
 * @param source where the event came from, stored with a dead letter: {@code
 *     topic/partition/offset} for Kafka, {@code generator/index} for the built-in generator; null
 *     when unknown
 * @param checkpointBoundary whether this element only marks that a checkpoint barrier passed (see
 *     {@link CheckpointBoundaryMarker})
 */
public record IngestEvent(String payload, String source, boolean checkpointBoundary) {

  private static final IngestEvent BOUNDARY = new IngestEvent(null, null, true);

  /** An event read from {@code source}. */
  public static IngestEvent of(String payload, String source) {
    return new IngestEvent(payload, source, false);
  }

  /** The checkpoint boundary mark. */
  public static IngestEvent boundary() {
    return BOUNDARY;
  }
}
