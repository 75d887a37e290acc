/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.server.policy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.firn.core.policy.InvalidPolicyException;
import io.firn.core.policy.PolicyFile;
import io.firn.core.policy.PolicyFile.WorkKind;
import io.firn.server.policy.PolicyRegistry.LoadedPolicy;
import io.firn.server.policy.PolicyRegistry.Outcome;
import io.firn.server.policy.PolicyRegistry.ReloadStatus;
import io.firn.testkit.ShippedPolicies;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class PolicyRegistryTest {
  private static final Path SHIPPED = ShippedPolicies.DIR;

  @TempDir Path dir;

  static String resource(String name) {
    try (InputStream in = PolicyRegistryTest.class.getResourceAsStream("/policy/" + name)) {
      if (in == null) {
        throw new IllegalArgumentException("no test resource policy/" + name);
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  static Stream<Arguments> invalidFiles() {
    return Stream.of(
        Arguments.of(
            "01-syntax-error",
            " line 3: YAML syntax error: expected ',' or '}', but got <scalar> (while parsing a"
                + " flow mapping)"),
        Arguments.of(
            "02-unknown-key",
            " line 3: defaults.minr: unknown key; known keys here are [group, thresholds, minor,"
                + " major, full, expire-snapshots, orphan-files, on-window-close, max-delay]"),
        Arguments.of(
            "03-unknown-root-key",
            " line 2: window: unknown key; known keys here are [version, windows, groups,"
                + " defaults, rules]"),
        Arguments.of(
            "04-wrong-type-capacity",
            " line 3: groups.default.capacity = 'two': must be a whole number"),
        Arguments.of(
            "05-wrong-type-enabled",
            " line 3: defaults.major.enabled = 'maybe': must be true or false"),
        Arguments.of(
            "06-wrong-type-windows",
            " line 5: defaults.full.windows = 'nightly': must be a list of window names ([] = any"
                + " time), not a single value"),
        Arguments.of(
            "07-bad-cron-field-count",
            " line 3: windows.evening.cron = '0 22 * * *': a Quartz cron expression has 6 or 7"
                + " fields (second minute hour day-of-month month day-of-week [year]), found 5"),
        Arguments.of(
            "08-bad-cron-hour",
            " line 5: windows.evening.cron = '0 0 25 * * ?': not a valid Quartz cron expression:"
                + " Hour values must be between 0 and 23"),
        Arguments.of(
            "09-bad-cron-day-of-week",
            " line 3: windows.weekly.cron = '0 0 1 ? * MOX': not a valid Quartz cron expression:"
                + " Invalid Day-of-Week value: 'MOX'"),
        Arguments.of(
            "10-bad-zone",
            " line 4: windows.nightly.time-zone = 'Mars/Olympus': not a time zone (e.g. UTC,"
                + " Europe/Berlin)"),
        Arguments.of(
            "11-missing-zone",
            " line 3: windows.nightly: missing time-zone (e.g. UTC, Europe/Berlin)"),
        Arguments.of(
            "12-overlapping-window-names",
            " line 4: windows.nightly: duplicate key (first at line 3)"),
        Arguments.of(
            "13-undefined-window",
            " line 5: defaults.full.windows[0] = 'nigthly': no such window; defined windows are"
                + " [nightly]"),
        Arguments.of(
            "14-undefined-group",
            " line 5: rules[0].group = 'fast': no such group; defined groups are [default]"),
        Arguments.of(
            "15-negative-size",
            " line 3: defaults.thresholds.target-size = '-1MiB': must be a size in bytes,"
                + " optionally with a unit (e.g. 134217728, 128MiB, 1GB)"),
        Arguments.of("16-negative-priority", " line 5: rules[0].priority = '-1': must be >= 0"),
        Arguments.of(
            "17-negative-max-delay",
            " line 3: defaults.max-delay = '-5m': must not be negative (use off for never)"),
        Arguments.of(
            "18-zero-capacity",
            " line 3: groups.default.capacity = '0': must be >= 1 (concurrent tasks)"),
        Arguments.of(
            "19-bad-time",
            " line 3: windows.nightly.start = '24:00': must be a time of day HH:mm (e.g. 01:00,"
                + " 23:30)"),
        Arguments.of(
            "20-start-equals-end",
            " line 3: windows.nightly.end = '01:00': must differ from start (a window of no"
                + " time)"),
        Arguments.of(
            "21-bad-day",
            " line 3: windows.nightly.days[1] = 'MOON': must be one of MON, TUE, WED, THU, FRI,"
                + " SAT, SUN"),
        Arguments.of(
            "22-duplicate-rule-name",
            " line 5: rules[1].name = 'r': duplicate rule name (first used at line 3)"),
        Arguments.of(
            "23-bad-on-window-close",
            " line 3: defaults.on-window-close = 'abort': must be finish (let running tasks"
                + " commit) or cancel (discard their output)"),
        Arguments.of(
            "24-wrong-version", " line 1: version = '2': must be 1 (the only schema version)"),
        Arguments.of(
            "25-empty", " line 1: version: file is empty; policy files start with 'version: 1'"),
        Arguments.of(
            "26-days-on-cron-window",
            " line 3: windows.evening.days: only with start + end; a cron window names its days"),
        Arguments.of(
            "27-negative-duration", " line 3: windows.evening.duration = '-1h': must be > 0"),
        Arguments.of(
            "28-unknown-threshold",
            " line 3: defaults.thresholds.minor.trigger.files: unknown threshold key; known keys"
                + " are [equality-delete.bloom-threshold, fragment-ratio, full.trigger.interval,"
                + " major.trigger.duplicate-ratio, max-process-files, max-task-size,"
                + " min-target-size-ratio, minor.trigger.file-count, minor.trigger.interval,"
                + " target-size]"));
  }

  @Test
  void everyInvalidResourceHasAPinnedMessage() throws IOException {
    Path invalid = Path.of("src", "test", "resources", "policy", "invalid");
    try (Stream<Path> files = Files.list(invalid)) {
      assertThat(files.map(p -> p.getFileName().toString().replace(".yaml", "")).sorted())
          .containsExactlyElementsOf(
              invalidFiles().map(a -> (String) a.get()[0]).collect(Collectors.toList()));
    }
    assertThat(invalidFiles().count()).isGreaterThanOrEqualTo(20);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("invalidFiles")
  void anInvalidFileIsRejectedWithFileLineKeyAndRuleAndThePreviousPolicyStays(
      String name, String message) throws IOException {
    Path file = dir.resolve("policy.yaml");
    Files.writeString(file, resource("valid.yaml"));
    MutableClock clock = MutableClock.at("2026-12-01T00:00:00Z");
    PolicyRegistry registry = new PolicyRegistry(file, clock);
    LoadedPolicy before = registry.current();
    List<LoadedPolicy> notified = new ArrayList<>();
    registry.addListener(notified::add);

    clock.set("2026-12-01T00:01:00Z");
    Files.writeString(file, resource("invalid/" + name + ".yaml"));
    ReloadStatus status = registry.reload();

    assertThat(status)
        .isEqualTo(
            new ReloadStatus(
                Instant.parse("2026-12-01T00:01:00Z"),
                Outcome.REJECTED,
                file + message,
                Instant.parse("2026-12-01T00:00:00Z")));
    assertThat(status.ok()).isFalse();
    assertThat(registry.lastReload()).isEqualTo(status);
    assertThat(registry.current()).isSameAs(before);
    assertThat(registry.policy().resolve("lake.cdc.orders").rule()).isEqualTo("cdc");
    assertThat(notified).isEmpty();
    // the same text fails the server's start
    assertThatThrownBy(() -> new PolicyRegistry(file, clock))
        .isInstanceOf(InvalidPolicyException.class)
        .hasMessage(file + message);

    // fixing the file brings the (unchanged) policy back without telling the listeners
    Files.writeString(file, resource("valid.yaml"));
    assertThat(registry.reload().outcome()).isEqualTo(Outcome.UNCHANGED);
    assertThat(registry.lastReload().ok()).isTrue();
    assertThat(notified).isEmpty();
  }

  @Test
  void aValidChangeTakesEffectAndIsPassedToTheListeners() throws IOException {
    Path file = dir.resolve("policy.yaml");
    Files.writeString(file, resource("valid.yaml"));
    MutableClock clock = MutableClock.at("2026-12-01T00:00:00Z");
    PolicyRegistry registry = new PolicyRegistry(file, clock);
    List<LoadedPolicy> notified = new ArrayList<>();
    registry.addListener(notified::add);
    assertThat(registry.policy().resolve("lake.cdc.orders").priority()).isEqualTo(10);

    clock.set("2026-12-01T00:05:00Z");
    Files.writeString(file, resource("valid.yaml").replace("priority: 10", "priority: 20"));
    ReloadStatus status = registry.reload();

    assertThat(status)
        .isEqualTo(
            new ReloadStatus(
                Instant.parse("2026-12-01T00:05:00Z"),
                Outcome.LOADED,
                null,
                Instant.parse("2026-12-01T00:05:00Z")));
    assertThat(registry.policy().resolve("lake.cdc.orders").priority()).isEqualTo(20);
    assertThat(notified).containsExactly(registry.current());
    assertThat(registry.current().loadedAt()).isEqualTo(Instant.parse("2026-12-01T00:05:00Z"));
    assertThat(registry.calendar().windows()).containsOnlyKeys("nightly", "evening");
  }

  @Test
  void aListenerThatThrowsDoesNotStopTheOthersNorTheReload() throws IOException {
    Path file = dir.resolve("policy.yaml");
    Files.writeString(file, resource("valid.yaml"));
    PolicyRegistry registry = new PolicyRegistry(file, MutableClock.at("2026-12-01T00:00:00Z"));
    List<LoadedPolicy> notified = new ArrayList<>();
    registry.addListener(
        p -> {
          throw new IllegalStateException("boom");
        });
    registry.addListener(notified::add);
    Files.writeString(file, resource("valid.yaml").replace("capacity: 2", "capacity: 3"));
    assertThat(registry.reload().outcome()).isEqualTo(Outcome.LOADED);
    assertThat(notified).hasSize(1);
    assertThat(registry.policy().groups().get("default").capacity()).isEqualTo(3);
  }

  static List<Path> shippedFiles() {
    return ShippedPolicies.files();
  }

  @ParameterizedTest
  @MethodSource("shippedFiles")
  void everyShippedFileLoadsWithItsWindowsCheckedByQuartz(Path file) {
    PolicyRegistry registry = new PolicyRegistry(file, MutableClock.at("2026-12-01T00:00:00Z"));
    PolicyFile policy = registry.policy();
    assertThat(policy.name()).isEqualTo(file.toString());
    assertThat(registry.lastReload().ok()).isTrue();
    WindowCalendar calendar = registry.calendar();
    Instant noon = Instant.parse("2026-12-01T12:00:00Z");
    for (String window : policy.windows().keySet()) {
      // every shipped window opens within a week
      assertThat(calendar.nextOpensAt(window, noon))
          .hasValueSatisfying(t -> assertThat(t).isBefore(noon.plus(Duration.ofDays(8))));
    }
    for (WorkKind kind : WorkKind.values()) {
      assertThat(
              PolicyDecisions.mayStart(
                  policy.resolve("any.db.table"),
                  kind,
                  calendar,
                  noon,
                  PolicyDecisions.TableState.HEALTHY))
          .isNotNull();
    }
  }

  @Test
  void theShippedPolicyDirectoryLoadsItsTopLevelFilesOnly() {
    PolicyRegistry registry = new PolicyRegistry(SHIPPED, MutableClock.at("2026-12-01T00:00:00Z"));
    assertThat(registry.policy().name()).isEqualTo(SHIPPED.toString());
    assertThat(registry.policy())
        .usingRecursiveComparison()
        .ignoringFields("name")
        .isEqualTo(PolicyRegistry.parse(SHIPPED.resolve("default.yaml")));
  }

  @Test
  void aDirectoryOfFilesIsOnePolicyAndItsFilesMayReferToEachOther() throws IOException {
    Files.writeString(
        dir.resolve("10-windows.yaml"),
        """
        version: 1
        windows:
          nightly: {time-zone: UTC, start: "01:00", end: "05:00"}
        groups:
          default: {capacity: 2}
          heavy: {capacity: 1}
        defaults:
          max-delay: 6h
        """);
    Files.writeString(
        dir.resolve("20-cdc.yaml"),
        """
        version: 1
        rules:
          - name: cdc
            match: "lake.cdc.*"
            group: heavy
            full: {enabled: true, windows: [nightly]}
        """);
    Files.writeString(dir.resolve("notes.txt"), "not a policy");
    PolicyRegistry registry = new PolicyRegistry(dir, MutableClock.at("2026-12-01T00:00:00Z"));
    PolicyFile policy = registry.policy();
    assertThat(policy.name()).isEqualTo(dir.toString());
    var cdc = policy.resolve("lake.cdc.orders");
    assertThat(cdc.group().name()).isEqualTo("heavy");
    assertThat(cdc.maxDelay()).isEqualTo(Duration.ofHours(6)); // the directory's defaults
    assertThat(cdc.work(WorkKind.FULL).windows().get(0).name()).isEqualTo("nightly");
    assertThat(policy.groups()).containsOnlyKeys("default", "heavy");
  }

  static Stream<Arguments> invalidDirectories() {
    String a =
        "version: 1\nwindows:\n  nightly: {time-zone: UTC, start: \"01:00\", end: \"05:00\"}\n";
    return Stream.of(
        Arguments.of(
            "overlapping window names across files",
            a,
            "version: 1\nwindows:\n  nightly: {time-zone: UTC, start: \"02:00\", end: \"06:00\"}\n",
            " line 3: windows.nightly: duplicate window name (first defined at {a} line 3);"
                + " names are unique across a policy's files"),
        Arguments.of(
            "duplicate group across files",
            "version: 1\ngroups:\n  default: {capacity: 1}\n",
            "version: 1\ngroups:\n  default: {capacity: 2}\n",
            " line 3: groups.default: duplicate group name (first defined at {a} line 3);"
                + " names are unique across a policy's files"),
        Arguments.of(
            "duplicate rule name across files",
            a + "rules:\n  - name: r\n    match: \"a.*.*\"\n",
            "version: 1\nrules:\n  - name: r\n    match: \"b.*.*\"\n",
            " line 3: rules[0].name = 'r': duplicate rule name (first used at {a} line 5)"),
        Arguments.of(
            "two defaults sections",
            a + "defaults:\n  max-delay: 1h\n",
            "version: 1\ndefaults:\n  max-delay: 2h\n",
            " line 2: defaults: a policy has one defaults section (first in {a} line 4)"),
        Arguments.of(
            "undefined window in another file",
            a,
            "version: 1\ndefaults:\n  full: {windows: [nigthly]}\n",
            " line 3: defaults.full.windows[0] = 'nigthly': no such window; defined windows"
                + " are [nightly]"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("invalidDirectories")
  void anInvalidDirectoryIsRejectedNamingTheFileAndThePreviousPolicyStays(
      String label, String first, String second, String message) throws IOException {
    Files.writeString(dir.resolve("a.yaml"), first);
    PolicyRegistry registry = new PolicyRegistry(dir, MutableClock.at("2026-12-01T00:00:00Z"));
    LoadedPolicy before = registry.current();
    Files.writeString(dir.resolve("b.yaml"), second);
    ReloadStatus status = registry.reload();
    assertThat(status.outcome()).isEqualTo(Outcome.REJECTED);
    assertThat(status.error())
        .isEqualTo(
            dir.resolve("b.yaml") + message.replace("{a}", dir.resolve("a.yaml").toString()));
    assertThat(registry.current()).isSameAs(before);
  }

  @Test
  void anEmptyDirectoryOrAMissingFileIsAnError() throws IOException {
    assertThatThrownBy(() -> new PolicyRegistry(dir, MutableClock.at("2026-12-01T00:00:00Z")))
        .isInstanceOf(InvalidPolicyException.class)
        .hasMessage(dir + ": no policy files (*.yaml, *.yml) in the directory");
    Path file = dir.resolve("policy.yaml");
    Files.writeString(file, resource("valid.yaml"));
    PolicyRegistry registry = new PolicyRegistry(file, MutableClock.at("2026-12-01T00:00:00Z"));
    Files.delete(file);
    ReloadStatus status = registry.reload();
    assertThat(status.outcome()).isEqualTo(Outcome.REJECTED);
    assertThat(status.error()).startsWith(file + ": cannot read: ");
    assertThat(registry.policy().resolve("lake.cdc.t").rule()).isEqualTo("cdc");
  }

  @Test
  void theWatcherReloadsWhenTheFileChanges() throws Exception {
    Path file = dir.resolve("policy.yaml");
    Files.writeString(file, resource("valid.yaml"));
    PolicyRegistry registry = new PolicyRegistry(file, java.time.Clock.systemUTC());
    PolicyWatcher watcher = new PolicyWatcher(registry, Duration.ofMillis(50));
    assertThat(watcher.check()).isFalse();
    watcher.start();
    try {
      Files.writeString(file, resource("valid.yaml").replace("capacity: 2", "capacity: 5"));
      await()
          .atMost(Duration.ofSeconds(10))
          .untilAsserted(
              () -> assertThat(registry.policy().groups().get("default").capacity()).isEqualTo(5));
      Files.writeString(file, resource("invalid/08-bad-cron-hour.yaml"));
      await()
          .atMost(Duration.ofSeconds(10))
          .untilAsserted(
              () -> assertThat(registry.lastReload().outcome()).isEqualTo(Outcome.REJECTED));
      assertThat(registry.policy().groups().get("default").capacity()).isEqualTo(5);
    } finally {
      watcher.stop();
    }
  }
}
