/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.ingest;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ExternalizedCheckpointRetention;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.core.execution.RecoveryClaimMode;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The durable checkpoints of a local run (ADR 0019): Flink writes {@code <job id>/chk-N} into the
 * configured directory and keeps them on cancellation and failure; a new run resumes from the
 * newest completed one ({@code chk-N} holding {@code _metadata}, which Flink writes to a temporary
 * file and renames only once every state handle is written).
 */
final class LocalCheckpoints {
  private static final Logger LOG = LoggerFactory.getLogger(LocalCheckpoints.class);

  /** The name of a Flink job id directory: 32 lower-case hex digits. */
  private static final Pattern JOB_DIRECTORY = Pattern.compile("[0-9a-f]{32}");

  private static final Pattern CHECKPOINT_DIRECTORY = Pattern.compile("chk-([0-9]{1,18})");

  static final String METADATA = "_metadata";

  private static final String LOCK = ".lock";

  /** The directories this JVM runs in, locked until it exits: one run per directory. */
  private static final Map<Path, FileLock> LOCKS = new ConcurrentHashMap<>();

  private LocalCheckpoints() {}

  /**
   * A completed checkpoint.
   *
   * @param path its {@code chk-N} directory
   * @param id N
   */
  record Checkpoint(Path path, long id) {}

  /**
   * The newest completed checkpoint under {@code directory}: the {@code <job id>/chk-N} with a
   * non-empty regular {@code _metadata} file and the highest N. Checkpoints in progress (no {@code
   * _metadata}) and names that are no Flink job id or {@code chk-N} are ignored.
   *
   * @throws IllegalStateException when two job directories hold a completed checkpoint with that
   *     same highest N: which one is newer cannot be told, and the wrong one would replay or skip
   *     data
   */
  static Optional<Checkpoint> latestCompleted(Path directory) {
    if (!Files.isDirectory(directory)) {
      return Optional.empty();
    }
    List<Checkpoint> completed = new ArrayList<>();
    for (Path job : list(directory)) {
      if (!JOB_DIRECTORY.matcher(job.getFileName().toString()).matches()
          || !Files.isDirectory(job)) {
        continue;
      }
      for (Path checkpoint : list(job)) {
        Matcher name = CHECKPOINT_DIRECTORY.matcher(checkpoint.getFileName().toString());
        Path metadata = checkpoint.resolve(METADATA);
        if (name.matches() && Files.isRegularFile(metadata) && size(metadata) > 0) {
          completed.add(new Checkpoint(checkpoint, Long.parseLong(name.group(1))));
        }
      }
    }
    completed.sort(Comparator.comparingLong(Checkpoint::id).reversed());
    if (completed.size() > 1 && completed.get(0).id() == completed.get(1).id()) {
      throw new IllegalStateException(
          "checkpoint directory "
              + directory.toAbsolutePath()
              + " holds two completed checkpoints numbered "
              + completed.get(0).id()
              + " ("
              + completed.get(0).path()
              + " and "
              + completed.get(1).path()
              + "); Firn cannot tell which one is the latest, and resuming from the wrong one would"
              + " write events twice or skip them. Remove the job directory of the one that is not"
              + " the latest and start again.");
    }
    return completed.isEmpty() ? Optional.empty() : Optional.of(completed.get(0));
  }

