/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.core.maintenance;

import java.util.regex.Pattern;

/**
 * What Iceberg 1.11's Flink sinks leave in a table that maintenance must respect, as read from
 * {@code iceberg-flink} 1.11.0 ({@code SinkUtil}, {@code IcebergFilesCommitter}, {@code
 * DynamicCommitter}, {@code ManifestOutputFileFactory}).
 *
 * <p>Every Flink commit sets {@link #JOB_ID}, {@link #OPERATOR_ID} and {@link
 * #MAX_COMMITTED_CHECKPOINT_ID} in its snapshot summary. On restore, the committer walks the
 * ancestors of the branch head through {@code parentId} and stops at the first snapshot of its
 * restored job id whose operator id is absent or its own; the checkpoint id found there decides
 * which staged checkpoints are committed again. A missing ancestor ends the walk, so the whole
 * chain from the head down to that snapshot must survive expiry, not only the snapshot.
 *
 * <p>Before committing, Flink writes the files of a checkpoint into temporary manifests under
 * {@code metadata/} (or the table property {@link #MANIFESTS_LOCATION}) named {@code
 * <job-id>-<operator-id>-<subtask:5>-<attempt>-<checkpoint>-<count:5>[-<suffix>].avro}; it reads
 * them back after a restore and deletes them after the commit.
 */
public final class FlinkCommits {
  /** Snapshot summary key: the Flink job that committed the snapshot. */
  public static final String JOB_ID = "flink.job-id";

  /** Snapshot summary key: the committing operator (absent in old versions). */
  public static final String OPERATOR_ID = "flink.operator-id";

  /** Snapshot summary key: the checkpoint the snapshot committed. */
  public static final String MAX_COMMITTED_CHECKPOINT_ID = "flink.max-committed-checkpoint-id";

  /** Table property: a directory for Flink's temporary manifests instead of {@code metadata/}. */
  public static final String MANIFESTS_LOCATION = "flink.manifests.location";

  /**
   * File names of Flink's temporary manifests. Job and operator ids are 32 hex digits (Flink's
   * {@code JobID}/{@code OperatorID}); Iceberg's own manifests ({@code <uuid>-m0.avro}) and
   * manifest lists ({@code snap-...}) never match.
   */
  public static final Pattern TEMPORARY_MANIFEST =
      Pattern.compile("[0-9a-fA-F]{32}-[^/]+-\\d{5,}-\\d+-\\d+-\\d{5,}(-[^/]+)?\\.avro");

  private FlinkCommits() {}

  /** Whether the last path segment of a location names a Flink temporary manifest. */
  public static boolean isTemporaryManifest(String location) {
    String name = location.substring(location.lastIndexOf('/') + 1);
    return TEMPORARY_MANIFEST.matcher(name).matches();
  }
}
