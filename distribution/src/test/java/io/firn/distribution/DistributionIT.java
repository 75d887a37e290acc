/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.distribution;

import static org.assertj.core.api.Assertions.assertThat;

import io.firn.testkit.CdcTableGenerator;
import io.firn.testkit.CdcTableSpec;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermission;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The distribution as a user gets it: {@code firn-VERSION-bin.tar.gz} unpacked with {@code tar}
 * into an empty directory outside the source tree, run from there with a {@code PATH} that has no
 * Maven. {@code bin/firn plan} against a table made here, {@code server check}, {@code policies
 * check}, the printed {@code flink run} / {@code spark-submit} lines and a short {@code demo} (the
 * server, the ingest job and the live view, which exits non-zero when nothing was optimized).
 */
class DistributionIT {
  private static final String VERSION = System.getProperty("firn.version", "0.1.0-SNAPSHOT");
  private static final Path TARBALL =
      Path.of(System.getProperty("firn.distribution", "target/firn-" + VERSION + "-bin.tar.gz"));
  private static final Path REPOSITORY = Path.of("..").toAbsolutePath().normalize();

  private static Path root;
  private static Path home;
  private static Path work;
  private static Map<String, String> env;

  @BeforeAll
  static void unpack() throws IOException {
    assertThat(TARBALL).as("run `mvn package` first: it builds the tarball").isRegularFile();
    // Not java.io.tmpdir: the build points it into target/, inside the source tree.
    root =
        Files.createTempDirectory(
            Path.of(System.getenv().getOrDefault("TMPDIR", "/tmp")), "firn-distribution-");
    assertThat(root.toRealPath().startsWith(REPOSITORY.toRealPath())).isFalse();
    work = Files.createDirectories(root.resolve("work"));
    env = withoutMaven(root.resolve("path"));

    Result tar = run(List.of("tar", "-xzf", TARBALL.toAbsolutePath().toString()), root, 120);
    assertThat(tar.exit()).as(tar.toString()).isZero();
    home = root.resolve("firn-" + VERSION);
    assertThat(home.resolve("bin/firn")).isRegularFile().isExecutable();
    home = home.toRealPath(); // as the launcher names it (cd -P)

    Result noMaven = run(List.of("bash", "-c", "command -v mvn"), work, 10);
    assertThat(noMaven.exit()).as("mvn is not on the child's PATH: " + noMaven).isNotZero();
  }

  @AfterAll
  static void removeUnpacked() throws IOException {
    if (root == null) {
      return;
    }
    try (Stream<Path> paths = Files.walk(root)) {
      paths.sorted(Comparator.reverseOrder()).map(Path::toFile).forEach(File::delete);
    }
  }

  @Test
  void layoutHasEachCommandsClasspathWithOneLoggingBindingAndEveryJarOnce() throws IOException {
    for (String path :
        List.of(
            "LICENSE",
            "NOTICE",
            "README.md",
            "bin/firn-one-shot-jvm.sh",
            "conf/firn-server.yaml",
            "conf/policies/default.yaml",
            "conf/policies/examples/demo.yaml",
            "conf/ingest/generator.yaml",
            "deploy/systemd/firn-server.service",
            "jobs/firn-ingest-" + VERSION + "-job.jar",
            "jobs/firn-worker-flink-" + VERSION + "-job.jar",
            "jobs/firn-worker-spark-" + VERSION + "-app.jar")) {
      assertThat(home.resolve(path)).as(path).isRegularFile();
    }
    assertThat(Files.readString(home.resolve("LICENSE"))).contains("Apache License");
    assertThat(home.resolve("pom.xml")).doesNotExist();
    assertThat(home.resolve("deploy/pom.xml")).doesNotExist();
    assertThat(home.resolve("deploy/src")).doesNotExist();

    Set<String> listed = new HashSet<>();
    int entries = 0;
    for (String command : List.of("cli", "server", "ingest")) {
      List<String> jars =
          Files.readAllLines(home.resolve("lib/classpath/" + command)).stream()
              .filter(line -> !line.isBlank())
              .toList();
      assertThat(jars).as(command).doesNotHaveDuplicates().hasSizeGreaterThan(10);
      for (String jar : jars) {
        assertThat(home.resolve("lib").resolve(jar)).as(command + ": " + jar).isRegularFile();
      }
      List<String> bindings =
          jars.stream()
              .filter(
                  jar ->
                      jar.startsWith("slf4j-simple-")
                          || jar.startsWith("logback-classic-")
                          || jar.startsWith("log4j-slf4j"))
              .toList();
      assertThat(bindings)
          .as(command + ": one SLF4J binding")
          .hasSize(1)
          .allMatch(
              jar ->
                  jar.startsWith(command.equals("server") ? "logback-classic-" : "slf4j-simple-"));
      listed.addAll(jars);
      entries += jars.size();
    }
    assertThat(List.of(home.resolve("lib/classpath/cli").toFile().getParentFile().list()))
        .containsExactlyInAnyOrder("cli", "server", "ingest");
    try (Stream<Path> files = Files.list(home.resolve("lib"))) {
      List<String> inLib =
          files.filter(Files::isRegularFile).map(p -> p.getFileName().toString()).toList();
      assertThat(inLib)
          .as("every jar in lib/ is on a classpath")
          .containsExactlyInAnyOrderElementsOf(listed);
      assertThat(inLib.size()).as("jars shared by the commands are there once").isLessThan(entries);
    }
  }

