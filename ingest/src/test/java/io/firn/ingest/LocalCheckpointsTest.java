/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.ingest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ExternalizedCheckpointRetention;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.core.execution.RecoveryClaimMode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LocalCheckpointsTest {
  private static final String JOB_A = "0123456789abcdef0123456789abcdef";
  private static final String JOB_B = "fedcba9876543210fedcba9876543210";

  @TempDir Path dir;

  @Test
  void theNewestCompletedCheckpointWinsAcrossRunsAndIncompleteOnesAndGarbageAreIgnored()
      throws IOException {
    completed(JOB_A, "chk-3");
    completed(JOB_A, "chk-9");
    completed(JOB_B, "chk-10");
    completed(JOB_B, "chk-11");
    // In progress: no _metadata yet, or an empty one.
    Files.createDirectories(dir.resolve(JOB_B).resolve("chk-12"));
    Files.createFile(
        Files.createDirectories(dir.resolve(JOB_B).resolve("chk-13")).resolve("_metadata"));
    // Names that are no checkpoint of a Flink job.
    completed(JOB_B, "chk-99x");
    completed(JOB_B, "savepoint-20");
    completed(JOB_B, "chk-");
    completed(JOB_B, "chk-123456789012345678901");
    completed("not-a-job-id", "chk-50");
    completed(JOB_A.toUpperCase(java.util.Locale.ROOT), "chk-51");
    Files.createDirectories(dir.resolve(JOB_B).resolve("chk-60").resolve("_metadata"));
    Files.writeString(dir.resolve(JOB_B).resolve("shared"), "a file, not a directory");
    Files.writeString(dir.resolve("0123456789abcdef0123456789abcdee"), "a file named like a job");

    assertThat(LocalCheckpoints.latestCompleted(dir))
        .contains(new LocalCheckpoints.Checkpoint(dir.resolve(JOB_B).resolve("chk-11"), 11));
  }

  @Test
  void nothingToResumeFromInAnEmptyOrAbsentDirectory() throws IOException {
    assertThat(LocalCheckpoints.latestCompleted(dir.resolve("absent"))).isEmpty();
    assertThat(LocalCheckpoints.latestCompleted(dir)).isEmpty();
    Files.createDirectories(dir.resolve(JOB_A).resolve("chk-1"));
    assertThat(LocalCheckpoints.latestCompleted(dir)).isEmpty();
  }

  @Test
  void twoCompletedCheckpointsWithTheSameNumberAreRefused() throws IOException {
    completed(JOB_A, "chk-4");
    completed(JOB_B, "chk-4");
    completed(JOB_B, "chk-2");

    assertThatThrownBy(() -> LocalCheckpoints.latestCompleted(dir))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("holds two completed checkpoints numbered 4")
        .hasMessageContaining(dir.resolve(JOB_A).resolve("chk-4").toString())
        .hasMessageContaining(dir.resolve(JOB_B).resolve("chk-4").toString());
  }

  @Test
  void prepareResumesFromTheLatestAndRemovesTheRunsBeforeIt() throws IOException {
    completed(JOB_A, "chk-9");
    completed(JOB_B, "chk-10");
    completed(JOB_B, "chk-8");
    Path unrelated = Files.writeString(dir.resolve("notes.txt"), "the operator's");
    Configuration flink = new Configuration();

    Optional<LocalCheckpoints.Checkpoint> resumed =
        LocalCheckpoints.prepare(new IngestConfig.Checkpoints(dir, 4), flink);

    Path latest = dir.resolve(JOB_B).resolve("chk-10");
    assertThat(resumed).contains(new LocalCheckpoints.Checkpoint(latest, 10));
    assertThat(flink.get(StateRecoveryOptions.SAVEPOINT_PATH)).isEqualTo(latest.toUri().toString());
    assertThat(flink.get(StateRecoveryOptions.RESTORE_MODE)).isEqualTo(RecoveryClaimMode.CLAIM);
    assertThat(flink.get(StateRecoveryOptions.SAVEPOINT_IGNORE_UNCLAIMED_STATE)).isFalse();
    assertThat(flink.get(CheckpointingOptions.CHECKPOINTS_DIRECTORY))
        .isEqualTo(dir.toUri().toString());
    assertThat(flink.get(CheckpointingOptions.MAX_RETAINED_CHECKPOINTS)).isEqualTo(4);
    assertThat(flink.get(CheckpointingOptions.EXTERNALIZED_CHECKPOINT_RETENTION))
        .isEqualTo(ExternalizedCheckpointRetention.RETAIN_ON_CANCELLATION);
    assertThat(dir.resolve(JOB_A)).as("the earlier run, superseded").doesNotExist();
    assertThat(dir.resolve(JOB_B).resolve("chk-8")).as("the resumed run is left to Flink").exists();
    assertThat(unrelated).exists();
  }

  @Test
  void prepareStartsFreshWithoutCompletedCheckpoint() throws IOException {
    Files.createDirectories(dir.resolve(JOB_A).resolve("chk-1"));
    Path directory = dir.resolve("new").resolve("checkpoints");
    Configuration flink = new Configuration();

    assertThat(LocalCheckpoints.prepare(new IngestConfig.Checkpoints(directory, 1), flink))
        .isEmpty();

    assertThat(directory).isDirectory();
    assertThat(flink.getOptional(StateRecoveryOptions.SAVEPOINT_PATH)).isEmpty();
  }

  @Test
  void aRestoreFailureSaysWhichCheckpointAndWhatToDo() {
    LocalCheckpoints.Checkpoint checkpoint =
        new LocalCheckpoints.Checkpoint(dir.resolve(JOB_A).resolve("chk-5"), 5);
    Exception failure =
        new RuntimeException(
            "job failed",
            new IllegalStateException(
                "Failed to rollback to checkpoint/savepoint " + checkpoint.path()));

    assertThat(LocalCheckpoints.isRestoreFailure(failure)).isTrue();
    assertThat(LocalCheckpoints.isRestoreFailure(new RuntimeException("catalog unreachable")))
        .isFalse();
    assertThat(LocalCheckpoints.restoreFailure(checkpoint, dir, failure))
        .startsWith("the ingest job could not resume from checkpoint 5 (" + checkpoint.path())
        .contains("Failed to rollback to checkpoint/savepoint")
        .contains("Firn does not start afresh on its own")
        .contains("move " + dir.toAbsolutePath().normalize() + " away");
  }

  private void completed(String job, String checkpoint) throws IOException {
    Path chk = Files.createDirectories(dir.resolve(job).resolve(checkpoint));
    Files.writeString(chk.resolve("_metadata"), "metadata");
  }
}
