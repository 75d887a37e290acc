/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.ingest;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.UnresolvedAddressException;
import java.sql.SQLException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.CheckpointListener;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.types.RowKind;
import org.apache.flink.util.Collector;
import org.apache.iceberg.PartitionField;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.UpdatePartitionSpec;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.apache.iceberg.exceptions.ValidationException;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.flink.CatalogLoader;
import org.apache.iceberg.flink.FlinkSchemaUtil;
import org.apache.iceberg.flink.RowDataWrapper;
import org.apache.iceberg.flink.sink.dynamic.FirnDynamicSink;
import org.apache.iceberg.flink.sink.dynamic.PartitionSpecEvolution;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.SnapshotUtil;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The routing operator: turns each raw JSON event into one record for the writers of Iceberg's
 * dynamic sink (an upsert or delete in its routed table, or an append to the dead-letter table),
 * and counts what it does in {@link IngestMetrics}. It replaces the sink's own per-record processor
 * (ADR 0014): it creates the routed tables and evolves their schemas and specs itself, builds every
 * row in one of the table's own schemas, and picks the writer by key.
 *
 * <p>Upserts follow the Iceberg 1.11.0 rules (CONTRIBUTING.md, "Versions and classpath rules"):
 * every row of an upsert table carries upsert mode and the key's equality field ids, and all rows
 * of one key go to one writer (the writer key is a hash of the table and the key values, the same
 * in every subtask).
 *
 * <p>Schema changes inside a checkpoint: the sink's writer keeps one task writer per table schema,
 * and all of a checkpoint's files are committed in one snapshot, where an equality delete does not
 * apply to rows of the same sequence number. So when a table's schema widens, a row written earlier
 * in the same checkpoint under the old schema would survive next to its newer version. After a
 * table's schema changed, this operator therefore sends, in front of every later upsert or delete
 * of that table until the next checkpoint barrier, a key-only {@code DELETE} of the same key in
 * each older schema it used since the barrier: the old schema's writer turns it into a position
 * delete of its own row when it holds one, else into a harmless equality delete. The operator sees
 * the barriers itself ({@link #snapshotState}), and records reach the writers in order behind the
 * same barriers, so nothing is kept per key: the steady state costs nothing, and only the rest of
 * the checkpoint in which a schema changed carries the extra deletes (ADR 0004 §2).
 *
 * <p>Poison events (ADR 0018): every failure one event causes — reading it, inferring or converting
 * its row, Iceberg refusing the table creation or change it needs — becomes that event's dead
 * letter, and the job goes on; only failures of the catalog or the storage ({@link
 * IngestInfrastructureException}) fail the task, so that Flink restarts the job and replays the
 * event.
 *
 * <p>New keys (ADR 0008 §14): for a table it created itself under a rule with {@code inserts:
 * append-new-keys}, and with parallelism 1, the operator keeps a {@link NewKeys} record in its
 * state. A row whose key the table certainly lacks goes to the table's appending writer (no upsert
 * mode, the same equality fields), which writes no equality delete; later changes of that key
 * before the barrier go to the same writer, which turns them into position deletes of the row it
 * holds. Every other row upserts as above. The two writers' files land in one snapshot, where an
 * equality delete would not reach the appended row: that is why a held key never goes to the upsert
 * writer before the barrier.
 */
public final class IngestRouter extends ProcessFunction<IngestEvent, FirnDynamicSink.Record>
    implements CheckpointedFunction, CheckpointListener {
  private static final long serialVersionUID = 1L;
  private static final Logger LOG = LoggerFactory.getLogger(IngestRouter.class);

  /** Per-table metric series a subtask creates before counting further tables together. */
  static final int TABLE_SERIES_LIMIT = 500;

  /** The dead-letter table's rule: appends, no key, no partition candidates. */
  private static final TableRule DEAD_LETTER_RULE =
      new TableRule("dead_letters", List.of("id"), List.of(), null, false);

  /** Attempts to evolve a table's schema or spec against concurrent commits. */
  private static final int EVOLVE_ATTEMPTS = 10;

  private final IngestSettings settings;
  private final CatalogLoader catalogLoader;
  private final VersionTwoTableCreator tableCreator;

  /** Whether rows of new keys may be appended (false where the router is not the job's). */
  private final boolean newKeyInserts;

  /** Per table that appends new keys, what this subtask knows of its keys. */
  private transient Map<TableIdentifier, NewKeys> newKeys;

  // Flink calls initializeState before open and before any record.
  @SuppressWarnings("NullAway.Init")
  private transient ListState<byte[]> newKeyState;

  private transient @Nullable List<byte[]> restoredNewKeys;
  private transient NewKeys.KeyHash keyHash;
  private transient int heldKeys;
  private transient Catalog catalog;
  private transient EventRouter router;
  private transient TableIdentifier deadLetterTable;
  private transient Clock clock;
  private transient IngestMetrics metrics;

  /**
   * Per upsert table, the distinct schemas this subtask wrote it in since the last barrier, oldest
   * first; the last is the current one.
   */
  private transient Map<TableIdentifier, List<Schema>> schemasSinceBarrier;

  private transient Map<String, TableRule> rules;
  private transient Map<TableIdentifier, PartitionSpec> existingSpecs;

  private transient Map<TableIdentifier, PartitionSpec> lastSpecs;

  /** The table's spec to write the rows of each resolved table schema with. */
  private transient Map<Schema, PartitionSpec> writeSpecs;

  /** How the rows of each table schema this subtask resolved are written. */
  private transient Map<Schema, WriteShape> shapes;

  private transient @Nullable WriteShape deadLetterShape;

  /** Warnings given once per table and kind. */
  private transient Set<String> warned;

  private transient WriteShape lastShape;
  private transient int roundRobin;

  /** What {@link #resolve} is doing, for the dead letter's detail when Iceberg refuses it. */
  private transient @Nullable String resolveStep;

  /** The job's router: rows of new keys are appended where the table rule says so. */
  public IngestRouter(
      IngestSettings settings, CatalogLoader catalogLoader, VersionTwoTableCreator tableCreator) {
    this(settings, catalogLoader, tableCreator, true);
  }

  /**
   * @param newKeyInserts false for a router that is not the job's own writer (the replay of dead
   *     letters): every row upserts
   */
  IngestRouter(
      IngestSettings settings,
      CatalogLoader catalogLoader,
      VersionTwoTableCreator tableCreator,
      boolean newKeyInserts) {
    this.settings = settings;
    this.catalogLoader = catalogLoader;
    this.tableCreator = tableCreator;
    this.newKeyInserts = newKeyInserts;
  }

  @Override
  public void open(OpenContext context) {
    Catalog catalog = catalogLoader.loadCatalog();
    this.catalog = catalog;
    this.existingSpecs = new HashMap<>();
    this.lastSpecs = new HashMap<>();
    this.writeSpecs = new IdentityHashMap<>();
    this.shapes = new IdentityHashMap<>();
    this.lastShape = WriteShape.NONE;
    this.warned = new HashSet<>();
    this.router =
        settings.router(
            table -> {
              Optional<Table> loaded;
              try {
                loaded = currentTable(catalog, table);
              } catch (RuntimeException e) {
                throw new IngestInfrastructureException(
                    "Loading table " + table + " from catalog " + catalog.name() + " failed", e);
              }
              loaded.ifPresent(t -> existingSpecs.put(table, t.spec()));
              return loaded.map(Table::schema);
            },
            this::resolve);
    this.deadLetterTable =
        TableIdentifier.of(Namespace.of(settings.namespace()), settings.deadLetterTable());
    // Before any record: two subtasks creating the namespace at once must not fail the job (see
    // VersionTwoTableCreator#ensureNamespace).
    VersionTwoTableCreator.ensureNamespace(catalog, deadLetterTable.namespace());
    this.clock = Clock.systemUTC();
    this.metrics =
        new IngestMetrics(
            getRuntimeContext().getMetricGroup(), catalog.name(), TABLE_SERIES_LIMIT, clock);
    // Identifiers are cached per table name (TableRows): identity is enough, and cheaper.
    this.schemasSinceBarrier = new IdentityHashMap<>();
    this.rules = new HashMap<>();
    this.roundRobin = getRuntimeContext().getTaskInfo().getIndexOfThisSubtask();
    this.keyHash = new NewKeys.KeyHash();
    this.newKeys = new HashMap<>();
    restoreNewKeys();
  }

  /**
   * Whether this router may append new keys: the job's own, alone (with two subtasks, a table's
   * keys would be spread over two filters, and a restore with another parallelism reshuffles them).
   */
  private boolean appendsNewKeys() {
    return newKeyInserts && getRuntimeContext().getTaskInfo().getNumberOfParallelSubtasks() == 1;
  }

  /** The tables of the restored state whose history since the last check is the job's own. */
  private void restoreNewKeys() {
    List<byte[]> restored = restoredNewKeys == null ? List.of() : restoredNewKeys;
    restoredNewKeys = null;
    if (!restored.isEmpty() && !appendsNewKeys()) {
      LOG.warn(
          "Not appending new keys of {} tables any more: the router runs with parallelism {}"
              + " (inserts: append-new-keys needs 1); their rows upsert",
          restored.size(),
          getRuntimeContext().getTaskInfo().getNumberOfParallelSubtasks());
      return;
    }
    for (byte[] state : restored) {
      NewKeys keys = NewKeys.fromBytes(state);
      TableIdentifier table = TableIdentifier.parse(keys.table);
      if (rule(table).inserts() != Inserts.APPEND_NEW_KEYS) {
        LOG.info(
            "Table {} no longer appends new keys: its rule says inserts: {}",
            table,
            rule(table).inserts().code());
        continue;
      }
      Optional<Table> current;
      try {
        current = currentTable(catalog, table);
      } catch (RuntimeException e) {
        throw new IngestInfrastructureException(
            "Loading table " + table + " from catalog " + catalog.name() + " failed", e);
      }
      if (current.isEmpty()) {
        LOG.info("Table {} is gone: its new-key state is dropped", table);
        continue;
      }
      Snapshot foreign = keys.foreign(SnapshotUtil.currentAncestors(current.get()));
      if (foreign != null) {
        LOG.warn(
            "Table {} has rows of another writer (snapshot {}, {}, {}): its new keys are no"
                + " longer appended, every row upserts",
            table,
            foreign.snapshotId(),
            foreign.operation(),
            foreign.summary());
        continue;
      }
      LOG.info("Table {} appends new keys; {} keys known", table, keys.keys());
      newKeys.put(table, keys);
    }
  }

  /**
   * Checks the history of every table that appends new keys (after each completed checkpoint):
   * another writer's rows retire the table at the next barrier.
   */
  private void checkNewKeyTables() {
    for (Map.Entry<TableIdentifier, NewKeys> entry : newKeys.entrySet()) {
      NewKeys keys = entry.getValue();
      if (!keys.appends()) {
        continue;
      }
      Table table;
      try {
        table = catalog.loadTable(entry.getKey());
      } catch (RuntimeException e) {
        // Not now: the next completed checkpoint checks again.
        LOG.info("Could not check the history of {}: {}", entry.getKey(), e.toString());
        continue;
      }
      Snapshot foreign = keys.foreign(SnapshotUtil.currentAncestors(table));
      if (foreign != null) {
        keys.retire(
            "another writer added rows (snapshot "
                + foreign.snapshotId()
                + ", "
                + foreign.operation()
                + ", "
                + foreign.summary()
                + ")");
        LOG.warn(
            "Table {}: {}. Rows of keys new to the job upsert from the next checkpoint on; a key"
                + " of that writer's rows that the job appended meanwhile may have two rows until"
                + " it changes again (ADR 0008 §14: the job must be the table's only writer)",
            entry.getKey(),
            keys.retiring());
      }
    }
  }

  private static Optional<Table> currentTable(Catalog catalog, TableIdentifier table) {
    try {
      return Optional.of(catalog.loadTable(table));
    } catch (NoSuchTableException e) {
      return Optional.empty();
    }
  }

  @Override
  public void initializeState(FunctionInitializationContext context) throws Exception {
    // After a restore the writers start empty, and so does the list of schemas. What is kept:
    // the keys of the tables that append new keys.
    newKeyState =
        context
            .getOperatorStateStore()
            .getListState(
                new ListStateDescriptor<>(
                    "firn-new-keys", PrimitiveArrayTypeInfo.BYTE_PRIMITIVE_ARRAY_TYPE_INFO));
    restoredNewKeys = new ArrayList<>();
    if (context.isRestored()) {
      for (byte[] state : newKeyState.get()) {
        restoredNewKeys.add(state);
      }
    }
  }

  @Override
  public void snapshotState(FunctionSnapshotContext context) throws Exception {
    // The writers start new files after the barrier: older schemas no longer hold this
    // checkpoint's rows, and the appending writers hold no key.
    schemasSinceBarrier.clear();
    heldKeys = 0;
    List<byte[]> state = new ArrayList<>(newKeys.size());
    for (var entries = newKeys.entrySet().iterator(); entries.hasNext(); ) {
      var entry = entries.next();
      NewKeys keys = entry.getValue();
      if (!keys.appends()) {
        LOG.warn(
            "Table {} no longer appends new keys ({}): every row upserts",
            entry.getKey(),
            keys.retiring());
        entries.remove();
        continue;
      }
      keys.barrier();
      state.add(keys.toBytes());
    }
    newKeyState.update(state);
    metrics.barrier(context.getCheckpointId());
  }

  @Override
  public void notifyCheckpointComplete(long checkpointId) {
    metrics.completed(checkpointId);
    checkNewKeyTables();
  }

  @Override
  public void processElement(
      IngestEvent event, Context context, Collector<FirnDynamicSink.Record> out) {
    for (Routing routing : route(event)) {
      if (routing instanceof Routing.Routed routed) {
        write(routed, out);
      } else if (routing instanceof Routing.Rejected rejected) {
        metrics.deadLetter(rejected.reason());
        if (rejected.check() != null) {
          metrics.contractViolation(rejected.check());
        }
        WriteShape shape = deadLetterShape();
        out.collect(
            shape.record(
                shape.byName(DeadLetters.SCHEMA, DeadLetters.row(event, rejected, clock.instant())),
                nextRoundRobin()));
      }
    }
  }

  /**
   * What to write for {@code event}, with every failure the event causes turned into its dead
   * letter (ADR 0018): only a failure of the catalog or the storage ({@link
   * IngestInfrastructureException}) leaves this method, to restart the job. The write shapes of the
   * event's records are resolved here too, so that nothing of an event is emitted unless all of it
   * can be.
   */
  private List<Routing> route(IngestEvent event) {
    try {
      List<Routing> routings = router.route(event);
      for (Routing routing : routings) {
        if (routing instanceof Routing.Routed routed) {
          shape(routed.table(), routed.schema());
        }
      }
      return routings;
    } catch (IngestInfrastructureException e) {
      throw e;
    } catch (RefusedRecordException e) {
      return List.of(e.rejected());
    } catch (RuntimeException e) {
      return List.of(routingFailed(e));
    }
  }

  /** The dead letter of an event whose handling failed unexpectedly (a defect in Firn). */
  private Routing.Rejected routingFailed(RuntimeException e) {
    if (warned.add("failure/" + e.getClass().getName())) {
      LOG.warn(
          "Dead-lettering an event whose routing failed unexpectedly (reason routing_failed)", e);
    } else {
      LOG.debug("Dead-lettering an event whose routing failed unexpectedly", e);
    }
    return new Routing.Rejected(
        DeadLetterReason.ROUTING_FAILED,
        "unexpected "
            + e.getClass().getName()
            + ": "
            + TableRows.abbreviate(String.valueOf(e.getMessage()))
            + " (a defect in Firn: please report it with the payload)");
  }

  private void write(Routing.Routed routed, Collector<FirnDynamicSink.Record> out) {
    metrics.record(routed.table());
    WriteShape shape = shape(routed.table(), routed.schema());
    if (!shape.upsert()) {
      // Appends keep every row: nothing to deduplicate when the schema widens mid-checkpoint.
      out.collect(shape.record(routed.row(), shape.appendKey(routed.row(), nextRoundRobin())));
      return;
    }
    int key = shape.keyHash(routed.row());
    if (!newKeys.isEmpty() && appendedByKey(routed, shape, key, out)) {
      return;
    }
    List<Schema> schemas = schemasSinceBarrier.get(routed.table());
    if (schemas == null) {
      schemas = new ArrayList<>(2);
      schemas.add(routed.schema());
      schemasSinceBarrier.put(routed.table(), schemas);
    } else if (schemas.get(schemas.size() - 1) != routed.schema()) {
      schemas.add(routed.schema());
    }
    // Before this key's row in the new schema: away with its row in every older one.
    for (int i = 0; i < schemas.size() - 1; i++) {
      WriteShape older = shape(routed.table(), schemas.get(i));
      out.collect(older.record(older.keyOnlyDelete(routed.row(), shape), key));
    }
    out.collect(shape.record(routed.row(), key));
  }

  /**
   * Writes {@code routed} through its table's appending writer when its key is new to the table or
   * held there since the barrier (ADR 0008 §14).
   *
   * @return false when the row upserts instead
   */
  @SuppressWarnings("ReferenceEquality") // schemas are resolved once and kept: identity
  private boolean appendedByKey(
      Routing.Routed routed, WriteShape shape, int key, Collector<FirnDynamicSink.Record> out) {
    NewKeys keys = newKeys.get(routed.table());
    if (keys == null) {
      return false;
    }
    NewKeys.KeyHash hash = keyHash.of((GenericRowData) routed.row(), shape.keyPositions);
    Schema held = keys.held(hash);
    if (held != null) {
      // New in this checkpoint: the table has no older row of it, the appending writers have all.
      if (held != NewKeys.NO_ROW && (routed.delete() || held != routed.schema())) {
        // The writer that holds the key's row turns this into a position delete of it.
        WriteShape holder = shape(routed.table(), held).appending();
        out.collect(holder.record(holder.keyOnlyDelete(routed.row(), shape), key));
      }
      if (routed.delete()) {
        keys.release(hash);
      } else {
        // Into the same writer as before when the schema is the same: it replaces its own row
        // of the key by a position delete.
        out.collect(shape.appending().record(routed.row(), key));
        keys.hold(hash, routed.schema());
      }
      return true;
    }
    if (routed.delete() || keys.maySee(hash)) {
      // A key the table may hold: the upsert's equality delete (harmless when it holds none).
      return false;
    }
    boolean seen = keys.see(hash);
    if (!seen || !keys.appends() || heldKeys >= NewKeys.MAX_HELD) {
      // Retiring, or too many keys held until the barrier: this new key upserts.
      return false;
    }
    keys.hold(hash, routed.schema());
    heldKeys++;
    out.collect(shape.appending().record(routed.row(), key));
    metrics.newKeyAppend(routed.table());
    return true;
  }

  private int nextRoundRobin() {
    return roundRobin++;
  }

  @SuppressWarnings("ReferenceEquality") // schemas are resolved once and kept: identity
  private WriteShape shape(TableIdentifier table, Schema schema) {
    if (schema == lastShape.schema) {
      return lastShape;
    }
    WriteShape shape = shapes.get(schema);
    if (shape == null) {
      TableRule rule = rule(table);
      PartitionSpec spec = writeSpecs.get(schema);
      if (spec == null) {
        throw new IllegalStateException(
            "no partition spec resolved for schema " + schema.schemaId() + " of " + table);
      }
      shape = new WriteShape(table, schema, spec, rule.upsert() ? rule.primaryKey() : List.of());
      shapes.put(schema, shape);
    }
    lastShape = shape;
    return shape;
  }

  private WriteShape deadLetterShape() {
    if (deadLetterShape == null) {
      Schema schema;
      try {
        schema = resolve(deadLetterTable, DeadLetters.SCHEMA);
      } catch (RefusedRecordException e) {
        // Not the event's fault: the table (someone else's?) cannot hold dead letters.
        throw new IngestInfrastructureException(
            "The dead-letter table "
                + deadLetterTable
                + " cannot take dead letters: "
                + e.getMessage(),
            e);
      }
      PartitionSpec spec = writeSpecs.get(schema);
      if (spec == null) {
        throw new IllegalStateException(
            "no partition spec resolved for schema "
                + schema.schemaId()
                + " of the dead-letter table "
                + deadLetterTable);
      }
      deadLetterShape = new WriteShape(deadLetterTable, schema, spec, List.of());
    }
    return deadLetterShape;
  }

  /**
   * Creates {@code table}, or brings its schema and spec up to {@code wanted}, and returns the
   * table's schema to write its rows in (see {@link TableRows.SchemaResolver}).
   *
   * @throws RefusedRecordException when Iceberg refuses the partition spec, the creation or the
   *     change ({@link #refusedByIceberg}): the event's fault, nothing of the change is kept here
   * @throws IngestInfrastructureException when the catalog or the storage failed
   */
  private Schema resolve(TableIdentifier table, Schema wanted) {
    resolveStep = "derive the partition spec of";
    try {
      return resolveOrThrow(table, wanted);
    } catch (RefusedRecordException | IngestInfrastructureException e) {
      throw e;
    } catch (RuntimeException e) {
      if (refusedByIceberg(e)) {
        // One line per poison event; the stack only at debug.
        LOG.info("Iceberg refused to {} {} for an event: {}", resolveStep, table, e.toString());
        LOG.debug("Iceberg refused to {} {} for schema {}", resolveStep, table, wanted, e);
        throw new RefusedRecordException(
            DeadLetterReason.TABLE_CHANGE_REFUSED,
            "Iceberg refused to "
                + resolveStep
                + " "
                + table
                + ": "
                + TableRows.abbreviate(String.valueOf(e.getMessage())),
            e);
      }
      throw new IngestInfrastructureException(
          "Could not " + resolveStep + " " + table + " in catalog " + catalog.name(), e);
    }
  }

  /**
   * Whether {@code e}, thrown while a table was created or changed for an event, is Iceberg (or
   * Flink) refusing the metadata the event asks for rather than a failure of the catalog or the
   * storage: Iceberg validates schemas, specs and updates with {@code IllegalArgumentException}
   * ({@code Preconditions.checkArgument}) and {@code ValidationException}; I/O, SQL and network
   * failures underneath never count as a refusal.
   */
  static boolean refusedByIceberg(Throwable e) {
    if (!(e instanceof IllegalArgumentException
        || e instanceof ValidationException
        || e instanceof org.apache.flink.table.api.ValidationException)) {
      return false;
    }
    for (Throwable cause = e; cause != null; cause = cause.getCause()) {
      if (cause instanceof IOException
          || cause instanceof UncheckedIOException
          || cause instanceof SQLException
          || cause instanceof UnresolvedAddressException) {
        return false;
      }
      if (cause.getCause() == cause) {
        break;
      }
    }
    return true;
  }

  private Schema resolveOrThrow(TableIdentifier table, Schema wanted) {
    Table current = null;
    List<PartitionCandidate> candidates = rule(table).partitionCandidates();
    PartitionSpec wantedSpec = spec(table, wanted);
    resolveStep = "look up";
    if (!existingSpecs.containsKey(table) && currentTable(catalog, table).isEmpty()) {
      resolveStep = "create";
      try {
        current = tableCreator.create(catalog, table, wanted, wantedSpec);
        LOG.info(
            "Created table {} with schema {} and partition spec {}",
            table,
            current.schema().asStruct(),
            current.spec());
        metrics.tableCreation();
        if (rule(table).inserts() == Inserts.APPEND_NEW_KEYS) {
          if (appendsNewKeys()) {
            newKeys.put(table, NewKeys.created(table.toString()));
            LOG.info(
                "Table {} appends the rows of keys new to it (inserts: append-new-keys)", table);
          } else if (newKeyInserts && warned.add("new-keys/parallelism")) {
            LOG.warn(
                "Rule '{}' says inserts: append-new-keys, but the router runs with parallelism {}"
                    + " (it needs 1): every row upserts",
                rule(table).match(),
                getRuntimeContext().getTaskInfo().getNumberOfParallelSubtasks());
          }
        }
      } catch (AlreadyExistsException e) {
        LOG.info("Table {} was created by another writer meanwhile", table);
      }
    }
    if (current == null) {
      resolveStep = "evolve";
      evolve(table, wanted, wantedSpec);
      resolveStep = "load";
      current = catalog.loadTable(table);
    }
    existingSpecs.putIfAbsent(table, current.spec());
    if (!rule(table).upsert()
        && !current.schema().identifierFieldIds().isEmpty()
        && warned.add(table + "/identifier")) {
      LOG.warn(
          "Append table {} has identifier fields {}: Iceberg's writer replaces rows with equal"
              + " values of them within a checkpoint instead of appending both. Drop the identifier"
              + " fields (ALTER TABLE ... DROP IDENTIFIER FIELDS) or make the table an upsert table",
          table,
          current.schema().identifierFieldNames());
    }
    Schema schema = current.schema();
    if (!covers(schema, wanted)) {
      throw new IllegalStateException(
          "table "
              + table
              + " has schema "
              + schema.asStruct()
              + " after evolving it to "
              + wanted.asStruct());
    }
    // This table's rows in this schema are written with the table's current spec.
    writeSpecs.put(schema, current.spec());
    if (!candidates.isEmpty()) {
      // Only now: a spec Iceberg refused must not order the next one.
      lastSpecs.put(table, wantedSpec);
    }
    return schema;
  }

  /**
   * Brings {@code table}'s schema and spec up to {@code schema} and {@code spec} (new columns as
   * optional, allowed widenings, the candidates' spec) before the first record that needs them,
   * retrying when a commit of the sink wins the race. The sink would make the same change itself,
   * but in one attempt: a data commit landing in between fails the task (seen with Iceberg 1.11.0),
   * and the job restarts. With the change already in the table the sink finds it and commits
   * nothing.
   */
  private void evolve(TableIdentifier identifier, Schema schema, PartitionSpec spec) {
    for (int attempt = 1; ; attempt++) {
      Table table = catalog.loadTable(identifier);
      boolean schemaChanged = !covers(table.schema(), schema);
      boolean specChanged =
          !rule(identifier).partitionCandidates().isEmpty()
              && !PartitionSpecEvolution.checkCompatibility(table.spec(), spec);
      if (specChanged && rule(identifier).upsert() && table.currentSnapshot() != null) {
        // An equality delete reaches only rows of its own spec and partition (unless it is
        // unpartitioned): after a spec change, upserts would leave the rows written under the
        // old spec behind, a duplicate per key.
        if (warned.add(identifier + "/spec")) {
          LOG.warn(
              "Upsert table {} keeps its partition spec {} instead of {}: equality deletes of the"
                  + " new spec would not reach rows written under the old one. Rewrite the table"
                  + " under the new spec first (or partition a new table)",
              identifier,
              table.spec(),
              spec);
        }
        specChanged = false;
      }
      if (!schemaChanged && !specChanged) {
        return;
      }
      try {
        if (schemaChanged) {
          table.updateSchema().unionByNameWith(schema).commit();
          metrics.schemaChange(identifier);
          LOG.info(
              "Evolved the schema of {}: {} -> {}", identifier, table.schema(), schema.asStruct());
        }
        if (specChanged) {
          UpdatePartitionSpec update = table.updateSpec();
          Set<String> wanted = new HashSet<>();
          for (PartitionField field : spec.fields()) {
            String column = spec.schema().findColumnName(field.sourceId());
            wanted.add(column + "/" + field.transform());
            if (!has(table.spec(), column, field.transform().toString())) {
              update.addField(Expressions.transform(column, field.transform()));
            }
          }
          for (PartitionField field : table.spec().fields()) {
            String column = table.schema().findColumnName(field.sourceId());
            if (!wanted.contains(column + "/" + field.transform())) {
              update.removeField(field.name());
            }
          }
          update.commit();
          metrics.specChange(identifier);
          LOG.info("Evolved the partition spec of {}: {} -> {}", identifier, table.spec(), spec);
        }
        return;
      } catch (CommitFailedException e) {
        if (attempt >= EVOLVE_ATTEMPTS) {
          throw new IllegalStateException(
              "Could not evolve "
                  + identifier
                  + " to schema "
                  + schema.asStruct()
                  + " and spec "
                  + spec
                  + " after "
                  + attempt
                  + " attempts: other commits kept winning",
              e);
        }
        LOG.info(
            "Evolving {} lost a commit race (attempt {} of {}); retrying",
            identifier,
            attempt,
            EVOLVE_ATTEMPTS);
        sleepQuietly(20L * attempt);
      }
    }
  }

  /**
   * Whether {@code table} has every column of {@code wanted}, in its type or a wider one, and
   * optional where {@code wanted} is; for struct, list and map columns every nested field by name
   * (the table assigns its own field ids).
   */
  private static boolean covers(Schema table, Schema wanted) {
    for (Types.NestedField column : wanted.columns()) {
      Types.NestedField existing = table.findField(column.name());
      if (existing == null || !NestedColumns.covers(existing, column)) {
        return false;
      }
    }
    return true;
  }

  private static boolean has(PartitionSpec spec, String column, String transform) {
    for (PartitionField field : spec.fields()) {
      if (column.equals(spec.schema().findColumnName(field.sourceId()))
          && transform.equals(field.transform().toString())) {
        return true;
      }
    }
    return false;
  }

  private static void sleepQuietly(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while evolving a table", e);
    }
  }

  /**
   * The partition spec of {@code table}'s records in {@code schema}: the rule's candidates the
   * schema has; without candidates, the spec the table had when first seen (so that the sink never
   * un-partitions a table partitioned by someone else), else unpartitioned.
   */
  private PartitionSpec spec(TableIdentifier table, Schema schema) {
    List<PartitionCandidate> candidates = rule(table).partitionCandidates();
    if (candidates.isEmpty()) {
      return existingSpecs.getOrDefault(table, PartitionSpec.unpartitioned());
    }
    // Fields the table is already partitioned by keep their place and new ones are appended, so
    // that an evolution only adds fields (Iceberg's sink compares specs field by field).
    PartitionSpec previous = lastSpecs.getOrDefault(table, existingSpecs.get(table));
    PartitionSpec spec =
        PartitionCandidate.spec(PartitionCandidate.ordered(candidates, previous), schema);
    LOG.info("Partition spec of {} for its schema {}: {}", table, schema.schemaId(), spec);
    return spec;
  }

  private TableRule rule(TableIdentifier table) {
    if (table.equals(deadLetterTable)) {
      // Never a routed table's rule (a '*' rule would partition or key it): an unpartitioned log.
      return DEAD_LETTER_RULE;
    }
    return rules.computeIfAbsent(table.name(), settings::table);
  }

  private static int position(Schema schema, String column) {
    List<Types.NestedField> columns = schema.columns();
    for (int i = 0; i < columns.size(); i++) {
      if (columns.get(i).name().equals(column)) {
        return i;
      }
    }
    throw new IllegalStateException("key column '" + column + "' is not in schema " + schema);
  }

  /**
   * How the rows of one table schema are written: the fixed parts of their sink records, where
   * their key columns sit, and how their writer is chosen.
   */
  private static final class WriteShape {
    /** No shape yet. */
    static final WriteShape NONE =
        new WriteShape(
            TableIdentifier.of("none"), new Schema(), PartitionSpec.unpartitioned(), List.of());

    private final String tableName;
    private final Schema schema;
    private final PartitionSpec spec;
    private final boolean upsert;

    /** Whether the records are in upsert mode: false for appends and for appended new keys. */
    private final boolean upsertMode;

    private final Set<Integer> equalityFieldIds;
    private final int[] keyPositions;
    private final int tableHash;
    private final @Nullable PartitionKey partitionKey;
    private final @Nullable RowDataWrapper partitionSource;
    private @Nullable WriteShape appending;

    /**
     * @param key the key columns of an upsert table, in the rule's order; empty for appends
     */
    WriteShape(TableIdentifier table, Schema schema, PartitionSpec spec, List<String> key) {
      this.tableName = table.toString();
      this.schema = schema;
      this.spec = spec;
      this.upsert = !key.isEmpty();
      this.upsertMode = upsert;
      this.keyPositions = new int[key.size()];
      Set<Integer> ids = new HashSet<>();
      for (int i = 0; i < key.size(); i++) {
        keyPositions[i] = position(schema, key.get(i));
        ids.add(schema.columns().get(keyPositions[i]).fieldId());
      }
      this.equalityFieldIds = Set.copyOf(ids);
      this.tableHash = tableName.hashCode();
      if (!upsert && spec.isPartitioned()) {
        this.partitionKey = new PartitionKey(spec, schema);
        this.partitionSource =
            new RowDataWrapper(FlinkSchemaUtil.convert(schema), schema.asStruct());
      } else {
        this.partitionKey = null;
        this.partitionSource = null;
      }
    }

    /** The same rows for the appending writer: no upsert mode, the same equality fields. */
    private WriteShape(WriteShape upserting) {
      this.tableName = upserting.tableName;
      this.schema = upserting.schema;
      this.spec = upserting.spec;
      this.upsert = true;
      this.upsertMode = false;
      this.equalityFieldIds = upserting.equalityFieldIds;
      this.keyPositions = upserting.keyPositions;
      this.tableHash = upserting.tableHash;
      this.partitionKey = null;
      this.partitionSource = null;
    }

    boolean upsert() {
      return upsert;
    }

    /** This upsert shape's twin for the appending writer of new keys. */
    WriteShape appending() {
      if (appending == null) {
        appending = new WriteShape(this);
      }
      return appending;
    }

    FirnDynamicSink.Record record(RowData row, int writerKey) {
      return new FirnDynamicSink.Record(
          tableName, schema, row, spec, writerKey, upsertMode, equalityFieldIds);
    }

    /**
     * The writer key of an upsert row: a hash of the table and the key values, the same in every
     * subtask and in every schema of the table (Flink's data values hash by value).
     */
    int keyHash(RowData row) {
      GenericRowData values = (GenericRowData) row;
      int hash = tableHash;
      for (int position : keyPositions) {
        hash = 31 * hash + Objects.hashCode(values.getField(position));
      }
      return hash;
    }

    /**
     * The writer key of an appended row: by partition when the table is partitioned (fewer files
     * per partition), else {@code roundRobin}.
     */
    int appendKey(RowData row, int roundRobin) {
      if (partitionKey == null || partitionSource == null) {
        return roundRobin;
      }
      partitionKey.partition(partitionSource.wrap(row));
      return 31 * tableHash + partitionKey.hashCode();
    }

    /**
     * A key-only {@code DELETE} in this schema of the key of {@code row}, a row of {@code from}.
     */
    RowData keyOnlyDelete(RowData row, WriteShape from) {
      GenericRowData source = (GenericRowData) row;
      GenericRowData delete = new GenericRowData(RowKind.DELETE, schema.columns().size());
      for (int i = 0; i < keyPositions.length; i++) {
        delete.setField(keyPositions[i], source.getField(from.keyPositions[i]));
      }
      return delete;
    }

    /** {@code row}, a row of {@code inferred}, in this schema's columns (matched by name). */
    RowData byName(Schema inferred, RowData row) {
      List<Types.NestedField> columns = schema.columns();
      if (inferred.columns().size() == columns.size()) {
        boolean same = true;
        for (int i = 0; i < columns.size() && same; i++) {
          same = columns.get(i).name().equals(inferred.columns().get(i).name());
        }
        if (same) {
          return row;
        }
      }
      GenericRowData source = (GenericRowData) row;
      GenericRowData target = new GenericRowData(columns.size());
      List<Types.NestedField> from = inferred.columns();
      for (int i = 0; i < from.size(); i++) {
        Types.NestedField column = schema.findField(from.get(i).name());
        if (column != null) {
          target.setField(position(schema, column.name()), source.getField(i));
        }
      }
      return target;
    }
  }
}