  @Test
  void planRunsFromTheDistributionAgainstATableMadeHere() {
    Path catalogFile = root.resolve("table/catalog.db");
    Path warehouse = root.resolve("table/warehouse");
    TableIdentifier cdc = TableIdentifier.of("db", "cdc");
    long snapshot;
    try (JdbcCatalog catalog = catalog(catalogFile, warehouse)) {
      CdcTableGenerator.generate(catalog, cdc, CdcTableSpec.small(2));
      snapshot = catalog.loadTable(cdc).currentSnapshot().snapshotId();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }

    Result plan =
        firn(
            120,
            "plan",
            "--catalog-uri",
            "jdbc:sqlite:" + catalogFile,
            "--warehouse",
            warehouse.toString(),
            "--table",
            "db.cdc");

    assertThat(plan.exit()).as(plan.toString()).isZero();
    assertThat(plan.out())
        .startsWith("table firn.db.cdc at snapshot " + snapshot + ": ")
        .containsPattern("(?m)^partition\\s+type\\s+files in")
        .containsPattern("(?m)^id_bucket_\\d=\\d+\\s+minor\\s+")
        .doesNotContain("nothing to do");
    assertNoBuildAndOneBinding(plan);
  }

  @Test
  void serverCheckValidatesTheShippedConfiguration() throws IOException {
    // Through a symlink on the PATH, as an install into /usr/local/bin would call it.
    Path link = Files.createSymbolicLink(root.resolve("path/firn"), home.resolve("bin/firn"));
    Result check = run(List.of(link.toString(), "server", "check"), work, 120);

    assertThat(check.exit()).as(check.toString()).isZero();
    assertThat(check.out())
        .contains("configuration " + home.resolve("conf/firn-server.yaml") + " is valid")
        .contains(
            "catalog firn: jdbc jdbc:sqlite:./firn-data/catalog.db, warehouse"
                + " ./firn-data/warehouse (the embedded default: the server creates it when its"
                + " file is missing)");
    assertNoBuildAndOneBinding(check);

    Result missing = firn(30, "server", "check", "no-such.yaml");
    assertThat(missing.exit()).isEqualTo(1);
    assertThat(missing.err()).contains("no server configuration file 'no-such.yaml'");
  }

  @Test
  void policiesCheckAcceptsTheShippedPolicies() throws IOException {
    List<String> args = new ArrayList<>(List.of("policies", "check"));
    try (Stream<Path> files = Files.list(home.resolve("conf/policies/examples"))) {
      files.map(Path::toString).sorted().forEach(args::add);
    }
    args.add(home.resolve("conf/policies/default.yaml").toString());

    Result check = firn(120, args.toArray(String[]::new));

    assertThat(check.exit()).as(check.toString()).isZero();
    assertNoBuildAndOneBinding(check);
  }

