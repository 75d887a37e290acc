/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.ingest;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.UUID;
import java.util.function.Predicate;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.util.CloseableIterator;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.RowDelta;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotAncestryValidator;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.apache.iceberg.exceptions.ValidationException;
import org.apache.iceberg.flink.CatalogLoader;
import org.apache.iceberg.flink.sink.dynamic.FirnDynamicSink;
import org.apache.iceberg.io.WriteResult;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.SnapshotUtil;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code bin/firn dead-letters replay}: sends dead letters through the job's routing again, under
 * the configuration in force now, and writes each exactly once — into its table when it is accepted
 * now, back into the dead-letter table when it is refused again (ADR 0008 §12).
 *
 * <p>Iceberg commits one table at a time, so a replay is three kinds of commit, each safe to
 * repeat:
 *
 * <ol>
 *   <li><b>claim</b>: one commit of the dead-letter table marks the selected dead letters with a
 *       new replay id (their rows are replaced by copies whose {@code replay_id} is set);
 *   <li><b>tables</b>: the claimed events are routed by the job's own {@link IngestRouter} (a
 *       bounded Flink job, parallelism 1, which creates and evolves tables as the job would) and
 *       each table's rows are committed in one snapshot whose summary carries {@code
 *       firn.replay-id}; a table whose history already holds the replay id is skipped, and the
 *       commit itself refuses to land when another one did meanwhile;
 *   <li><b>done</b>: one commit of the dead-letter table deletes the claimed rows and appends the
 *       events refused again.
 * </ol>
 *
 * A replay interrupted anywhere (crash, {@code kill -9}, a failed commit) leaves claimed rows
 * behind; the next {@code replay} finishes it before it selects anything new.
 */
final class DeadLetterReplay {
  private static final Logger LOG = LoggerFactory.getLogger(DeadLetterReplay.class);

  /** The snapshot summary key of a replay's table commits. */
  static final String REPLAY_PROPERTY = "firn.replay-id";

  /** The claim's summary key naming the configuration the replay routes with. */
  static final String CONFIG_PROPERTY = "firn.replay-config";

  private static final int COMMIT_ATTEMPTS = 5;

  /** Where a test stops a replay, as a crash would; nothing in production. */
  interface Interruption {
    Interruption NONE = point -> {};

    void at(String point);
  }

  /**
   * What one replay did.
   *
   * @param replayId its id
   * @param resumed whether an earlier, interrupted replay was finished
   * @param events the dead letters it claimed
   * @param written rows written per table
   * @param alreadyCommitted tables an earlier attempt of the same replay had committed
   * @param refusedAgain dead letters the configuration still refuses, per reason
   */
  record Outcome(
      String replayId,
      boolean resumed,
      int events,
      Map<String, Long> written,
      List<String> alreadyCommitted,
      Map<String, Long> refusedAgain) {}

  private final IngestSettings settings;
  private final CatalogLoader catalogLoader;
  private final String configId;
  private final Interruption interruption;
  private final boolean jobStopped;

  /**
   * @param configId names the configuration (a hash of its file): an interrupted replay is finished
   *     only under the configuration it started with
   */
  DeadLetterReplay(
      IngestSettings settings,
      CatalogLoader catalogLoader,
      String configId,
      Interruption interruption) {
    this(settings, catalogLoader, configId, interruption, false);
  }

  /**
   * @param jobStopped whether the operator says the ingest job is stopped: only then does a replay
   *     write to a table that appends new keys (ADR 0008 §14)
   */
  DeadLetterReplay(
      IngestSettings settings,
      CatalogLoader catalogLoader,
      String configId,
      Interruption interruption,
      boolean jobStopped) {
    this.settings = settings;
    this.catalogLoader = catalogLoader;
    this.configId = configId;
    this.interruption = interruption;
    this.jobStopped = jobStopped;
  }

