/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.worker.flink;

import io.firn.worker.remote.WorkerOptions;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;
import org.apache.flink.api.connector.source.Boundedness;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.api.connector.source.SourceSplit;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.core.io.SimpleVersionedSerializer;

/**
 * An unbounded source whose every parallel subtask is one executor slot ({@link SlotReader}). It
 * emits one line per attempt the server accepted. Nothing is split or checkpointed: the work lives
 * on the server, which leases it; a restarted job just polls again.
 */
public final class WorkerSource implements Source<String, WorkerSource.NoSplit, Integer> {
  private static final long serialVersionUID = 1L;

  private final WorkerOptions options;

  public WorkerSource(WorkerOptions options) {
    this.options = options;
  }

  @Override
  public Boundedness getBoundedness() {
    return Boundedness.CONTINUOUS_UNBOUNDED;
  }

  @Override
  public SourceReader<String, NoSplit> createReader(SourceReaderContext context) {
    return new SlotReader(options, context);
  }

  @Override
  public SplitEnumerator<NoSplit, Integer> createEnumerator(
      SplitEnumeratorContext<NoSplit> context) {
    return new IdleEnumerator();
  }

  @Override
  public SplitEnumerator<NoSplit, Integer> restoreEnumerator(
      SplitEnumeratorContext<NoSplit> context, Integer checkpoint) {
    return new IdleEnumerator();
  }

  @Override
  public SimpleVersionedSerializer<NoSplit> getSplitSerializer() {
    return new NoSplitSerializer();
  }

  @Override
  public SimpleVersionedSerializer<Integer> getEnumeratorCheckpointSerializer() {
    return new IntegerSerializer();
  }

  /** There are no splits; the type exists because the source API needs one. */
  public static final class NoSplit implements SourceSplit {
    @Override
    public String splitId() {
      return "none";
    }
  }

  /** Assigns nothing: each reader polls the server by itself. */
  static final class IdleEnumerator implements SplitEnumerator<NoSplit, Integer> {
    @Override
    public void start() {}

    @Override
    public void handleSplitRequest(int subtaskId, String requesterHostname) {}

    @Override
    public void addSplitsBack(List<NoSplit> splits, int subtaskId) {}

    @Override
    public void addReader(int subtaskId) {}

    @Override
    public Integer snapshotState(long checkpointId) {
      return 0;
    }

    @Override
    public void close() {}
  }

  static final class NoSplitSerializer implements SimpleVersionedSerializer<NoSplit> {
    @Override
    public int getVersion() {
      return 1;
    }

    @Override
    public byte[] serialize(NoSplit split) {
      return new byte[0];
    }

    @Override
    public NoSplit deserialize(int version, byte[] serialized) {
      return new NoSplit();
    }
  }

  static final class IntegerSerializer implements SimpleVersionedSerializer<Integer> {
    @Override
    public int getVersion() {
      return 1;
    }

    @Override
    public byte[] serialize(Integer value) {
      return ByteBuffer.allocate(4).putInt(value).array();
    }

    @Override
    public Integer deserialize(int version, byte[] serialized) throws IOException {
      if (serialized.length != 4) {
        throw new IOException("enumerator state of " + serialized.length + " bytes, expected 4");
      }
      return ByteBuffer.wrap(serialized).getInt();
    }
  }
}