  @Test
  void oneShotCommandsRunC1OnlyFromTheClassDataArchiveOfTheirFirstRun() throws IOException {
    // HOME is root: archives go to root/.cache/firn/cds (docs/adr/0038-one-shot-jvm.md).
    Path archives = root.resolve(".cache/firn/cds");
    deleteArchives(archives, "policies-");
    String policy = home.resolve("conf/policies/default.yaml").toString();

    Result first = firn(120, "policies", "check", policy);
    assertThat(first.exit()).as(first.toString()).isZero();
    Path archive = onlyArchive(archives, "policies-");
    assertThat(archive.getFileName().toString())
        .as("the name ends with the archive's size")
        .endsWith("-" + Files.size(archive) + ".jsa");
    assertThat(first.out()).doesNotContain("[warning]");

    // The next run maps it: the JVM's class-loading log names the archive as the classes' source.
    Path log = root.resolve("class-load.log");
    Result second =
        policiesCheck(policy, Map.of("FIRN_JAVA_OPTS", "-Xlog:class+load=info:file=" + log));
    assertThat(second.exit()).as(second.toString()).isZero();
    assertThat(second.out()).isEqualTo(first.out());
    assertThat(Files.readString(log))
        .containsPattern("io\\.firn\\.cli\\.FirnCli source: shared objects file \\(top\\)");

    // A truncated archive can crash the JVM that maps it: the launcher makes it again instead.
    long size = Files.size(archive);
    archive.toFile().setWritable(true);
    try (FileChannel channel = FileChannel.open(archive, StandardOpenOption.WRITE)) {
      channel.truncate(size / 2);
    }
    Result third = firn(120, "policies", "check", policy);
    assertThat(third.exit()).as(third.toString()).isZero();
    assertThat(third.out()).isEqualTo(first.out());
    Path remade = onlyArchive(archives, "policies-");
    assertThat(remade.getFileName().toString()).endsWith("-" + Files.size(remade) + ".jsa");
    assertThat(Files.size(remade)).isGreaterThan(size / 2);

    // C1 only, unless FIRN_JAVA_OPTS (which comes after) says otherwise.
    Result flags = policiesCheck(policy, Map.of("FIRN_JAVA_OPTS", "-XX:+PrintFlagsFinal"));
    assertThat(flags.out()).containsPattern("TieredStopAtLevel\\s+= 1 ");
    Result tiered =
        policiesCheck(
            policy, Map.of("FIRN_JAVA_OPTS", "-XX:TieredStopAtLevel=4 -XX:+PrintFlagsFinal"));
    assertThat(tiered.out()).containsPattern("TieredStopAtLevel\\s+= 4 ");

    // FIRN_CDS=off, or -Xshare:off in FIRN_JAVA_OPTS: neither read nor written.
    deleteArchives(archives, "policies-");
    Result off = policiesCheck(policy, Map.of("FIRN_CDS", "off"));
    assertThat(off.exit()).as(off.toString()).isZero();
    // Sharing switched off by the caller's own options: left alone, not a JVM that cannot start.
    Result unshared = policiesCheck(policy, Map.of("FIRN_JAVA_OPTS", "-Xshare:off"));
    assertThat(unshared.exit()).as(unshared.toString()).isZero();
    assertThat(unshared.out()).isEqualTo(first.out());
    try (Stream<Path> files = Files.list(archives)) {
      assertThat(files.filter(p -> p.getFileName().toString().startsWith("policies-"))).isEmpty();
    }
  }

  /** {@code bin/firn policies check policy} with {@code extra} in its environment. */
  private static Result policiesCheck(String policy, Map<String, String> extra) {
    return run(
        List.of(home.resolve("bin/firn").toString(), "policies", "check", policy),
        work,
        120,
        extra);
  }

  private static Path onlyArchive(Path archives, String prefix) throws IOException {
    try (Stream<Path> files = Files.list(archives)) {
      List<Path> found = files.filter(p -> p.getFileName().toString().startsWith(prefix)).toList();
      assertThat(found).as("archives " + prefix + "* in " + archives).hasSize(1);
      assertThat(found.get(0).toString()).endsWith(".jsa");
      return found.get(0);
    }
  }

  private static void deleteArchives(Path archives, String prefix) throws IOException {
    if (!Files.isDirectory(archives)) {
      return;
    }
    try (Stream<Path> files = Files.list(archives)) {
      for (Path file : files.toList()) {
        if (file.getFileName().toString().startsWith(prefix)) {
          Files.delete(file);
        }
      }
    }
  }