  /**
   * Finishes every interrupted replay, then replays up to {@code limit} unclaimed dead letters that
   * {@code selected} accepts, oldest first.
   */
  List<Outcome> run(Predicate<DeadLetterTable.Stored> selected, int limit) {
    Catalog catalog = catalogLoader.loadCatalog();
    TableIdentifier identifier =
        TableIdentifier.of(Namespace.of(settings.namespace()), settings.deadLetterTable());
    Table table;
    try {
      table = catalog.loadTable(identifier);
    } catch (NoSuchTableException e) {
      LOG.info("No dead-letter table {}: nothing to replay", identifier);
      return List.of();
    }
    DeadLetterTable.ensureReplayColumn(table);
    table.refresh();
    List<Outcome> outcomes = new ArrayList<>();
    Map<String, List<DeadLetterTable.Stored>> unfinished =
        DeadLetterTable.claimed(DeadLetterTable.read(table, table.currentSnapshot()));
    for (Map.Entry<String, List<DeadLetterTable.Stored>> claimedRows :
        new TreeMap<>(unfinished).entrySet()) {
      String replayId = claimedRows.getKey();
      LOG.info(
          "Finishing replay {} of {} dead letters, interrupted earlier",
          replayId,
          claimedRows.getValue().size());
      checkConfiguration(table, replayId);
      outcomes.add(finish(catalog, table, identifier, replayId, true));
    }
    String replayId = claim(table, selected, limit);
    if (replayId != null) {
      interruption.at("claimed");
      outcomes.add(finish(catalog, table, identifier, replayId, false));
    }
    return outcomes;
  }

  /** Marks the selected dead letters with a new replay id; null when none is selected. */
  private @Nullable String claim(
      Table table, Predicate<DeadLetterTable.Stored> selected, int limit) {
    for (int attempt = 1; ; attempt++) {
      table.refresh();
      Snapshot base = table.currentSnapshot();
      List<DeadLetterTable.Stored> chosen =
          oldestFirst(DeadLetterTable.read(table, base)).stream()
              .filter(row -> row.replayId() == null && selected.test(row))
              .limit(limit)
              .toList();
      if (chosen.isEmpty()) {
        return null;
      }
      String replayId = UUID.randomUUID().toString();
      List<Record> copies = new ArrayList<>(chosen.size());
      for (DeadLetterTable.Stored row : chosen) {
        copies.add(DeadLetterTable.withReplayId(table, row.record(), replayId));
      }
      try {
        DeadLetterTable.replace(
            table,
            base,
            chosen,
            copies,
            Map.of(DeadLetterTable.CLAIM_PROPERTY, replayId, CONFIG_PROPERTY, configId));
        LOG.info("Replay {} claimed {} dead letters", replayId, chosen.size());
        return replayId;
      } catch (CommitFailedException | ValidationException e) {
        if (attempt == COMMIT_ATTEMPTS) {
          throw new IllegalStateException(
              "Could not claim dead letters of "
                  + table.name()
                  + " after "
                  + attempt
                  + " attempts: other commits kept changing the same files ("
                  + e.getMessage()
                  + "); is another replay running?",
              e);
        }
        LOG.info("Claiming dead letters met another commit, reading again: {}", e.getMessage());
      }
    }
  }

  /** An interrupted replay is finished only under the configuration that started it. */
  private void checkConfiguration(Table table, String replayId) {
    for (Snapshot snapshot : SnapshotUtil.currentAncestors(table)) {
      if (replayId.equals(snapshot.summary().get(DeadLetterTable.CLAIM_PROPERTY))) {
        String started = snapshot.summary().get(CONFIG_PROPERTY);
        if (started != null && !started.equals(configId)) {
          throw new IllegalArgumentException(
              "replay "
                  + replayId
                  + " was started with another ingest configuration ("
                  + started
                  + ", now "
                  + configId
                  + "); finish it with that configuration first: its events would otherwise be"
                  + " routed differently from the tables it already committed");
        }
        return;
      }
    }
    LOG.warn(
        "The claim of replay {} is no longer in the history of {} (snapshots expired): finishing it"
            + " with the current configuration",
        replayId,
        table.name());
  }

