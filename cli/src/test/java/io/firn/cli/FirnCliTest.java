/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.firn.cli.testing.CliRun;
import io.firn.core.plan.BinPackPlanner;
import io.firn.core.plan.OptimizingPlan;
import io.firn.core.plan.PartitionPlan;
import io.firn.core.policy.OptimizingPolicy;
import io.firn.core.policy.Sizes;
import io.firn.testkit.CdcTableGenerator;
import io.firn.testkit.CdcTableSpec;
import io.firn.testkit.RowSets;
import io.firn.testkit.TestCatalogs;
import io.firn.worker.local.LocalOptimizer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code firn plan} and {@code firn optimize} against a real Flink-shaped CDC table in a JDBC
 * catalog on a SQLite file: what they print, what they change, and that every kind of bad input
 * ends with a message naming the culprit, a non-zero exit code and the table exactly as it was.
 */
class FirnCliTest {
  private static final TableIdentifier CDC = TableIdentifier.of("db", "cdc");

  /**
   * Holds {@code catalog.db} and {@code warehouse/}, generated once; each test starts from a
   * byte-for-byte copy of them at the same paths (metadata holds absolute locations).
   */
  @TempDir static Path dir;

  private static Path catalogFile;
  private static Path warehouse;
  private static Path pristine;
  private static long snapshotBefore;
  private static Map<String, Long> rowsBefore;

  private JdbcCatalog catalog;
  private Table table;

  @BeforeAll
  static void generateTable() throws IOException {
    catalogFile = dir.resolve("catalog.db");
    warehouse = dir.resolve("warehouse");
    pristine = dir.resolve("pristine");
    try (JdbcCatalog generating = jdbcCatalog()) {
      CdcTableGenerator.generate(generating, CDC, CdcTableSpec.small(4));
      Table generated = generating.loadTable(CDC);
      snapshotBefore = generated.currentSnapshot().snapshotId();
      rowsBefore = RowSets.read(generated);
    }
    assertThat(rowsBefore).isNotEmpty();
    copyTree(catalogFile, pristine.resolve("catalog.db"));
    copyTree(warehouse, pristine.resolve("warehouse"));
  }

  @BeforeEach
  void restoreTable() throws IOException {
    deleteTree(catalogFile);
    deleteTree(warehouse);
    copyTree(pristine.resolve("catalog.db"), catalogFile);
    copyTree(pristine.resolve("warehouse"), warehouse);
    catalog = jdbcCatalog();
    table = catalog.loadTable(CDC);
    assertThat(table.currentSnapshot().snapshotId()).isEqualTo(snapshotBefore);
  }

  @AfterEach
  void closeCatalog() throws IOException {
    catalog.close();
  }

  private static JdbcCatalog jdbcCatalog() {
    return TestCatalogs.jdbc("firn", "jdbc:sqlite:" + catalogFile, warehouse.toString(), Map.of());
  }

  // ---------------------------------------------------------------------------------------------
  // plan and optimize

