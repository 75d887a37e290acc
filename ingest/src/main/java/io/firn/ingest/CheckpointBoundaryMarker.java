package io.firn.ingest;

import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.util.Collector;

/**
 * Passes events through and puts {@link IngestEvent#boundary()} in front of the first event after
 * each checkpoint barrier (and after a restore), so that {@link IngestRecordGenerator}, which sees
 * no barriers, knows which of its records share a checkpoint with the writers.
 */
public final class CheckpointBoundaryMarker extends ProcessFunction<IngestEvent, IngestEvent>
    implements CheckpointedFunction {
  private static final long serialVersionUID = 1L;

  private transient boolean markNext;

  @Override
  public void processElement(IngestEvent event, Context context, Collector<IngestEvent> out) {
    if (markNext) {
      out.collect(IngestEvent.boundary());
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