  @Test
  void submitLinesNameTheShippedJobJars() {
    Result flink = firn(30, "worker", "flink", "--server", "http://firn:8080", "--slots", "2");
    assertThat(flink.exit()).as(flink.toString()).isZero();
    assertThat(flink.out())
        .contains("flink run --detached -p 2 ")
        .contains(home.resolve("jobs/firn-worker-flink-" + VERSION + "-job.jar").toString());

    Result spark = firn(30, "worker", "spark", "--server", "http://firn:8080");
    assertThat(spark.exit()).as(spark.toString()).isZero();
    assertThat(spark.out())
        .contains("spark-submit ")
        .contains(home.resolve("jobs/firn-worker-spark-" + VERSION + "-app.jar").toString());

    Result ingest =
        firn(
            30,
            "ingest",
            "flink",
            "--config",
            home.resolve("conf/ingest/kafka-json.yaml").toString());
    assertThat(ingest.exit()).as(ingest.toString()).isZero();
    assertThat(ingest.out())
        .contains(home.resolve("jobs/firn-ingest-" + VERSION + "-job.jar").toString())
        .contains("--config " + home.resolve("conf/ingest/kafka-json.yaml"));
  }

  @Test
  void demoIngestsAndOptimizesFromTheDistribution() throws IOException {
    // The launcher's shortest demo: the first optimizing starts some 20 s in on 2 cores.
    Result tooShort = firn(30, "demo", "--duration", "20s");
    assertThat(tooShort.exit()).isEqualTo(1);
    assertThat(tooShort.err()).contains("--duration '20s' must be at least 30s");

    int port = freePortPair();
    Path dir = work.resolve("demo");

    Result demo =
        firn(
            180,
            "demo",
            "--duration",
            "30s",
            "--dir",
            dir.toString(),
            "--port",
            Integer.toString(port));

    String logs = log(dir.resolve("server.log")) + log(dir.resolve("ingest.log"));
    assertThat(demo.exit()).as(demo + "\n" + logs).isZero();
    assertThat(demo.out())
        .contains("policy conf/policies/examples/demo.yaml")
        .containsPattern(
            "table\\(s\\) created by the ingest job, \\d+ optimized by [1-9]\\d* successful");
    assertThat(log(dir.resolve("ingest.log"))).doesNotContain("SLF4J(W)");
    assertNoBuildAndOneBinding(demo);
  }

  /**
   * README's server section, literally, from an empty directory: {@code bin/firn server} on its
   * defaults creates the embedded catalog and says how to fill it, {@code bin/firn ingest} writes
   * the example tables, and the README's REST calls see one optimized, its rows unchanged as an
   * independent reader sees them.
   */
  @Test
  void firstRunFromAnEmptyDirectoryEndsWithAnOptimizedTable() throws Exception {
    Path dir = Files.createDirectories(work.resolve("first-run"));
    int port = freePortPair();
    String api = "http://localhost:" + port + "/api/v1";
    String admin = "http://localhost:" + (port + 1);
    Map<String, String> server = new HashMap<>(env);
    server.put("FIRN_PORT", Integer.toString(port));
    server.put("FIRN_ADMIN_PORT", Integer.toString(port + 1));
    server.put("FIRN_ADMIN_TOKEN", "first-run-token");
    Path log = dir.resolve("server.log");
    ProcessBuilder builder =
        new ProcessBuilder(home.resolve("bin/firn").toString(), "server")
            .directory(dir.toFile())
            .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
            .redirectErrorStream(true)
            .redirectOutput(log.toFile());
    builder.environment().clear();
    builder.environment().putAll(server);
    Process firn = builder.start();
    try {
      // The first watch round: the catalog the server created, empty, and how to fill it.
      String health =
          await(
              60,
              log,
              () -> {
                String body = get(admin + "/healthcheck");
                return body != null && body.contains("table(s) watched") ? body : null;
              });
      assertThat(health)
          .contains("\"catalog:firn\":{\"healthy\":true")
          .contains("catalog 'firn' (jdbc) reachable; 0 table(s) watched: no table is watched")
          .contains("bin/firn ingest");
      assertThat(Files.readString(log))
          .contains(
              "created the embedded default catalog 'firn' (SQLite file "
                  + dir.toRealPath().resolve("firn-data/catalog.db"));

      Result ingest = run(List.of(home.resolve("bin/firn").toString(), "ingest"), dir, 120);
      assertThat(ingest.exit()).as(ingest.toString()).isZero();

      String table = api + "/tables/firn/events/order_events";
      String processes = api + "/processes?table=firn.events.order_events";
      // The embedded catalog names its files relative to the directory the server runs in.
      try (JdbcCatalog catalog =
          catalog(
              dir.resolve("firn-data/catalog.db"),
              "firn-data/warehouse",
              Map.of(
                  "io-impl",
                  RelativePathsFileIO.class.getName(),
                  RelativePathsFileIO.BASE,
                  dir.toString()))) {
        TableIdentifier orders = TableIdentifier.of("events", "order_events");
        long written = catalog.loadTable(orders).currentSnapshot().snapshotId();
        // Done when Firn's commit is the newest: the server may also have optimized the table
        // while the ingest job still wrote it, and the job's later commits come after that one.
        String done =
            await(
                90,
                log,
                () -> {
                  String answer = get(processes);
                  if (answer != null
                      && answer.contains("\"status\":\"succeeded\"")
                      && firnCommittedLast(catalog, orders)) {
                    return answer;
                  }
                  String state = get(table);
                  if (state != null && state.contains("\"status\":\"idle\"")) {
                    // README: "Admin actions need auth.adminToken" -- optimize now.
                    post(table + "/optimize?type=full", "first-run-token");
                  }
                  return null;
                });
        assertThat(done).contains("\"namespace\":\"events\",\"table\":\"order_events\"");

        org.apache.iceberg.Table events = catalog.loadTable(orders);
        org.apache.iceberg.Snapshot optimized = events.currentSnapshot();
        org.apache.iceberg.Snapshot before = optimized;
        while (before.summary().containsKey("firn.process-id")) {
          before = events.snapshot(before.parentId());
        }
        assertThat(before.snapshotId()).as("the ingest job's last snapshot").isEqualTo(written);
        assertThat(rows(events, optimized.snapshotId()))
            .as("rows before (the ingest job's last snapshot) and after")
            .isNotEmpty()
            .isEqualTo(rows(events, written));
      }
    } finally {
      firn.destroy();
      if (!firn.waitFor(30, TimeUnit.SECONDS)) {
        firn.destroyForcibly();
      }
    }
  }

