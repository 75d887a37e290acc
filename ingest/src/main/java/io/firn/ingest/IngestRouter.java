package io.firn.ingest;

import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.CheckpointListener;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.types.RowKind;
import org.apache.flink.util.Collector;
import org.apache.iceberg.DistributionMode;
import org.apache.iceberg.PartitionField;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SnapshotRef;
import org.apache.iceberg.Table;
import org.apache.iceberg.UpdatePartitionSpec;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.flink.CatalogLoader;
import org.apache.iceberg.flink.sink.dynamic.DynamicRecord;
import org.apache.iceberg.flink.sink.dynamic.PartitionSpecEvolution;
import org.apache.iceberg.types.TypeUtil;
import org.apache.iceberg.types.Types;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The routing operator: turns each raw JSON event into one {@link DynamicRecord} (an upsert or
 * delete in its routed table, or an append to the dead-letter table) for Iceberg's dynamic sink,
 * and counts what it does in {@link IngestMetrics}. It runs as Firn's own operator in front of the
 * sink, not as the sink's {@code DynamicRecordGenerator}: a generator gets no metric group.
 *
 * <p>Iceberg 1.11.0 rules (DESIGN.md §8): every upsert record carries {@code upsertMode=true} and
 * explicit equality fields, and uses {@link DistributionMode#HASH} so that one key always lands on
 * one writer (forward mode does not key by equality fields, #15305).
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
 */
public final class IngestRouter extends ProcessFunction<IngestEvent, DynamicRecord>
    implements CheckpointedFunction, CheckpointListener {
  private static final long serialVersionUID = 1L;
  private static final Logger LOG = LoggerFactory.getLogger(IngestRouter.class);

  /** Per-table metric series a subtask creates before counting further tables together. */
  static final int TABLE_SERIES_LIMIT = 500;

  /** Attempts to evolve a table's schema or spec against concurrent commits. */
  private static final int EVOLVE_ATTEMPTS = 10;

  private final IngestSettings settings;
  private final CatalogLoader catalogLoader;
  private transient Catalog catalog;
  private transient EventRouter router;
  private transient TableIdentifier deadLetterTable;
  private transient Clock clock;
  private transient IngestMetrics metrics;
  private transient Map<TableIdentifier, Schema> lastSchemas;

  /**
   * Per upsert table, the distinct schemas this subtask wrote it in since the last barrier, oldest
   * first; the last is the current one.
   */
  private transient Map<TableIdentifier, List<Schema>> schemasSinceBarrier;

  private transient Map<String, TableRule> rules;
  private transient Set<TableIdentifier> absentAtFirstSight;
  private transient Map<TableIdentifier, PartitionSpec> existingSpecs;
  private transient Map<Schema, PartitionSpec> specs;
  private transient Map<TableIdentifier, PartitionSpec> lastSpecs;

  public IngestRouter(IngestSettings settings, CatalogLoader catalogLoader) {
    this.settings = settings;
    this.catalogLoader = catalogLoader;
  }

  @Override
  public void open(OpenContext context) {
    Catalog catalog = catalogLoader.loadCatalog();
    this.catalog = catalog;
    this.absentAtFirstSight = new HashSet<>();
    this.existingSpecs = new HashMap<>();
    this.specs = new IdentityHashMap<>();
    this.lastSpecs = new HashMap<>();
    this.router =
        settings.router(
            table -> {
              Optional<Table> loaded = currentTable(catalog, table);
              if (loaded.isEmpty()) {
                absentAtFirstSight.add(table);
              } else {
                existingSpecs.put(table, loaded.get().spec());
              }
              return loaded.map(Table::schema);
            });
    this.deadLetterTable =
        TableIdentifier.of(Namespace.of(settings.namespace()), settings.deadLetterTable());
    // Before any record: the sink's own namespace creation does not survive a race between
    // subtasks on every catalog (see VersionTwoTableCreator#ensureNamespace).
    VersionTwoTableCreator.ensureNamespace(catalog, deadLetterTable.namespace());
    this.clock = Clock.systemUTC();
    this.metrics =
        new IngestMetrics(
            getRuntimeContext().getMetricGroup(), catalog.name(), TABLE_SERIES_LIMIT, clock);
    this.lastSchemas = new HashMap<>();
    this.schemasSinceBarrier = new HashMap<>();
    this.rules = new HashMap<>();
  }

  private static Optional<Table> currentTable(Catalog catalog, TableIdentifier table) {
    try {
      return Optional.of(catalog.loadTable(table));
    } catch (NoSuchTableException e) {
      return Optional.empty();
    }
  }

  @Override
  public void initializeState(FunctionInitializationContext context) {
    // No state: after a restore the writers start empty, and so does the list of keys.
  }

  @Override
  public void snapshotState(FunctionSnapshotContext context) {
    // The writers start new files after the barrier: older schemas no longer hold this
    // checkpoint's rows.
    schemasSinceBarrier.clear();
    metrics.barrier(context.getCheckpointId());
  }

  @Override
  public void notifyCheckpointComplete(long checkpointId) {
    metrics.completed(checkpointId);
  }

  @Override
  public void processElement(IngestEvent event, Context context, Collector<DynamicRecord> out) {
    for (Routing routing : router.route(event.payload())) {
      if (routing instanceof Routing.Routed routed) {
        write(routed, out);
      } else if (routing instanceof Routing.Rejected rejected) {
        metrics.deadLetter(rejected.reason());
        out.collect(
            new DynamicRecord(
                deadLetterTable,
                SnapshotRef.MAIN_BRANCH,
                DeadLetters.SCHEMA,
                DeadLetters.row(event, rejected, clock.instant()),
                PartitionSpec.unpartitioned(),
                DistributionMode.NONE,
                1));
      }
    }
  }

  private void write(Routing.Routed routed, Collector<DynamicRecord> out) {
    metrics.record(routed.table());
    Schema previous = lastSchemas.get(routed.table());
    if (previous != routed.schema()) {
      lastSchemas.put(routed.table(), routed.schema());
    }
    if (previous == null && absentAtFirstSight.remove(routed.table())) {
      // The sink creates it with this schema and spec (VersionTwoTableCreator).
      LOG.info("Creating table {} with schema {}", routed.table(), routed.schema());
      metrics.tableCreation();
    } else if (previous == null
        || (previous != routed.schema() && !previous.sameSchema(routed.schema()))) {
      if (evolve(routed.table(), routed.schema(), spec(routed.table(), routed.schema()))) {
        metrics.schemaChange(routed.table());
      }
    }
    if (!upsert(routed)) {
      // Appends keep every row: nothing to deduplicate when the schema widens mid-checkpoint.
      out.collect(upsert(routed.table(), routed.schema(), routed.row(), routed));
      return;
    }
    List<Schema> schemas = schemasSinceBarrier.get(routed.table());
    if (schemas == null) {
      schemas = new ArrayList<>(2);
      schemas.add(routed.schema());
      schemasSinceBarrier.put(routed.table(), schemas);
    } else if (schemas.get(schemas.size() - 1) != routed.schema()) {
      if (schemas.get(schemas.size() - 1).sameSchema(routed.schema())) {
        schemas.set(schemas.size() - 1, routed.schema());
      } else {
        schemas.add(routed.schema());
      }
    }
    if (schemas.size() > 1) {
      // Before this key's row in the new schema: away with its row in every older one.
      Object key = keyValues(routed);
      for (int i = 0; i < schemas.size() - 1; i++) {
        Schema older = schemas.get(i);
        out.collect(upsert(routed.table(), older, keyOnlyDelete(older, routed, key), routed));
      }
    }
    out.collect(upsert(routed.table(), routed.schema(), routed.row(), routed));
  }

  private DynamicRecord upsert(
      TableIdentifier table, Schema schema, RowData row, Routing.Routed routed) {
    DynamicRecord record =
        new DynamicRecord(
            table,
            SnapshotRef.MAIN_BRANCH,
            schema,
            row,
            spec(table, schema),
            DistributionMode.HASH,
            settings.writeParallelism());
    if (upsert(routed)) {
      record.setUpsertMode(true);
      record.setEqualityFields(routed.keyFields());
    } else {
      // Appends have no equality fields: the sink then spreads rows by partition, and accepts
      // partition columns outside the key.
      record.setEqualityFields(Set.of());
    }
    return record;
  }

  /**
   * Brings {@code table}'s schema and spec up to {@code schema} and {@code spec} (new columns as
   * optional, allowed widenings, the candidates' spec) before the first record that needs them,
   * retrying when a commit of the sink wins the race. The sink would make the same change itself,
   * but in one attempt: a data commit landing in between fails the task (seen with Iceberg 1.11.0),
   * and the job restarts. With the change already in the table the sink finds it and commits
   * nothing.
   *
   * @return whether this call changed the table
   */
  private boolean evolve(TableIdentifier identifier, Schema schema, PartitionSpec spec) {
    for (int attempt = 1; ; attempt++) {
      Table table = catalog.loadTable(identifier);
      boolean schemaChanged = !covers(table.schema(), schema);
      boolean specChanged =
          !rule(identifier).partitionCandidates().isEmpty()
              && !PartitionSpecEvolution.checkCompatibility(table.spec(), spec);
      if (!schemaChanged && !specChanged) {
        return false;
      }
      try {
        if (schemaChanged) {
          table.updateSchema().unionByNameWith(schema).commit();
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
          LOG.info("Evolved the partition spec of {}: {} -> {}", identifier, table.spec(), spec);
        }
        return true;
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

  /** Whether {@code table} has every column of {@code wanted}, in its type or a wider one. */
  private static boolean covers(Schema table, Schema wanted) {
    for (Types.NestedField column : wanted.columns()) {
      Types.NestedField existing = table.findField(column.name());
      if (existing == null
          || !(existing.type().equals(column.type())
              || (column.type().isPrimitiveType()
                  && existing.type().isPrimitiveType()
                  && TypeUtil.isPromotionAllowed(
                      column.type(), existing.type().asPrimitiveType())))) {
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
    PartitionSpec cached = specs.get(schema);
    if (cached != null) {
      return cached;
    }
    // Fields the table is already partitioned by keep their place and new ones are appended, so
    // that an evolution only adds fields (Iceberg's sink compares specs field by field).
    PartitionSpec previous = lastSpecs.getOrDefault(table, existingSpecs.get(table));
    PartitionSpec spec =
        PartitionCandidate.spec(PartitionCandidate.ordered(candidates, previous), schema);
    specs.put(schema, spec);
    lastSpecs.put(table, spec);
    LOG.info("Partition spec of {} for its schema {}: {}", table, schema.schemaId(), spec);
    return spec;
  }

  private boolean upsert(Routing.Routed routed) {
    return rule(routed.table()).upsert();
  }

  private TableRule rule(TableIdentifier table) {
    return rules.computeIfAbsent(table.name(), settings::table);
  }

  /** The key of a routed row: the value itself for one key field, else the list of values. */
  private static Object keyValues(Routing.Routed routed) {
    GenericRowData row = (GenericRowData) routed.row();
    if (routed.keyFields().size() == 1) {
      return row.getField(position(routed.schema(), routed.keyFields().iterator().next()));
    }
    List<Object> key = new ArrayList<>(routed.keyFields().size());
    for (String field : routed.keyFields()) {
      key.add(row.getField(position(routed.schema(), field)));
    }
    return key;
  }

  private static RowData keyOnlyDelete(Schema schema, Routing.Routed routed, Object key) {
    GenericRowData row = new GenericRowData(RowKind.DELETE, schema.columns().size());
    if (routed.keyFields().size() == 1) {
      row.setField(position(schema, routed.keyFields().iterator().next()), key);
      return row;
    }
    List<?> values = (List<?>) key;
    int i = 0;
    for (String field : routed.keyFields()) {
      row.setField(position(schema, field), values.get(i++));
    }
    return row;
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
}
