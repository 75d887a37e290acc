package io.firn.ingest;

import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.util.Collector;

/**
 * Passes events through and puts {@link #MARKER} in front of the first event after each checkpoint
 * barrier (and after a restore), so that {@link IngestRecordGenerator}, which sees no barriers,
 * knows which of its records share a checkpoint with the writers.
 */
public final class CheckpointBoundaryMarker extends ProcessFunction<String, String>
    implements CheckpointedFunction {
  private static final long serialVersionUID = 1L;

  /** Not JSON, so no real event can be mistaken for it unless it is this exact string. */
  public static final String MARKER = "\u0000firn:checkpoint-boundary";

  private transient boolean markNext;

  @Override
  public void processElement(String event, Context context, Collector<String> out) {
    if (markNext) {
      out.collect(MARKER);
      markNext = false;
    }
    out.collect(event);
  }

  @Override
  public void snapshotState(FunctionSnapshotContext context) {
    markNext = true;
  }

  @Override
  public void initializeState(FunctionInitializationContext context) {
    markNext = true;
  }
}
