/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.core.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.firn.core.catalog.CatalogSettings;
import java.io.IOException;
import java.io.InputStream;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Pins the worker protocol's wire format: every message of version {@value WorkerProtocol#VERSION}
 * has a JSON fixture under {@code src/test/resources/io/firn/core/protocol/v3/}, written by hand.
 * Renaming, removing or retyping a record component fails here instead of silently breaking workers
 * of an older build, which talk to the server through these names (the fixtures are the contract;
 * change them only together with {@link WorkerProtocol#VERSION} and an ADR).
 *
 * <p>Read with a strict mapper (unknown properties fail), so a fixture that names a field the
 * record lacks fails too.
 */
class ProtocolGoldenJsonTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String SECRET = "s3cr3t-only-this-worker-knows";

  record Golden(String fixture, Class<?> type, Object message) {
    @Override
    public String toString() {
      return fixture;
    }
  }

  static List<Golden> messages() {
    WireFile rewritten = new WireFile("{\"content-file\":\"rewritten\"}", 40, 40, List.of(0));
    WireFile converted = new WireFile("{\"content-file\":\"converted\"}", 12, 12, List.of(0));
    WireFile delete = new WireFile("{\"content-file\":\"equality-delete\"}", 41, 41, List.of());
    TaskAssignment task =
        new TaskAssignment(
            "p-19/3",
            "a-88",
            "p-19",
            "lake",
            "db.events",
            "minor",
            5040366183425170001L,
            42,
            1,
            "day=2026-12-03",
            134217728L,
            100663296L,
            1_000_000L,
            "{\"type\":\"struct\",\"schema-id\":0,\"fields\":[{\"id\":1,\"name\":\"day\",\"required\":true,\"type\":\"date\"}]}",
            List.of(
                "{\"spec-id\":0,\"fields\":[]}",
                "{\"spec-id\":1,\"fields\":[{\"name\":\"day\",\"transform\":\"identity\",\"source-id\":1,\"field-id\":1000}]}"),
            List.of(rewritten),
            List.of(converted),
            List.of(delete),
            1796300000000L);
    return List.of(
        new Golden(
            "RegisterRequest",
            RegisterRequest.class,
            new RegisterRequest(3, "local@worker-host:4242", "default", 4, "local", "0.1.0")),
        new Golden(
            "RegisterResponse",
            RegisterResponse.class,
            new RegisterResponse(
                3,
                "w-7f3a",
                SECRET,
                List.of(
                    new CatalogSettings(
                        "lake",
                        "jdbc",
                        "jdbc:postgresql://catalog-db:5432/iceberg",
                        "s3://bucket/warehouse",
                        Map.of("jdbc.user", "iceberg"))),
                120_000,
                15_000)),
        new Golden("PollRequest", PollRequest.class, new PollRequest(3, "w-7f3a", SECRET, 20_000)),
        new Golden("PollResponse", PollResponse.class, new PollResponse(3, task)),
        new Golden("PollResponse-empty", PollResponse.class, PollResponse.empty()),
        new Golden(
            "HeartbeatRequest",
            HeartbeatRequest.class,
            new HeartbeatRequest(3, "w-7f3a", SECRET, List.of("a-88", "a-91"))),
        new Golden(
            "HeartbeatResponse",
            HeartbeatResponse.class,
            new HeartbeatResponse(3, List.of("a-91"))),
        new Golden(
            "CompleteRequest",
            CompleteRequest.class,
            new CompleteRequest(
                3,
                "w-7f3a",
                SECRET,
                "a-88",
                List.of(new WireFile("{\"content-file\":\"new-data\"}", -1, -1, List.of())),
                List.of(
                    new WireFile("{\"content-file\":\"new-position-delete\"}", -1, -1, List.of())),
                new TaskCounts(1000, 10, 990, 7, 65536, 60000, 25, 20, 1_500_000_000L))),
        new Golden(
            "FailRequest",
            FailRequest.class,
            new FailRequest(
                3,
                "w-7f3a",
                SECRET,
                "a-88",
                "data file s3://bucket/warehouse/db/events/data/00001.parquet not found")),
        new Golden(
            "Ack", Ack.class, new Ack(3, false, "attempt a-88 is stale: its lease expired")));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("messages")
  void aMessageIsWrittenAsItsFixture(Golden golden) throws IOException {
    JsonNode written = JSON.readTree(JSON.writeValueAsString(golden.message()));

    assertThat(written).isEqualTo(fixture(golden.fixture()));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("messages")
  void aFixtureIsReadAsItsMessage(Golden golden) throws IOException {
    Object read = JSON.treeToValue(fixture(golden.fixture()), golden.type());

    assertThat(read).isEqualTo(golden.message());
  }

  @Test
  void anAssignmentWithoutMinTargetSizeFromAnOlderServerGetsTheDefaultRatio() throws IOException {
    JsonNode older = fixture("PollResponse").get("task").deepCopy();
    ((com.fasterxml.jackson.databind.node.ObjectNode) older).remove("minTargetSize");
    ((com.fasterxml.jackson.databind.node.ObjectNode) older).putArray("rewrite");
    ((com.fasterxml.jackson.databind.node.ObjectNode) older).putArray("convert");
    ((com.fasterxml.jackson.databind.node.ObjectNode) older).putArray("deletes");
    ((com.fasterxml.jackson.databind.node.ObjectNode) older).putArray("specs");

    TaskAssignment assignment = JSON.treeToValue(older, TaskAssignment.class);
    io.firn.core.plan.RewriteTask task = TaskCodec.decode(assignment, 3);

    assertThat(assignment.minTargetSize()).isZero();
    assertThat(task.minTargetSize()).isEqualTo((long) (134217728L * 0.75));
  }

  @ParameterizedTest(name = "{0}")
  @org.junit.jupiter.params.provider.ValueSource(
      longs = {-1, Long.MIN_VALUE, 134217729L, Long.MAX_VALUE})
  void aMinTargetSizeOutsideOneToTargetGetsTheDefaultRatio(long hostile) throws IOException {
    com.fasterxml.jackson.databind.node.ObjectNode task =
        (com.fasterxml.jackson.databind.node.ObjectNode)
            fixture("PollResponse").get("task").deepCopy();
    task.put("minTargetSize", hostile);
    task.putArray("rewrite");
    task.putArray("convert");
    task.putArray("deletes");
    task.putArray("specs");

    io.firn.core.plan.RewriteTask decoded =
        TaskCodec.decode(JSON.treeToValue(task, TaskAssignment.class), 3);

    assertThat(decoded.minTargetSize()).isEqualTo((long) (134217728L * 0.75));
  }

  @Test
  void theFixturesSpeakTheVersionThisBuildSpeaks() {
    assertThat(WorkerProtocol.VERSION)
        .as(
            "a new protocol version needs fixtures of its own in protocol/v%d/",
            WorkerProtocol.VERSION)
        .isEqualTo(3);
  }

  @Test
  void everyRecordOfTheProtocolHasAFixture() throws IOException, URISyntaxException {
    // Records sent on their own have a fixture of their name; parts of messages (a task, a file,
    // the counts) are pinned inside the fixtures of the messages that carry them.
    Set<String> parts = Set.of("TaskAssignment", "WireFile", "TaskCounts");
    Set<String> covered =
        messages().stream().map(g -> g.type().getSimpleName()).collect(Collectors.toSet());
    URL classes = WorkerProtocol.class.getResource("WorkerProtocol.class");
    Set<String> records = new TreeSet<>();
    try (Stream<Path> files = Files.list(Path.of(classes.toURI()).getParent())) {
      for (Path file : files.toList()) {
        String name = file.getFileName().toString();
        if (name.endsWith(".class") && !name.contains("$")) {
          Class<?> type =
              Class.forName(
                  WorkerProtocol.class.getPackageName() + "." + name.replace(".class", ""));
          if (type.isRecord()) {
            records.add(type.getSimpleName());
          }
        }
      }
    } catch (ClassNotFoundException e) {
      throw new AssertionError(e);
    }

    assertThat(records).isNotEmpty();
    assertThat(records.stream().filter(r -> !parts.contains(r)))
        .as("records of io.firn.core.protocol without a golden JSON fixture")
        .allMatch(covered::contains);
  }

  private static JsonNode fixture(String name) throws IOException {
    String path = "v" + WorkerProtocol.VERSION + "/" + name + ".json";
    try (InputStream in = ProtocolGoldenJsonTest.class.getResourceAsStream(path)) {
      assertThat(in).as("fixture %s", path).isNotNull();
      return JSON.readTree(in);
    }
  }
}