  /**
   * Prepares a local run: creates and locks {@code checkpoints.directory()}, finds the checkpoint
   * to resume from, removes the directories of earlier runs that cannot be resumed from any more,
   * and returns the Flink configuration that keeps checkpoints there and restores from that
   * checkpoint.
   *
   * @throws IllegalStateException when another run holds the directory
   */
  static Optional<Checkpoint> prepare(IngestConfig.Checkpoints checkpoints, Configuration flink) {
    Path directory = checkpoints.directory().toAbsolutePath().normalize();
    try {
      Files.createDirectories(directory);
    } catch (IOException e) {
      throw new UncheckedIOException(
          "cannot create the checkpoint directory "
              + directory
              + " (key checkpoint-directory): "
              + e.getMessage(),
          e);
    }
    lock(directory);
    Optional<Checkpoint> latest = latestCompleted(directory);
    for (Path job : list(directory)) {
      boolean keep = latest.isPresent() && job.equals(latest.get().path().getParent());
      if (!keep && JOB_DIRECTORY.matcher(job.getFileName().toString()).matches()) {
        // An earlier run's checkpoints, older than the one resumed from (or never completed):
        // resuming from one of them would write the events after it a second time.
        LOG.info("Removing the checkpoints of an earlier run, superseded: {}", job);
        delete(job);
      }
    }
    flink.set(CheckpointingOptions.CHECKPOINTS_DIRECTORY, directory.toUri().toString());
    flink.set(
        CheckpointingOptions.EXTERNALIZED_CHECKPOINT_RETENTION,
        ExternalizedCheckpointRetention.RETAIN_ON_CANCELLATION);
    flink.set(CheckpointingOptions.MAX_RETAINED_CHECKPOINTS, checkpoints.retained());
    if (latest.isPresent()) {
      flink.set(StateRecoveryOptions.SAVEPOINT_PATH, latest.get().path().toUri().toString());
      // Every operator's state must find its operator: dropping state would lose data.
      flink.set(StateRecoveryOptions.SAVEPOINT_IGNORE_UNCLAIMED_STATE, false);
      // The new run owns the checkpoint and deletes it once newer ones replace it.
      flink.set(StateRecoveryOptions.RESTORE_MODE, RecoveryClaimMode.CLAIM);
      LOG.info(
          "Resuming from checkpoint {} ({}): the source's positions (Kafka offsets) and the"
              + " Iceberg files not committed yet come from it; source.starting-offsets does not"
              + " apply",
          latest.get().id(),
          latest.get().path());
    } else {
      LOG.info(
          "No completed checkpoint in {}: starting fresh (source.starting-offsets applies)",
          directory);
    }
    return latest;
  }

  /**
   * Whether {@code failure} of a run that resumed from a checkpoint is about that checkpoint: its
   * metadata could not be read or its state matches no operator of the job (Flink says {@code
   * savepoint} for both, and {@code _metadata} when the file is damaged).
   */
  static boolean isRestoreFailure(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
      String message = String.valueOf(t.getMessage()).toLowerCase(java.util.Locale.ROOT);
      if (message.contains("savepoint")
          || message.contains(METADATA)
          || message.contains("checkpoint metadata")) {
        return true;
      }
    }
    return false;
  }

  /**
   * The message for a run that could not resume from {@code checkpoint}: what happened and what the
   * operator can do, without starting afresh on its own.
   */
  static String restoreFailure(Checkpoint checkpoint, Path directory, Throwable cause) {
    Throwable root = cause;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    return "the ingest job could not resume from checkpoint "
        + checkpoint.id()
        + " ("
        + checkpoint.path()
        + "): "
        + root
        + ". Firn does not start afresh on its own: that would write the events since the last"
        + " commit again or skip them. If the job was changed (its operators or their state),"
        + " run the version that wrote the checkpoint until it is drained, or move "
        + directory.toAbsolutePath().normalize()
        + " away to start afresh from source.starting-offsets (knowing that events may then"
        + " arrive twice or be missing).";
  }

  private static synchronized void lock(Path directory) {
    Path file = directory.resolve(LOCK);
    try {
      @SuppressWarnings("resource") // held until the JVM exits
      FileChannel channel =
          FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
      FileLock held;
      try {
        held = channel.tryLock();
      } catch (OverlappingFileLockException e) {
        held = null;
      }
      if (held == null) {
        channel.close();
        throw new IllegalStateException(
            "checkpoint directory "
                + directory
                + " is in use by another ingest job (it holds "
                + file
                + "); give each job its own checkpoint-directory");
      }
      LOCKS.put(directory, held);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot lock " + file + ": " + e.getMessage(), e);
    }
  }

  private static List<Path> list(Path directory) {
    try (Stream<Path> entries = Files.list(directory)) {
      return entries.sorted().toList();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot list " + directory + ": " + e.getMessage(), e);
    }
  }

  private static long size(Path file) {
    try {
      return Files.size(file);
    } catch (IOException e) {
      return 0;
    }
  }

  private static void delete(Path tree) {
    try (Stream<Path> paths = Files.walk(tree)) {
      for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(path);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot remove " + tree + ": " + e.getMessage(), e);
    }
  }
}
