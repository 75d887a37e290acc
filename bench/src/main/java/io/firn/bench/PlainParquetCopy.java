package io.firn.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.firn.core.catalog.CatalogSettings;
import io.firn.core.catalog.Catalogs;
import java.io.File;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.formats.FormatModelRegistry;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.io.RollingDataWriter;

/**
 * The cost floor of a rewrite: read every data file of the table with Iceberg's generic Parquet
 * reader and write the same rows with its generic writer at the target size, without deletes and
 * without committing. Firn's rewrite throughput is reported as a fraction of this. Output files are
 * deleted afterwards.
 */
public final class PlainParquetCopy {
  private PlainParquetCopy() {}

  public static void main(String[] args) throws Exception {
    BenchArgs a = new BenchArgs(args);
    CatalogSettings settings =
        new CatalogSettings(
            "bench",
            "jdbc",
            a.get("catalog-uri"),
            a.get("warehouse"),
            Map.of("jdbc.schema-version", "V1"));
    Table table = Catalogs.load(Catalogs.connect(settings), a.get("table"));
    PartitionSpec spec = PartitionSpec.unpartitioned();
    GenericFileWriterFactory writers =
        new GenericFileWriterFactory.Builder(table)
            .dataFileFormat(FileFormat.PARQUET)
            .dataSchema(table.schema())
            .build();
    OutputFileFactory files =
        OutputFileFactory.builderFor(table, 0, 0)
            .format(FileFormat.PARQUET)
            .operationId("plain-copy-" + UUID.randomUUID())
            .defaultSpec(spec)
            .build();
    long started = System.nanoTime();
    long rows = 0;
    RollingDataWriter<Record> writer =
        new RollingDataWriter<>(writers, files, table.io(), 128L * 1024 * 1024, spec, null);
    try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
      for (FileScanTask task : tasks) {
        try (CloseableIterable<Record> records =
            FormatModelRegistry.<Record, Object>readBuilder(
                    FileFormat.PARQUET,
                    Record.class,
                    table.io().newInputFile(task.file().location()))
                .project(table.schema())
                .reuseContainers()
                .build()) {
          for (Record record : records) {
            writer.write(record);
            rows++;
          }
        }
      }
    } finally {
      writer.close();
    }
    double seconds = (System.nanoTime() - started) / 1e9;
    for (DataFile file : writer.result().dataFiles()) {
      table.io().deleteFile(file.location());
    }
    Map<String, Object> json = new LinkedHashMap<>();
    json.put("engine", "plain-parquet-copy");
    json.put("rows", rows);
    json.put("seconds", seconds);
    json.put("microsPerRow", seconds * 1e6 / Math.max(1, rows));
    new ObjectMapper()
        .enable(SerializationFeature.INDENT_OUTPUT)
        .writeValue(new File(a.get("out")), json);
    System.err.printf(Locale.ROOT, "[plain] copied %,d rows in %.1f s%n", rows, seconds);
  }
}