  @Test
  void planPrintsEachPartitionsTypeReasonFilesBytesAndOutputFilesAndChangesNothing()
      throws IOException {
    Set<Path> filesBefore = filesUnder(warehouse);
    OptimizingPlan expected =
        new LocalOptimizer(OptimizingPolicy.DEFAULTS, new BinPackPlanner(), 1, line -> {})
            .plan(table, null, Instant.now());
    assertThat(expected.hasWork()).as("the generated table needs minor optimizing").isTrue();

    CliRun result = cli("plan", "--table", "db.cdc");

    assertThat(result.exit()).as(result.toString()).isEqualTo(FirnCli.OK);
    assertThat(result.err()).isEmpty();
    assertThat(result.out())
        .startsWith("table firn.db.cdc at snapshot " + snapshotBefore + ": ")
        .containsPattern(
            "(?m)^partition\\s+type\\s+files in\\s+bytes in\\s+convert\\s+deletes-\\s+files out"
                + "\\s+reason$")
        .doesNotContain("nothing to do");
    for (PartitionPlan partition : expected.partitions()) {
      assertThat(result.out())
          .as("line of partition %s", partition.key())
          .containsPattern(
              "(?m)^"
                  + Pattern.quote(partition.key().toString())
                  + "\\s+"
                  + partition.type().label()
                  + "\\s+"
                  + partition.rewriteFiles()
                  + "\\s+"
                  + Pattern.quote(Sizes.format(partition.rewriteBytes()))
                  + "\\s+"
                  + partition.convertFiles()
                  + "\\s+"
                  + partition.deletesToRemove().size()
                  + "\\s+"
                  + partition.estimatedOutputFiles()
                  + "\\s+"
                  + Pattern.quote(partition.reason())
                  + "$");
    }
    assertThat(expected.duePartitions())
        .isNotEmpty()
        .allSatisfy(
            p -> {
              assertThat(p.type().label()).isEqualTo("minor");
              assertThat(p.rewriteFiles()).isPositive();
              assertThat(p.reason()).contains(">= minor.trigger.file-count 12");
            });
    assertTableUnchanged();
    assertThat(filesUnder(warehouse)).isEqualTo(filesBefore);
  }

  @Test
  void planAfterFullOptimizingSaysNothingToDoAndWhy() {
    CliRun optimized = cli("optimize", "--table", "db.cdc", "--type", "full", "--threads", "2");
    assertThat(optimized.exit()).as(optimized.toString()).isEqualTo(FirnCli.OK);
    table.refresh();
    long optimizedSnapshot = table.currentSnapshot().snapshotId();
    assertThat(optimizedSnapshot).isNotEqualTo(snapshotBefore);

    CliRun plan = cli("plan", "--table", "db.cdc");

    assertThat(plan.exit()).as(plan.toString()).isEqualTo(FirnCli.OK);
    assertThat(plan.err()).isEmpty();
    assertThat(plan.out())
        .startsWith("table firn.db.cdc at snapshot " + optimizedSnapshot + ": ")
        .contains(", 0 equality-delete and 0 position-delete files, health ")
        .endsWith("nothing to do: no partition is due (reasons above)\n");
    List<String> partitionLines =
        plan.out().lines().filter(line -> line.startsWith("id_bucket_")).toList();
    assertThat(partitionLines)
        .isNotEmpty()
        .allSatisfy(
            line ->
                assertThat(line)
                    .containsPattern("^id_bucket_\\d=\\d.*\\s+none\\s+0\\s+0 B\\s+0\\s+0\\s+0\\s+")
                    .contains("nothing due: ")
                    .contains(" fragments + equality-delete files < minor.trigger.file-count 12")
                    .contains("full.trigger.interval off"));
    table.refresh();
    assertThat(table.currentSnapshot().snapshotId()).isEqualTo(optimizedSnapshot);
    assertThat(RowSets.read(table)).isEqualTo(rowsBefore);
  }

  @Test
  void optimizeKeepsEveryRowAndPrintsProgressAndASummary() {
    CliRun result = cli("optimize", "--table", "db.cdc", "--threads", "2");

    assertThat(result.exit()).as(result.toString()).isEqualTo(FirnCli.OK);
    assertThat(result.err()).isEmpty();
    table.refresh();
    assertThat(table.currentSnapshot().snapshotId()).isNotEqualTo(snapshotBefore);
    assertThat(RowSets.read(table)).isEqualTo(rowsBefore);
    assertThat(result.out())
        .containsPattern(
            "(?m)^firn\\.db\\.cdc: \\d+ partition\\(s\\) due, (\\d+) task\\(s\\), \\d+ data files"
                + " \\(.+\\) to rewrite, \\d+ to convert, snapshot "
                + snapshotBefore
                + "$")
        .containsPattern("(?m)^  \\[1/\\d+\\] id_bucket_.*: \\d+ files -> \\d+, .* rows in, .*s$")
        .containsPattern("(?m)^  id_bucket_4=\\d.*committed")
        .containsPattern(
            "(?m)^firn\\.db\\.cdc: (\\d+) of \\1 commit group\\(s\\) committed; [\\d,]+ rows read,"
                + " [\\d,]+ written; \\d+\\.\\d s$");
  }

