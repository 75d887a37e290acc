package io.firn.ingest;

import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
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
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SnapshotRef;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.apache.iceberg.flink.CatalogLoader;
import org.apache.iceberg.flink.sink.dynamic.DynamicRecord;
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
 * apply to rows of the same sequence number. So when a table's schema widens, rows written earlier
 * in the same checkpoint under the old schema would survive next to their newer version. Before the
 * first record in a new schema, this operator therefore sends a key-only {@code DELETE} in the
 * previous schema for every key it wrote to that table since the last checkpoint barrier, which the
 * old schema's writer turns into a position delete of its own row, followed by that key's latest
 * row again in the new schema. A delete for a key that writer did not hold is a harmless equality
 * delete. The operator sees the barriers itself ({@link #snapshotState}), and records reach the
 * writers in order behind the same barriers, so the list is exact.
 */
public final class IngestRouter extends ProcessFunction<IngestEvent, DynamicRecord>
    implements CheckpointedFunction, CheckpointListener {
  private static final long serialVersionUID = 1L;
  private static final Logger LOG = LoggerFactory.getLogger(IngestRouter.class);

  /** Per-table metric series a subtask creates before counting further tables together. */
  static final int TABLE_SERIES_LIMIT = 500;

  private final IngestSettings settings;
  private final CatalogLoader catalogLoader;
  private transient EventRouter router;
  private transient TableIdentifier deadLetterTable;
  private transient Clock clock;
  private transient IngestMetrics metrics;
  private transient Map<TableIdentifier, Schema> lastSchemas;
  private transient Map<TableIdentifier, Map<List<Object>, RowData>> rowsSinceBarrier;
  private transient Map<String, Boolean> upsertByTable;
  private transient Set<TableIdentifier> absentAtFirstSight;

  public IngestRouter(IngestSettings settings, CatalogLoader catalogLoader) {
    this.settings = settings;
    this.catalogLoader = catalogLoader;
  }

  @Override
  public void open(OpenContext context) {
    Catalog catalog = catalogLoader.loadCatalog();
    this.absentAtFirstSight = new HashSet<>();
    this.router =
        settings.router(
            table -> {
              Optional<Schema> schema = currentSchema(catalog, table);
              if (schema.isEmpty()) {
                absentAtFirstSight.add(table);
              }
              return schema;
            });
    this.deadLetterTable =
        TableIdentifier.of(Namespace.of(settings.namespace()), settings.deadLetterTable());
    this.clock = Clock.systemUTC();
    this.metrics =
        new IngestMetrics(
            getRuntimeContext().getMetricGroup(), catalog.name(), TABLE_SERIES_LIMIT, clock);
    this.lastSchemas = new HashMap<>();
    this.rowsSinceBarrier = new HashMap<>();
    this.upsertByTable = new HashMap<>();
  }

  private static Optional<Schema> currentSchema(Catalog catalog, TableIdentifier table) {
    try {
      return Optional.of(catalog.loadTable(table).schema());
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
    rowsSinceBarrier.clear();
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
    Schema previous = lastSchemas.put(routed.table(), routed.schema());
    if (previous == null) {
      if (absentAtFirstSight.remove(routed.table())) {
        LOG.info("Creating table {} with schema {}", routed.table(), routed.schema());
        metrics.tableCreation();
      }
    } else if (previous != routed.schema() && !previous.sameSchema(routed.schema())) {
      LOG.info("Evolving the schema of {}: {} -> {}", routed.table(), previous, routed.schema());
      metrics.schemaChange(routed.table());
    }
    if (!upsert(routed)) {
      // Appends keep every row: nothing to deduplicate when the schema widens mid-checkpoint.
      out.collect(upsert(routed.table(), routed.schema(), routed.row(), routed));
      return;
    }
    Map<List<Object>, RowData> rows =
        rowsSinceBarrier.computeIfAbsent(routed.table(), t -> new LinkedHashMap<>());
    if (previous != null && previous != routed.schema()) {
      for (Map.Entry<List<Object>, RowData> row : rows.entrySet()) {
        out.collect(
            upsert(
                routed.table(), previous, keyOnlyDelete(previous, routed, row.getKey()), routed));
        out.collect(
            upsert(
                routed.table(),
                routed.schema(),
                project(row.getValue(), previous, routed.schema()),
                routed));
      }
      rows.clear();
    }
    if (routed.delete()) {
      // Nothing of this key is to be re-sent after a schema change: it is gone.
      rows.remove(keyValues(routed));
    } else {
      rows.put(keyValues(routed), routed.row());
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
            PartitionSpec.unpartitioned(),
            DistributionMode.HASH,
            settings.writeParallelism());
    record.setUpsertMode(upsert(routed));
    record.setEqualityFields(routed.keyFields());
    return record;
  }

  private boolean upsert(Routing.Routed routed) {
    return upsertByTable.computeIfAbsent(
        routed.table().name(), name -> settings.table(name).upsert());
  }

  private static List<Object> keyValues(Routing.Routed routed) {
    GenericRowData row = (GenericRowData) routed.row();
    List<Object> key = new ArrayList<>(routed.keyFields().size());
    for (String field : routed.keyFields()) {
      key.add(row.getField(position(routed.schema(), field)));
    }
    return key;
  }

  private static RowData keyOnlyDelete(Schema schema, Routing.Routed routed, List<Object> key) {
    GenericRowData row = new GenericRowData(RowKind.DELETE, schema.columns().size());
    int i = 0;
    for (String field : routed.keyFields()) {
      row.setField(position(schema, field), key.get(i++));
    }
    return row;
  }

  /**
   * The row of {@code from} in {@code to}'s columns (by name; columns {@code from} lacks are null).
   */
  private static RowData project(RowData row, Schema from, Schema to) {
    GenericRowData source = (GenericRowData) row;
    GenericRowData target = new GenericRowData(to.columns().size());
    List<Types.NestedField> columns = to.columns();
    for (int i = 0; i < columns.size(); i++) {
      if (from.findField(columns.get(i).name()) != null) {
        target.setField(i, source.getField(position(from, columns.get(i).name())));
      }
    }
    return target;
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