  /** Whether Firn made the table's newest snapshot; false while the catalog is busy. */
  private static boolean firnCommittedLast(JdbcCatalog catalog, TableIdentifier table) {
    try {
      return catalog.loadTable(table).currentSnapshot().summary().containsKey("firn.process-id");
    } catch (RuntimeException busy) {
      return false; // SQLite refuses a reader while the server commits; the next poll asks again
    }
  }

  private static Map<String, Long> rows(org.apache.iceberg.Table table, long snapshot)
      throws IOException {
    List<org.apache.iceberg.data.Record> rows = new ArrayList<>();
    try (org.apache.iceberg.io.CloseableIterable<org.apache.iceberg.data.Record> read =
        org.apache.iceberg.data.IcebergGenerics.read(table).useSnapshot(snapshot).build()) {
      read.forEach(rows::add);
    }
    return io.firn.testkit.RowSets.of(
        rows, table.schemas().get(table.snapshot(snapshot).schemaId()));
  }

  /** Polls {@code probe} each second until it answers non-null; fails with the server's log. */
  private static String await(int seconds, Path log, java.util.concurrent.Callable<String> probe)
      throws Exception {
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    while (System.nanoTime() < until) {
      String answer = probe.call();
      if (answer != null) {
        return answer;
      }
      Thread.sleep(1_000);
    }
    throw new AssertionError("nothing after " + seconds + " s; " + log(log));
  }

  /** The body of a 2xx answer, null for anything else (the server may not be up yet). */
  private static String get(String url) {
    return send(java.net.http.HttpRequest.newBuilder(java.net.URI.create(url)).GET());
  }

  private static String post(String url, String token) {
    return send(
        java.net.http.HttpRequest.newBuilder(java.net.URI.create(url))
            .header("Authorization", "Bearer " + token)
            .POST(java.net.http.HttpRequest.BodyPublishers.noBody()));
  }