  // ---------------------------------------------------------------------------------------------
  // bad input: catalog and table

  @Test
  void unknownTableExitsOneNamingIt() {
    CliRun result = cli("optimize", "--table", "db.nope");

    assertThat(result.exit()).isEqualTo(FirnCli.BAD_INPUT);
    assertThat(result.out()).isEmpty();
    assertThat(result.err())
        .startsWith(
            "error: table db.nope does not exist in catalog 'firn'; tables in namespace db: ")
        .contains("db.cdc")
        .contains("use the name the writers use, with --catalog-name");
    assertTableUnchanged();
  }

  @Test
  void missingSqliteCatalogFileExitsOneNamingTheFileAndDoesNotCreateIt() {
    Path missing = dir.resolve("no-such-catalog.db");

    CliRun result =
        CliRun.of(
            "plan",
            "--catalog-uri",
            "jdbc:sqlite:" + missing,
            "--warehouse",
            warehouse.toString(),
            "--table",
            "db.cdc");

    assertThat(result.exit()).isEqualTo(FirnCli.BAD_INPUT);
    assertThat(result.out()).isEmpty();
    assertThat(result.err())
        .isEqualTo(
            "error: catalog 'firn' (jdbc, jdbc:sqlite:"
                + missing
                + ", warehouse "
                + warehouse
                + "): the SQLite catalog file "
                + missing
                + " does not exist (Firn does not create catalogs; check the catalog uri)\n");
    assertThat(missing).doesNotExist();
    assertTableUnchanged();
  }

  @Test
  void unreachableCatalogExitsOneNamingTheCatalogAndItsUri() {
    String uri = "jdbc:postgresql://127.0.0.1:1/nothing";

    CliRun result =
        CliRun.of(
            "optimize",
            "--catalog-uri",
            uri,
            "--warehouse",
            warehouse.toString(),
            "--table",
            "db.cdc");

    assertThat(result.exit()).isEqualTo(FirnCli.BAD_INPUT);
    assertThat(result.out()).isEmpty();
    assertThat(result.err())
        .startsWith(
            "error: cannot connect to catalog 'firn' (jdbc, "
                + uri
                + ", warehouse "
                + warehouse
                + "): ")
        .contains("127.0.0.1:1");
    assertTableUnchanged();
  }

  @Test
  void formatVersionOneTableIsRefusedByPlanAndOptimize() throws IOException {
    TableIdentifier id = TableIdentifier.of("db", "v1");
    Table v1 = formatVersionOneTable(id);
    long v1Snapshot = v1.currentSnapshot().snapshotId();
    Map<String, Long> v1Rows = RowSets.read(v1);
    assertThat(v1Rows).hasSize(3);

    for (String command : List.of("plan", "optimize")) {
      CliRun result = cli(command, "--table", "db.v1", "--type", "full");

      assertThat(result.exit()).as(command).isEqualTo(FirnCli.BAD_INPUT);
      assertThat(result.out()).as(command).isEmpty();
      assertThat(result.err())
          .as(command)
          .startsWith(
              "error: table firn.db.v1 is format-version 1; Firn optimizes format-version 2 tables"
                  + " only")
          .contains("'format-version'='2'");
    }
    v1.refresh();
    assertThat(v1.currentSnapshot().snapshotId()).isEqualTo(v1Snapshot);
    assertThat(RowSets.read(v1)).isEqualTo(v1Rows);
    assertTableUnchanged();
  }

  // ---------------------------------------------------------------------------------------------
  // bad input: files