  private Outcome finish(
      Catalog catalog,
      Table deadLetters,
      TableIdentifier identifier,
      String replayId,
      boolean resumed) {
    deadLetters.refresh();
    List<DeadLetterTable.Stored> claimed =
        oldestFirst(
            DeadLetterTable.claimed(
                    DeadLetterTable.read(deadLetters, deadLetters.currentSnapshot()))
                .getOrDefault(replayId, List.of()));
    String deadLetterName = identifier.toString();
    Map<String, Boolean> committed = new HashMap<>();
    Map<String, Long> written = new LinkedHashMap<>();
    Map<String, Long> refusedAgain = new TreeMap<>();
    List<RowData> refusedRows = new ArrayList<>();
    Schema refusedSchema = null;
    Map<String, List<WriteResult>> results;
    try (FirnDynamicSink.Writers writers = new FirnDynamicSink.Writers(catalog);
        CloseableIterator<?> routed = route(claimed, replayId)) {
      while (routed.hasNext()) {
        FirnDynamicSink.Routed record = FirnDynamicSink.Routed.of(routed.next());
        String name = record.tableName();
        if (name.equals(deadLetterName)) {
          refusedSchema = record.schema();
          RowData row = record.row();
          refusedRows.add(row);
          refusedAgain.merge(reason(record.schema(), row), 1L, Long::sum);
          continue;
        }
        if (committed.computeIfAbsent(name, n -> holdsReplay(catalog, n, replayId))) {
          continue;
        }
        checkNewKeyTable(name, replayId);
        writers.write(record);
        written.merge(name, 1L, Long::sum);
      }
      results = writers.complete();
    } catch (IOException e) {
      throw new UncheckedIOException("Writing the rows of replay " + replayId + " failed", e);
    } catch (IllegalArgumentException e) {
      throw e; // refused as asked (checkNewKeyTable): nothing of the tables is committed
    } catch (Exception e) {
      throw new IllegalStateException(
          "Routing the dead letters of replay " + replayId + " failed: " + e.getMessage(), e);
    }
    for (Map.Entry<String, List<WriteResult>> entry : results.entrySet()) {
      commitTable(catalog, entry.getKey(), entry.getValue(), replayId);
      interruption.at("committed " + entry.getKey());
    }
    deadLetters.refresh();
    List<Record> refused = new ArrayList<>(refusedRows.size());
    for (RowData row : refusedRows) {
      // refusedSchema was set with the first refused row.
      Schema schema = Objects.requireNonNull(refusedSchema, "refused rows without a schema");
      refused.add(DeadLetterTable.withReplayId(deadLetters, toRecord(schema, row), null));
    }
    done(deadLetters, replayId, refused);
    List<String> skipped =
        committed.entrySet().stream().filter(Map.Entry::getValue).map(Map.Entry::getKey).toList();
    Outcome outcome =
        new Outcome(replayId, resumed, claimed.size(), written, skipped, refusedAgain);
    LOG.info("Replay {} done: {}", replayId, outcome);
    return outcome;
  }

  /** The claimed events through the job's router, in a bounded job of parallelism 1. */
  private CloseableIterator<?> route(List<DeadLetterTable.Stored> claimed, String replayId)
      throws Exception {
    List<IngestEvent> events = new ArrayList<>(claimed.size());
    for (DeadLetterTable.Stored row : claimed) {
      events.add(IngestEvent.of(row.payload(), row.sourcePosition()));
    }
    if (events.isEmpty()) {
      return CloseableIterator.empty();
    }
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    env.setParallelism(1);
    DataStream<IngestEvent> source =
        env.fromData(TypeInformation.of(IngestEvent.class), events.toArray(new IngestEvent[0]))
            .name("firn-dead-letters");
    return source
        .process(
            new IngestRouter(
                settings, catalogLoader, new VersionTwoTableCreator(Map.of(), settings), false))
        .returns(FirnDynamicSink.recordType(catalogLoader))
        .name("firn-route")
        .executeAndCollect("firn-dead-letter-replay " + replayId);
  }

  /**
   * Refuses to write rows into a table whose rule appends new keys while the job may run: the job
   * would not know the replayed keys and could append one of them again as new (ADR 0008 §14). With
   * the job stopped, the job finds the replay's snapshot when it starts and upserts every row of
   * the table from then on.
   */
  private void checkNewKeyTable(String name, String replayId) {
    if (jobStopped
        || settings.table(TableIdentifier.parse(name).name()).inserts()
            != Inserts.APPEND_NEW_KEYS) {
      return;
    }
    throw new IllegalArgumentException(
        "replay "
            + replayId
            + " routes rows to table "
            + name
            + ", whose rule appends new keys (inserts: append-new-keys); a running ingest job"
            + " would not know the replayed keys. Stop the ingest job, then run the replay again"
            + " with --job-stopped (it finishes this one); the job then upserts every row of "
            + name);
  }

  /** Whether the history of table {@code name} holds a commit of {@code replayId}. */
  private static boolean holdsReplay(Catalog catalog, String name, String replayId) {
    Table table = catalog.loadTable(TableIdentifier.parse(name));
    boolean holds = holds(SnapshotUtil.currentAncestors(table), replayId);
    if (holds) {
      LOG.info("Replay {} had committed {} before it was interrupted: skipping it", replayId, name);
    }
    return holds;
  }