  private static String send(java.net.http.HttpRequest.Builder request) {
    try {
      java.net.http.HttpResponse<String> response =
          java.net.http.HttpClient.newHttpClient()
              .send(
                  request.timeout(java.time.Duration.ofSeconds(10)).build(),
                  java.net.http.HttpResponse.BodyHandlers.ofString());
      return response.statusCode() / 100 == 2 ? response.body() : null;
    } catch (IOException e) {
      return null;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  // ---------------------------------------------------------------------------------------------

  private record Result(int exit, String out, String err) {
    @Override
    public String toString() {
      return "exit " + exit + "\n--- stdout\n" + out + "\n--- stderr\n" + err;
    }
  }

  private static void assertNoBuildAndOneBinding(Result result) {
    assertThat(result.err()).doesNotContain("firn: building").doesNotContain("SLF4J(W)");
    assertThat(home.resolve("target")).doesNotExist();
  }

  private static Result firn(int timeoutSeconds, String... args) {
    List<String> command = new ArrayList<>();
    command.add(home.resolve("bin/firn").toString());
    command.addAll(Arrays.asList(args));
    return run(command, work, timeoutSeconds);
  }

  /** Runs {@code command} in {@code dir} with {@link #env}; ends it and its children on timeout. */
  private static Result run(List<String> command, Path dir, int timeoutSeconds) {
    return run(command, dir, timeoutSeconds, Map.of());
  }

  /** As {@link #run(List, Path, int)}, with {@code extra} added to the environment. */
  private static Result run(
      List<String> command, Path dir, int timeoutSeconds, Map<String, String> extra) {
    try {
      Path out = Files.createTempFile(root, "out-", ".txt");
      Path err = Files.createTempFile(root, "err-", ".txt");
      ProcessBuilder builder =
          new ProcessBuilder(command)
              .directory(dir.toFile())
              .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
              .redirectOutput(out.toFile())
              .redirectError(err.toFile());
      builder.environment().clear();
      builder.environment().putAll(env);
      builder.environment().putAll(extra);
      Process process = builder.start();
      if (!process.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
        List<ProcessHandle> children = process.descendants().toList();
        process.destroy();
        process.waitFor(20, TimeUnit.SECONDS);
        children.forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
        throw new AssertionError(
            "timed out after "
                + timeoutSeconds
                + " s: "
                + command
                + "\n--- stdout\n"
                + Files.readString(out)
                + "\n--- stderr\n"
                + Files.readString(err));
      }
      return new Result(
          process.exitValue(),
          Files.readString(out, StandardCharsets.UTF_8),
          Files.readString(err, StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  /**
   * This JVM's environment with a {@code PATH} of one directory that links every program of the
   * {@code PATH} but Maven's, and {@code JAVA_HOME} this JVM's.
   */
  private static Map<String, String> withoutMaven(Path bin) throws IOException {
    Files.createDirectories(bin);
    for (String entry : System.getenv().getOrDefault("PATH", "/usr/bin:/bin").split(":", -1)) {
      Path directory = Path.of(entry.isEmpty() ? "." : entry);
      if (!Files.isDirectory(directory)) {
        continue;
      }
      try (Stream<Path> programs = Files.list(directory)) {
        for (Path program : programs.toList()) {
          String name = program.getFileName().toString();
          Path link = bin.resolve(name);
          if (name.startsWith("mvn")
              || Files.exists(link, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
            continue;
          }
          if (Files.isRegularFile(program)
              && Files.getPosixFilePermissions(program)
                  .contains(PosixFilePermission.OWNER_EXECUTE)) {
            Files.createSymbolicLink(link, program.toAbsolutePath());
          }
        }
      }
    }
    Map<String, String> environment = new HashMap<>(System.getenv());
    environment.keySet().removeIf(key -> key.startsWith("MAVEN") || key.equals("M2_HOME"));
    environment.put("PATH", bin.toString());
    environment.put("JAVA_HOME", System.getProperty("java.home"));
    environment.put("HOME", root.toString());
    environment.keySet().removeIf(key -> key.startsWith("FIRN_"));
    return environment;
  }

  private static JdbcCatalog catalog(Path catalogFile, Path warehouse) throws IOException {
    Files.createDirectories(warehouse);
    return catalog(catalogFile, warehouse.toString(), Map.of());
  }

  private static JdbcCatalog catalog(
      Path catalogFile, String warehouse, Map<String, String> properties) {
    Map<String, String> all = new HashMap<>(properties);
    all.put("type", "jdbc");
    all.put("uri", "jdbc:sqlite:" + catalogFile);
    all.put("warehouse", warehouse);
    return (JdbcCatalog) CatalogUtil.buildIcebergCatalog("firn", all, new Configuration());
  }

  /** A port P with P + 1 free too (the demo's REST and admin ports). */
  private static int freePortPair() throws IOException {
    for (int attempt = 0; attempt < 50; attempt++) {
      int port;
      try (ServerSocket socket = new ServerSocket(0)) {
        port = socket.getLocalPort();
      }
      if (port < 65535) {
        try (ServerSocket next = new ServerSocket(port + 1)) {
          return port;
        } catch (IOException taken) {
          // try another
        }
      }
    }
    throw new AssertionError("no two consecutive free ports");
  }

  private static String log(Path file) throws IOException {
    return Files.exists(file) ? "\n--- " + file + "\n" + Files.readString(file) : "";
  }
}
