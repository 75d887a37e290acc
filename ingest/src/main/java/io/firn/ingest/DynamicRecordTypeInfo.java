package io.firn.ingest;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import org.apache.flink.api.common.serialization.SerializerConfig;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.SimpleTypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.iceberg.DistributionMode;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.PartitionSpecParser;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SchemaParser;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.flink.FlinkSchemaUtil;
import org.apache.iceberg.flink.sink.dynamic.DynamicRecord;

/**
 * Flink type information for Iceberg's {@link DynamicRecord}, the element between Firn's routing
 * operator ({@link IngestRouter}) and the dynamic sink. Iceberg ships none (it expects records to
 * be produced inside its own operator); without one Flink would fall back to Kryo.
 *
 * <p>In the normal job the router is chained to the sink's processor, where Flink only {@linkplain
 * TypeSerializer#copy(Object) copies} records: a shallow copy, since the router never touches a
 * record again after emitting it. Full serialization (schema and spec as JSON, the row through
 * Flink's {@link RowDataSerializer} for that schema) is only used when the two operators are not
 * chained; serialized schemas are cached per serializer instance.
 */
public final class DynamicRecordTypeInfo extends TypeInformation<DynamicRecord> {
  private static final long serialVersionUID = 1L;

  @Override
  public boolean isBasicType() {
    return false;
  }

  @Override
  public boolean isTupleType() {
    return false;
  }

  @Override
  public int getArity() {
    return 1;
  }

  @Override
  public int getTotalFields() {
    return 1;
  }

  @Override
  public Class<DynamicRecord> getTypeClass() {
    return DynamicRecord.class;
  }

  @Override
  public boolean isKeyType() {
    return false;
  }

  @Override
  public TypeSerializer<DynamicRecord> createSerializer(SerializerConfig config) {
    return new Serializer();
  }

  @Override
  public String toString() {
    return "DynamicRecordTypeInfo";
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof DynamicRecordTypeInfo;
  }

  @Override
  public int hashCode() {
    return DynamicRecordTypeInfo.class.hashCode();
  }

  @Override
  public boolean canEqual(Object other) {
    return other instanceof DynamicRecordTypeInfo;
  }

  /** The serializer; not thread-safe (Flink duplicates it per use). */
  public static final class Serializer extends TypeSerializer<DynamicRecord> {
    private static final long serialVersionUID = 1L;
    private static final int CACHED_SCHEMAS = 64;

    private transient Map<Schema, String> schemaJson;
    private transient Map<String, Schema> parsedSchemas;
    private transient Map<Schema, RowDataSerializer> rowSerializers;

    @Override
    public boolean isImmutableType() {
      return false;
    }

    @Override
    public TypeSerializer<DynamicRecord> duplicate() {
      return new Serializer();
    }

    @Override
    public DynamicRecord createInstance() {
      return null;
    }

    @Override
    public DynamicRecord copy(DynamicRecord from) {
      DynamicRecord copy =
          new DynamicRecord(
              from.tableIdentifier(),
              from.branch(),
              from.schema(),
              from.rowData(),
              from.spec(),
              from.distributionMode(),
              from.writeParallelism());
      copy.setUpsertMode(from.upsertMode());
      copy.setEqualityFields(from.equalityFields());
      return copy;
    }

    @Override
    public DynamicRecord copy(DynamicRecord from, DynamicRecord reuse) {
      return copy(from);
    }

    @Override
    public int getLength() {
      return -1;
    }

    @Override
    public void serialize(DynamicRecord record, DataOutputView out) throws IOException {
      out.writeUTF(record.tableIdentifier().toString());
      writeNullable(out, record.branch());
      Schema schema = record.schema();
      writeLong(out, cache().schemaJson.computeIfAbsent(schema, SchemaParser::toJson));
      writeLong(out, PartitionSpecParser.toJson(record.spec()));
      writeNullable(
          out, record.distributionMode() == null ? null : record.distributionMode().name());
      out.writeInt(record.writeParallelism());
      out.writeBoolean(record.upsertMode());
      Set<String> fields = record.equalityFields();
      out.writeInt(fields == null ? -1 : fields.size());
      if (fields != null) {
        for (String field : fields) {
          out.writeUTF(field);
        }
      }
      rowSerializer(schema).serialize(record.rowData(), out);
    }

    @Override
    public DynamicRecord deserialize(DataInputView in) throws IOException {
      TableIdentifier table = TableIdentifier.parse(in.readUTF());
      String branch = readNullable(in);
      String json = readLong(in);
      Schema schema = cache().parsedSchemas.computeIfAbsent(json, SchemaParser::fromJson);
      PartitionSpec spec = PartitionSpecParser.fromJson(schema, readLong(in));
      String mode = readNullable(in);
      int parallelism = in.readInt();
      boolean upsert = in.readBoolean();
      int fieldCount = in.readInt();
      Set<String> fields = null;
      if (fieldCount >= 0) {
        fields = new LinkedHashSet<>();
        for (int i = 0; i < fieldCount; i++) {
          fields.add(in.readUTF());
        }
      }
      RowData row = rowSerializer(schema).deserialize(in);
      DynamicRecord record =
          new DynamicRecord(
              table,
              branch,
              schema,
              row,
              spec,
              mode == null ? null : DistributionMode.valueOf(mode),
              parallelism);
      record.setUpsertMode(upsert);
      record.setEqualityFields(fields);
      return record;
    }

    @Override
    public DynamicRecord deserialize(DynamicRecord reuse, DataInputView in) throws IOException {
      return deserialize(in);
    }

    @Override
    public void copy(DataInputView source, DataOutputView target) throws IOException {
      serialize(deserialize(source), target);
    }

    private Serializer cache() {
      if (schemaJson == null) {
        schemaJson = lru();
        parsedSchemas = lru();
        rowSerializers = lru();
      }
      return this;
    }

    private RowDataSerializer rowSerializer(Schema schema) {
      return cache()
          .rowSerializers
          .computeIfAbsent(schema, s -> new RowDataSerializer(FlinkSchemaUtil.convert(s)));
    }

    private static <K, V> Map<K, V> lru() {
      return new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<K, V> eldest) {
          return size() > CACHED_SCHEMAS;
        }
      };
    }

    private static void writeNullable(DataOutputView out, String value) throws IOException {
      out.writeBoolean(value != null);
      if (value != null) {
        out.writeUTF(value);
      }
    }

    private static String readNullable(DataInputView in) throws IOException {
      return in.readBoolean() ? in.readUTF() : null;
    }

    /** Strings beyond writeUTF's 64 KiB limit (large schemas). */
    private static void writeLong(DataOutputView out, String value) throws IOException {
      byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
      out.writeInt(bytes.length);
      out.write(bytes);
    }

    private static String readLong(DataInputView in) throws IOException {
      byte[] bytes = new byte[in.readInt()];
      in.readFully(bytes);
      return new String(bytes, StandardCharsets.UTF_8);
    }

    @Override
    public boolean equals(Object other) {
      return other instanceof Serializer;
    }

    @Override
    public int hashCode() {
      return Serializer.class.hashCode();
    }

    @Override
    public TypeSerializerSnapshot<DynamicRecord> snapshotConfiguration() {
      return new Snapshot();
    }
  }

  /** The serializer has no configuration: its snapshot restores a fresh one. */
  public static final class Snapshot extends SimpleTypeSerializerSnapshot<DynamicRecord> {
    public Snapshot() {
      super(Serializer::new);
    }
  }
}