  @Test
  void dataFileMissingFromStorageFailsOptimizeWithExitTwoNamingTheFile() throws IOException {
    String victim = someDataFile();
    Path path = local(victim);
    byte[] original = Files.readAllBytes(path);
    Set<Path> filesBefore = filesUnder(warehouse);
    Files.delete(path);

    CliRun result = cli("optimize", "--table", "db.cdc", "--type", "full", "--threads", "2");

    assertThat(result.exit()).as(result.toString()).isEqualTo(FirnCli.NOT_COMMITTED);
    assertThat(result.err())
        .startsWith("error: task ")
        .contains(victim)
        .endsWith("; nothing was committed, the table is unchanged\n");
    table.refresh();
    assertThat(table.currentSnapshot().snapshotId()).isEqualTo(snapshotBefore);
    // Put the file back: the table's metadata and rows are exactly as before, no output is left.
    Files.write(path, original);
    assertThat(filesUnder(warehouse)).as("no output file left behind").isEqualTo(filesBefore);
    assertTableUnchanged();
  }

  @Test
  void corruptParquetFileFailsOptimizeWithExitTwoNamingTheFile() throws IOException {
    String victim = someDataFile();
    Path path = local(victim);
    byte[] original = Files.readAllBytes(path);
    Set<Path> filesBefore = filesUnder(warehouse);
    byte[] garbage = new byte[original.length];
    new Random(7).nextBytes(garbage);
    Files.write(path, garbage);

    CliRun result = cli("optimize", "--table", "db.cdc", "--type", "full", "--threads", "2");

    assertThat(result.exit()).as(result.toString()).isEqualTo(FirnCli.NOT_COMMITTED);
    assertThat(result.err())
        .startsWith("error: task ")
        .contains("cannot read data file " + victim)
        .endsWith("; nothing was committed, the table is unchanged\n");
    table.refresh();
    assertThat(table.currentSnapshot().snapshotId()).isEqualTo(snapshotBefore);
    Files.write(path, original);
    assertThat(filesUnder(warehouse)).as("no output file left behind").isEqualTo(filesBefore);
    assertTableUnchanged();
  }

  // ---------------------------------------------------------------------------------------------
  // bad input: options

  private record BadOption(List<String> options, String message) {}

  /**
   * Each case checks exit code, message, snapshot id and that no file was written; the last one
   * reads the rows once for all of them (any change would have persisted until then).
   */
  @TestFactory
  Stream<DynamicTest> badOptionExitsOneNamingTheOptionOrKeyAndChangesNothing() throws IOException {
    Set<Path> filesBefore = filesUnder(warehouse);
    Stream<DynamicTest> cases =
        Stream.of(
                new BadOption(
                    List.of("--frobnicate", "yes"),
                    "error: unknown option --frobnicate; known options: --"),
                new BadOption(
                    List.of("--type", "huge"),
                    "error: option --type: optimizing type 'huge' is not one of minor, major, full"
                        + "\n"),
                new BadOption(
                    List.of("--policy", "minor.trigger.count=3"),
                    "error: unknown policy key(s) [minor.trigger.count]; known keys are"
                        + " [equality-delete.bloom-threshold, fragment-ratio, "),
                new BadOption(
                    List.of("--policy", "target-size=huge"),
                    "error: policy key 'target-size' = 'huge': "),
                new BadOption(
                    List.of("--policy", "target-size"),
                    "error: option --policy = 'target-size' must be key=value\n"),
                new BadOption(
                    List.of("--threads", "many"),
                    "error: option --threads = 'many' must be a whole number\n"),
                new BadOption(
                    List.of("--threads", "0"),
                    "error: option --threads = '0' must be at least 1\n"),
                new BadOption(List.of("--type"), "error: option --type needs a value\n"),
                new BadOption(List.of("full"), "error: unexpected argument 'full'\n"))
            .map(
                bad ->
                    DynamicTest.dynamicTest(
                        String.join(" ", bad.options()),
                        () -> {
                          List<String> args =
                              new ArrayList<>(List.of("optimize", "--table", "db.cdc"));
                          args.addAll(bad.options());

                          CliRun result = cli(args.toArray(String[]::new));

                          assertThat(result.exit())
                              .as(result.toString())
                              .isEqualTo(FirnCli.BAD_INPUT);
                          assertThat(result.out()).isEmpty();
                          assertThat(result.err()).startsWith(bad.message());
                          table.refresh();
                          assertThat(table.currentSnapshot().snapshotId())
                              .isEqualTo(snapshotBefore);
                          assertThat(filesUnder(warehouse)).isEqualTo(filesBefore);
                        }));
    return Stream.concat(
        cases,
        Stream.of(
            DynamicTest.dynamicTest("the table is exactly as it was", this::assertTableUnchanged)));
  }