  private static boolean holds(Iterable<Snapshot> snapshots, String replayId) {
    for (Snapshot snapshot : snapshots) {
      if (replayId.equals(snapshot.summary().get(REPLAY_PROPERTY))) {
        return true;
      }
    }
    return false;
  }

  /** One snapshot of {@code name} with the replay's rows, unless one landed meanwhile. */
  private static void commitTable(
      Catalog catalog, String name, List<WriteResult> results, String replayId) {
    Table table = catalog.loadTable(TableIdentifier.parse(name));
    RowDelta delta = table.newRowDelta();
    for (WriteResult result : results) {
      for (DataFile file : result.dataFiles()) {
        delta.addRows(file);
      }
      for (DeleteFile file : result.deleteFiles()) {
        delta.addDeletes(file);
      }
    }
    delta.set(REPLAY_PROPERTY, replayId);
    delta.validateWith(
        new SnapshotAncestryValidator() {
          @Override
          public boolean validate(Iterable<Snapshot> baseSnapshots) {
            return !holds(baseSnapshots, replayId);
          }

          @Override
          public String errorMessage() {
            return "replay " + replayId + " is already committed to " + name;
          }
        });
    try {
      delta.commit();
    } catch (ValidationException e) {
      if (!holds(SnapshotUtil.currentAncestors(refreshed(table)), replayId)) {
        throw e;
      }
      LOG.info("Replay {} was committed to {} by another attempt meanwhile", replayId, name);
      for (WriteResult result : results) {
        for (DataFile file : result.dataFiles()) {
          table.io().deleteFile(file.location());
        }
        for (DeleteFile file : result.deleteFiles()) {
          table.io().deleteFile(file.location());
        }
      }
    }
  }

  private static Table refreshed(Table table) {
    table.refresh();
    return table;
  }

  /** Deletes the replay's claimed rows and appends its refused events, in one commit. */
  private void done(Table table, String replayId, List<Record> refused) {
    for (int attempt = 1; ; attempt++) {
      table.refresh();
      Snapshot base = table.currentSnapshot();
      List<DeadLetterTable.Stored> claimed =
          DeadLetterTable.claimed(DeadLetterTable.read(table, base))
              .getOrDefault(replayId, List.of());
      try {
        DeadLetterTable.replace(
            table, base, claimed, refused, Map.of(DeadLetterTable.DONE_PROPERTY, replayId));
        return;
      } catch (CommitFailedException | ValidationException e) {
        if (attempt == COMMIT_ATTEMPTS) {
          throw new IllegalStateException(
              "Could not remove the dead letters replay "
                  + replayId
                  + " wrote after "
                  + attempt
                  + " attempts ("
                  + e.getMessage()
                  + "); run the replay again to finish it",
              e);
        }
        LOG.info("Removing replayed dead letters met another commit, reading again: {}", e);
      }
    }
  }

  /** Oldest first: by the time they were received, then where they are stored. */
  private static List<DeadLetterTable.Stored> oldestFirst(List<DeadLetterTable.Stored> rows) {
    List<DeadLetterTable.Stored> sorted = new ArrayList<>(rows);
    sorted.sort(
        Comparator.comparing(
                DeadLetterTable.Stored::receivedAt,
                Comparator.nullsFirst(Comparator.naturalOrder()))
            .thenComparing(row -> row.file().location())
            .thenComparingLong(DeadLetterTable.Stored::position));
    return sorted;
  }

  private static String reason(Schema schema, RowData row) {
    int index = schema.columns().indexOf(schema.findField("reason"));
    return row.isNullAt(index) ? "" : row.getString(index).toString();
  }

  /** A dead-letter row the router made (strings and a timestamp) as a generic record. */
  private static Record toRecord(Schema schema, RowData row) {
    Record record = GenericRecord.create(schema);
    List<Types.NestedField> columns = schema.columns();
    for (int i = 0; i < columns.size(); i++) {
      if (row.isNullAt(i)) {
        continue;
      }
      Types.NestedField field = columns.get(i);
      Object value =
          switch (field.type().typeId()) {
            case STRING -> {
              StringData text = row.getString(i);
              yield text.toString();
            }
            case TIMESTAMP -> {
              TimestampData time = row.getTimestamp(i, 6);
              Instant instant = time.toInstant();
              yield OffsetDateTime.ofInstant(instant, ZoneOffset.UTC);
            }
            default ->
                throw new IllegalStateException(
                    "dead-letter column " + field.name() + " of type " + field.type());
          };
      record.set(i, value);
    }
    return record;
  }
}
