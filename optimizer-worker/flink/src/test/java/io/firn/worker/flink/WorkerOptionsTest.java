/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.worker.flink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.firn.core.protocol.Ack;
import io.firn.core.protocol.CompleteRequest;
import io.firn.core.protocol.FailRequest;
import io.firn.core.protocol.HeartbeatRequest;
import io.firn.core.protocol.HeartbeatResponse;
import io.firn.core.protocol.PollRequest;
import io.firn.core.protocol.PollResponse;
import io.firn.core.protocol.RegisterRequest;
import io.firn.core.protocol.RegisterResponse;
import io.firn.core.protocol.WorkerProtocol;
import io.firn.worker.remote.WorkerOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class WorkerOptionsTest {
  private static final Map<String, String> TOKEN = Map.of("FIRN_WORKER_TOKEN", "t");

  @Test
  void defaultsAndTokenFromTheEnvironment() {
    WorkerOptions options =
        WorkerOptions.parse(new String[] {"--server", "http://firn:8080"}, TOKEN, "flink");
    assertThat(options)
        .isEqualTo(
            new WorkerOptions(
                "http://firn:8080",
                "t",
                "default",
                0,
                "flink",
                Duration.ofSeconds(120),
                Duration.ofSeconds(20)));
    assertThat(options.toString()).doesNotContain("token").doesNotContain("=t,");
  }

  @Test
  void optionsOverrideDefaults() {
    WorkerOptions options =
        WorkerOptions.parse(
            new String[] {
              "--server=https://firn",
              "--slots",
              "4",
              "--group",
              "big",
              "--token",
              "x",
              "--drain-seconds",
              "10",
              "--poll-seconds",
              "5",
              "--name",
              "w"
            },
            Map.of(),
            "flink");
    assertThat(options)
        .isEqualTo(
            new WorkerOptions(
                "https://firn", "x", "big", 4, "w", Duration.ofSeconds(10), Duration.ofSeconds(5)));
  }

  @Test
  void rejectsBadInputNamingOptionAndRule() {
    assertThatThrownBy(() -> WorkerOptions.parse(new String[0], TOKEN, "flink"))
        .hasMessage("option --server is required");
    assertThatThrownBy(
            () -> WorkerOptions.parse(new String[] {"--server", "firn:8080"}, TOKEN, "flink"))
        .hasMessage("option --server = 'firn:8080' must be an http(s) URL of the optimizer server");
    assertThatThrownBy(
            () -> WorkerOptions.parse(new String[] {"--server", "http://f"}, Map.of(), "flink"))
        .hasMessage(
            "no worker token: set FIRN_WORKER_TOKEN (or --token) to the server's auth.workerToken");
    assertThatThrownBy(
            () ->
                WorkerOptions.parse(
                    new String[] {"--server", "http://f", "--slot", "2"}, TOKEN, "flink"))
        .hasMessage(
            "unknown option --slot; known options: --drain-seconds, --group, --name,"
                + " --poll-seconds, --server, --slots, --token");
    assertThatThrownBy(
            () ->
                WorkerOptions.parse(
                    new String[] {"--server", "http://f", "--slots", "-1"}, TOKEN, "flink"))
        .hasMessage("option --slots = '-1' must be a whole number >= 0");
    assertThatThrownBy(() -> WorkerOptions.parse(new String[] {"--server"}, TOKEN, "flink"))
        .hasMessage("option --server needs a value");
  }

  @Test
  void aClosedGateHandsNothingInAndLeasesNothing() {
    List<String> calls = new ArrayList<>();
    List<String> accepted = new ArrayList<>();
    GatedProtocol gate =
        new GatedProtocol(new RecordingServer(calls), r -> accepted.add(r.attemptId()));
    CompleteRequest done =
        new CompleteRequest(WorkerProtocol.VERSION, "w", "s", "a1", List.of(), List.of(), null);
    assertThat(gate.complete(done).accepted()).isTrue();
    gate.poll(new PollRequest(WorkerProtocol.VERSION, "w", "s", 0));
    gate.close();
    Ack late = gate.complete(done);
    assertThat(late.accepted()).isFalse();
    assertThat(late.message())
        .isEqualTo(
            "the Flink subtask ended before attempt a1 was handed in; its lease expires and the"
                + " server redoes the task");
    assertThat(gate.poll(new PollRequest(WorkerProtocol.VERSION, "w", "s", 0)).task()).isNull();
    gate.fail(new FailRequest(WorkerProtocol.VERSION, "w", "s", "a2", "boom"));
    assertThat(calls).containsExactly("complete a1", "poll", "fail a2");
    assertThat(accepted).containsExactly("a1");
  }

  @Test
  void theGateClosesWhenTheDrainTimeIsOver() {
    List<String> calls = new ArrayList<>();
    GatedProtocol gate = new GatedProtocol(new RecordingServer(calls), r -> {});
    CompleteRequest done =
        new CompleteRequest(WorkerProtocol.VERSION, "w", "s", "a1", List.of(), List.of(), null);
    gate.closeAfter(Duration.ofHours(1));
    assertThat(gate.complete(done).accepted()).isTrue();
    gate.closeAfter(Duration.ZERO);
    assertThat(gate.complete(done).accepted()).isFalse();
    assertThat(calls).containsExactly("complete a1");
  }

  private record RecordingServer(List<String> calls) implements WorkerProtocol {
    @Override
    public RegisterResponse register(RegisterRequest request) {
      throw new UnsupportedOperationException();
    }

    @Override
    public PollResponse poll(PollRequest request) {
      calls.add("poll");
      return PollResponse.empty();
    }

    @Override
    public HeartbeatResponse heartbeat(HeartbeatRequest request) {
      throw new UnsupportedOperationException();
    }

    @Override
    public Ack complete(CompleteRequest request) {
      calls.add("complete " + request.attemptId());
      return Ack.ok();
    }

    @Override
    public Ack fail(FailRequest request) {
      calls.add("fail " + request.attemptId());
      return Ack.ok();
    }
  }
}