  @Test
  void missingTableOptionExitsOneNamingIt() {
    CliRun result = cli("plan");

    assertThat(result.exit()).isEqualTo(FirnCli.BAD_INPUT);
    assertThat(result.out()).isEmpty();
    assertThat(result.err()).isEqualTo("error: option --table is required\n");
    table.refresh();
    assertThat(table.currentSnapshot().snapshotId()).isEqualTo(snapshotBefore);
  }

  // ---------------------------------------------------------------------------------------------

  /** Runs the CLI against this test's catalog. */
  private CliRun cli(String... args) {
    List<String> all = new ArrayList<>(Arrays.asList(args));
    all.addAll(
        1,
        List.of(
            "--catalog-uri", "jdbc:sqlite:" + catalogFile, "--warehouse", warehouse.toString()));
    return CliRun.of(all);
  }

  private void assertTableUnchanged() {
    table.refresh();
    assertThat(table.currentSnapshot().snapshotId()).isEqualTo(snapshotBefore);
    assertThat(RowSets.read(table)).isEqualTo(rowsBefore);
  }

  /** A live data file of the current snapshot; a full optimizing reads every one of them. */
  private String someDataFile() {
    return files(table).stream().sorted().findFirst().orElseThrow();
  }

  private static List<String> files(Table table) {
    List<String> paths = new ArrayList<>();
    try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
      tasks.forEach(task -> paths.add(task.file().location()));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return paths;
  }

  private static Path local(String location) {
    return location.startsWith("file:") ? Path.of(URI.create(location)) : Path.of(location);
  }

  private static void copyTree(Path from, Path to) throws IOException {
    try (Stream<Path> walk = Files.walk(from)) {
      for (Path source : walk.toList()) {
        Path target = to.resolve(from.relativize(source).toString());
        if (Files.isDirectory(source)) {
          Files.createDirectories(target);
        } else {
          Files.createDirectories(target.getParent());
          Files.copy(source, target, StandardCopyOption.COPY_ATTRIBUTES);
        }
      }
    }
  }

  private static void deleteTree(Path root) throws IOException {
    if (!Files.exists(root)) {
      return;
    }
    try (Stream<Path> walk = Files.walk(root)) {
      for (Path path : walk.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(path);
      }
    }
  }

  private static Set<Path> filesUnder(Path root) throws IOException {
    try (Stream<Path> walk = Files.walk(root)) {
      return walk.filter(Files::isRegularFile).collect(Collectors.toSet());
    }
  }

  /** A format-version 1 table with one real data file of three rows. */
  private Table formatVersionOneTable(TableIdentifier id) throws IOException {
    Schema schema =
        new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.optional(2, "data", Types.StringType.get()));
    Table v1 =
        catalog.buildTable(id, schema).withProperty(TableProperties.FORMAT_VERSION, "1").create();
    GenericFileWriterFactory writers =
        new GenericFileWriterFactory.Builder(v1).dataSchema(v1.schema()).build();
    OutputFileFactory outputs = OutputFileFactory.builderFor(v1, 1, 1).build();
    DataWriter<Record> writer = writers.newDataWriter(outputs.newOutputFile(), v1.spec(), null);
    try (writer) {
      GenericRecord row = GenericRecord.create(v1.schema());
      for (long i = 1; i <= 3; i++) {
        writer.write(row.copy(Map.of("id", i, "data", "row " + i)));
      }
    }
    v1.newAppend().appendFile(writer.toDataFile()).commit();
    v1.refresh();
    return v1;
  }
}
