/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.core.policy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.firn.core.policy.PolicyFile.EffectivePolicy;
import io.firn.core.policy.PolicyFile.OnWindowClose;
import io.firn.core.policy.PolicyFile.Window;
import io.firn.core.policy.PolicyFile.WorkKind;
import io.firn.testkit.ShippedPolicies;
import java.nio.file.Path;
import java.time.DayOfWeek;
import java.time.Duration;
import java.time.LocalTime;
import java.time.ZoneId;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class PolicyParserTest {
  private static final String FILE = "policies/bad.yaml";

  /** Lines 1-5; cases append from line 6. */
  private static final String BASE =
      """
      version: 1
      windows:
        nightly: {time-zone: UTC, start: "01:00", end: "05:00"}
      groups:
        default: {capacity: 2}
      """;

  static List<Path> shippedFiles() {
    return ShippedPolicies.files();
  }

  @Test
  void theShippedFilesExist() {
    assertThat(shippedFiles())
        .extracting(p -> p.getFileName().toString())
        .containsAll(ShippedPolicies.KNOWN);
  }

  @ParameterizedTest
  @MethodSource("shippedFiles")
  void everyShippedFileParses(Path file) {
    PolicyFile policy = PolicyParser.parse(file);
    assertThat(policy.version()).isEqualTo(1);
    assertThat(policy.name()).isEqualTo(file.toString());
    assertThat(policy.resolve("any.thing.here")).isNotNull();
  }

  @Test
  void theShippedDefaultRunsMinorAnyTimeAndNoFull() {
    PolicyFile policy = PolicyParser.parse(Path.of("..", "policies", "default.yaml"));
    EffectivePolicy p = policy.resolve("lake.db.events");
    assertThat(p.fromRule()).isFalse();
    assertThat(p.work(WorkKind.MINOR).enabled()).isTrue();
    assertThat(p.work(WorkKind.MINOR).anyTime()).isTrue();
    assertThat(p.work(WorkKind.FULL).enabled()).isFalse();
    assertThat(p.maxDelay().isNegative()).isTrue();
    assertThat(p.group().capacity()).isEqualTo(2);
    assertThat(p.thresholds()).isEqualTo(OptimizingPolicy.DEFAULTS);
  }

  @Test
  void theBriefsExampleParsesWithBothWindowForms() {
    PolicyFile policy = PolicyParser.parse("policies/brief.yaml", EXAMPLE);
    Window nightly = policy.windows().get("nightly");
    assertThat(nightly.timeZone()).isEqualTo(ZoneId.of("Asia/Shanghai"));
    assertThat(nightly.start()).isEqualTo(LocalTime.of(1, 0));
    assertThat(nightly.end()).isEqualTo(LocalTime.of(5, 0));
    assertThat(nightly.days()).hasSize(7);
    assertThat(nightly.isCron()).isFalse();
    assertThat(nightly.wrapsMidnight()).isFalse();
    Window evening = policy.windows().get("evening");
    assertThat(evening.isCron()).isTrue();
    assertThat(evening.cron()).isEqualTo("0 0 22 * * ?");
    assertThat(evening.duration()).isEqualTo(Duration.ofHours(6));
    assertThat(policy.groups().get("default").capacity()).isEqualTo(2);
  }

  @Test
  void resolvePicksTheHighestPriorityMatchingRuleOverTheDefaults() {
    PolicyFile policy = PolicyParser.parse("policies/brief.yaml", EXAMPLE);

    EffectivePolicy cdc = policy.resolve("lake.cdc.orders");
    assertThat(cdc.rule()).isEqualTo("cdc-lake");
    assertThat(cdc.priority()).isEqualTo(10);
    assertThat(cdc.thresholds().minorTriggerFileCount()).isEqualTo(20);
    assertThat(cdc.thresholds().targetSize()).isEqualTo(128L << 20); // from the defaults
    assertThat(cdc.work(WorkKind.FULL).enabled()).isTrue();
    assertThat(cdc.work(WorkKind.FULL).windows())
        .extracting(Window::name)
        .containsExactly("nightly");
    // full's interval (1d) is inherited from the defaults and sets the threshold
    assertThat(cdc.work(WorkKind.FULL).interval()).isEqualTo(Duration.ofDays(1));
    assertThat(cdc.thresholds().fullTriggerInterval()).isEqualTo(Duration.ofDays(1));
    assertThat(cdc.work(WorkKind.MAJOR).windows())
        .extracting(Window::name)
        .containsExactly("nightly");
    assertThat(cdc.maxDelay()).isEqualTo(Duration.ofHours(6));

    EffectivePolicy vip = policy.resolve("lake.cdc.vip");
    assertThat(vip.rule()).isEqualTo("vip");
    assertThat(vip.group().name()).isEqualTo("fast");
    assertThat(vip.onWindowClose()).isEqualTo(OnWindowClose.CANCEL);
    // a rule's thresholds add to the defaults', not to a lower-priority rule's
    assertThat(vip.thresholds().minorTriggerFileCount()).isEqualTo(12);

    EffectivePolicy tie = policy.resolve("lake.logs.app");
    assertThat(tie.rule()).isEqualTo("logs-first");

    // `*` stays inside one name part
    EffectivePolicy nested = policy.resolve("lake.cdc.sub.orders");
    assertThat(nested.fromRule()).isFalse();
    assertThat(nested.rule()).isNull();
    assertThat(nested.group().name()).isEqualTo("default");
    assertThat(nested.work(WorkKind.MINOR).anyTime()).isTrue();
    assertThat(nested.work(WorkKind.FULL).enabled()).isFalse();
    assertThat(nested.work(WorkKind.ORPHAN_FILES).enabled()).isFalse();
    assertThat(nested.onWindowClose()).isEqualTo(OnWindowClose.FINISH);

    assertThat(policy.resolve("other.cdc.orders").fromRule()).isFalse();
    assertThat(policy.resolve("deep.a.b.c.audit_log").rule()).isEqualTo("audit");
  }

  @Test
  void overnightWindowsWrapAndDaysAreRead() {
    PolicyFile policy =
        PolicyParser.parse(
            "p.yaml",
            """
            version: 1
            windows:
              late: {time-zone: Europe/Berlin, start: "22:00", end: "04:00", days: [SAT, SUN]}
            """);
    Window late = policy.windows().get("late");
    assertThat(late.wrapsMidnight()).isTrue();
    assertThat(late.days()).containsExactlyInAnyOrder(DayOfWeek.SATURDAY, DayOfWeek.SUNDAY);
    assertThat(policy.groups()).containsOnlyKeys("default");
  }

  private static final String EXAMPLE =
      """
      version: 1
      windows:
        nightly: {time-zone: Asia/Shanghai, start: "01:00", end: "05:00", days: [MON, TUE, WED, THU, FRI, SAT, SUN]}
        evening: {time-zone: UTC, cron: "0 0 22 * * ?", duration: 6h}   # overnight wrap allowed
      groups:
        default: {capacity: 2}
        fast: {capacity: 1}
      defaults:
        group: default
        thresholds: {target-size: 128MiB}
        minor: {enabled: true}
        major: {enabled: true, windows: [nightly]}
        full: {enabled: false, windows: [nightly], interval: 1d}
        expire-snapshots: {enabled: true, windows: []}
        orphan-files: {enabled: false}
        on-window-close: finish
        max-delay: 6h
      rules:
        - name: cdc-lake
          match: "lake.cdc.*"
          priority: 10
          thresholds: {minor.trigger.file-count: 20}
          full: {enabled: true, windows: [nightly]}
        - name: vip
          match: "lake.cdc.vip"
          priority: 20
          group: fast
          on-window-close: cancel
        - name: logs-first
          match: "lake.logs.*"
          priority: 3
        - name: logs-second
          match: "lake.logs.app"
          priority: 3
        - name: audit
          match: "**.audit_?og"
      """;

  static Stream<Arguments> invalidPolicies() {
    return Stream.of(
        Arguments.of(
            "syntax error",
            "version: 1\nwindows:\n  nightly: {time-zone: UTC\ngroups: {}\n",
            "policies/bad.yaml line 4: YAML syntax error: expected ',' or '}', but got : (while parsing"
                + " a flow mapping)"),
        Arguments.of(
            "unknown key",
            BASE + "defaults:\n  minr: {enabled: true}\n",
            "policies/bad.yaml line 7: defaults.minr: unknown key; known keys here are [group,"
                + " thresholds, minor, major, full, expire-snapshots, orphan-files, on-window-close,"
                + " max-delay]"),
        Arguments.of(
            "unknown root key",
            BASE + "window: {}\n",
            "policies/bad.yaml line 6: window: unknown key; known keys here are [version, windows,"
                + " groups, defaults, rules]"),
        Arguments.of(
            "wrong type",
            "version: 1\ngroups:\n  default: {capacity: two}\n",
            "policies/bad.yaml line 3: groups.default.capacity = 'two': must be a whole number"),
        Arguments.of(
            "wrong type: list for a map",
            BASE + "defaults:\n  minor: [true]\n",
            "policies/bad.yaml line 7: defaults.minor: must be a map of keys [enabled, windows], not"
                + " a list"),
        Arguments.of(
            "wrong type: boolean",
            BASE + "defaults:\n  minor: {enabled: maybe}\n",
            "policies/bad.yaml line 7: defaults.minor.enabled = 'maybe': must be true or false"),
        Arguments.of(
            "bad zone",
            "version: 1\nwindows:\n  nightly:\n    time-zone: Mars/Olympus\n",
            "policies/bad.yaml line 4: windows.nightly.time-zone = 'Mars/Olympus': not a time zone"
                + " (e.g. UTC, Europe/Berlin)"),
        Arguments.of(
            "missing zone",
            "version: 1\nwindows:\n  nightly: {start: \"01:00\", end: \"05:00\"}\n",
            "policies/bad.yaml line 3: windows.nightly: missing time-zone (e.g. UTC,"
                + " Europe/Berlin)"),
        Arguments.of(
            "bad HH:mm",
            "version: 1\nwindows:\n  nightly: {time-zone: UTC, start: \"25:00\", end: \"05:00\"}\n",
            "policies/bad.yaml line 3: windows.nightly.start = '25:00': must be a time of day HH:mm"
                + " (e.g. 01:00, 23:30)"),
        Arguments.of(
            "bad day",
            "version: 1\nwindows:\n  nightly:\n    time-zone: UTC\n    start: \"01:00\"\n"
                + "    end: \"05:00\"\n    days: [MON, MOON]\n",
            "policies/bad.yaml line 7: windows.nightly.days[1] = 'MOON': must be one of MON, TUE,"
                + " WED, THU, FRI, SAT, SUN"),
        Arguments.of(
            "bad cron: field count",
            "version: 1\nwindows:\n  evening: {time-zone: UTC, cron: \"0 22 * * *\", duration: 6h}\n",
            "policies/bad.yaml line 3: windows.evening.cron = '0 22 * * *': a Quartz cron"
                + " expression has 6 or 7 fields (second minute hour day-of-month month day-of-week"
                + " [year]), found 5"),
        Arguments.of(
            "bad cron: character",
            "version: 1\nwindows:\n  evening: {time-zone: UTC, cron: \"0 0 2x * * ?\", duration: 6h}\n",
            "policies/bad.yaml line 3: windows.evening.cron = '0 0 2x * * ?': hour field '2x' has"
                + " characters Quartz does not allow there"),
        Arguments.of(
            "bad cron: no question mark",
            "version: 1\nwindows:\n  evening: {time-zone: UTC, cron: \"0 0 22 * * *\", duration: 6h}\n",
            "policies/bad.yaml line 3: windows.evening.cron = '0 0 22 * * *': Quartz needs '?' in"
                + " exactly one of day-of-month and day-of-week (e.g. 0 0 22 * * ?)"),
        Arguments.of(
            "start without end",
            "version: 1\nwindows:\n  nightly:\n    time-zone: UTC\n    start: \"01:00\"\n",
            "policies/bad.yaml line 5: windows.nightly.start: needs end; a window has either start +"
                + " end or cron + duration"),
        Arguments.of(
            "cron without duration",
            "version: 1\nwindows:\n  evening: {time-zone: UTC, cron: \"0 0 22 * * ?\"}\n",
            "policies/bad.yaml line 3: windows.evening.cron: needs duration; a window has either"
                + " start + end or cron + duration"),
        Arguments.of(
            "both cron and start",
            "version: 1\nwindows:\n  nightly:\n    time-zone: UTC\n    start: \"01:00\"\n"
                + "    end: \"05:00\"\n    cron: \"0 0 1 * * ?\"\n    duration: 4h\n",
            "policies/bad.yaml line 7: windows.nightly.cron: a window has either start + end or"
                + " cron + duration, not both"),
        Arguments.of(
            "undefined window reference",
            BASE + "defaults:\n  major: {enabled: true, windows: [nigthly]}\n",
            "policies/bad.yaml line 7: defaults.major.windows[0] = 'nigthly': no such window;"
                + " defined windows are [nightly]"),
        Arguments.of(
            "undefined group",
            BASE + "rules:\n  - name: r\n    match: \"a.b.*\"\n    group: fats\n",
            "policies/bad.yaml line 9: rules[0].group = 'fats': no such group; defined groups are"
                + " [default]"),
        Arguments.of(
            "implicit default group missing",
            "version: 1\ngroups:\n  fast: {capacity: 1}\n",
            "policies/bad.yaml line 2: defaults.group = 'default': no such group (the implicit"
                + " default); define group 'default' or set defaults.group; defined groups are"
                + " [fast]"),
        Arguments.of(
            "zero capacity",
            "version: 1\ngroups:\n  default: {capacity: 0}\n",
            "policies/bad.yaml line 3: groups.default.capacity = '0': must be >= 1 (concurrent"
                + " tasks)"),
        Arguments.of(
            "unknown threshold key",
            BASE + "defaults:\n  thresholds:\n    target-size: 64MiB\n    minor.trigger.files: 3\n",
            "policies/bad.yaml line 9: defaults.thresholds.minor.trigger.files: unknown threshold"
                + " key; known keys are [equality-delete.bloom-threshold, fragment-ratio,"
                + " full.trigger.interval, major.trigger.duplicate-ratio, max-process-files,"
                + " max-task-size, min-target-size-ratio, minor.trigger.file-count,"
                + " minor.trigger.interval, target-size]"),
        Arguments.of(
            "a process that may take no file",
            BASE + "defaults:\n  thresholds: {max-process-files: 0}\n",
            "policies/bad.yaml line 7: defaults.thresholds.max-process-files = '0': must be >= 1 (a"
                + " process takes at least one partition)"),
        Arguments.of(
            "negative size",
            BASE + "defaults:\n  thresholds: {target-size: -1MiB}\n",
            "policies/bad.yaml line 7: defaults.thresholds.target-size = '-1MiB': must be a size in"
                + " bytes, optionally with a unit (e.g. 134217728, 128MiB, 1GB)"),
        Arguments.of(
            "threshold rule broken in a rule",
            BASE
                + "rules:\n  - name: r\n    match: \"a.b.*\"\n    thresholds: {fragment-ratio: 0}\n",
            "policies/bad.yaml line 9: rules[0].thresholds.fragment-ratio = '0': must be >= 1"),
        Arguments.of(
            "duplicate rule name",
            BASE + "rules:\n  - name: r\n    match: \"a.*.*\"\n  - name: r\n    match: \"b.*.*\"\n",
            "policies/bad.yaml line 9: rules[1].name = 'r': duplicate rule name (first used at line"
                + " 7)"),
        Arguments.of(
            "negative priority",
            BASE + "rules:\n  - name: r\n    match: \"a.*.*\"\n    priority: -1\n",
            "policies/bad.yaml line 9: rules[0].priority = '-1': must be >= 0"),
        Arguments.of(
            "bad on-window-close",
            BASE + "defaults:\n  on-window-close: abort\n",
            "policies/bad.yaml line 7: defaults.on-window-close = 'abort': must be finish (let"
                + " running tasks commit) or cancel (discard their output)"),
        Arguments.of(
            "bad duration",
            BASE + "defaults:\n  max-delay: 6 hours\n",
            "policies/bad.yaml line 7: defaults.max-delay = '6 hours': must be a duration such as"
                + " 30s, 15m, 1h, 2d, PT1H, or 'off'"),
        Arguments.of(
            "zero interval",
            BASE + "defaults:\n  full: {enabled: true, interval: 0s}\n",
            "policies/bad.yaml line 7: defaults.full.interval = '0s': must be > 0 (to stop the work,"
                + " set enabled: false)"),
        Arguments.of(
            "interval on a threshold-triggered kind",
            BASE + "defaults:\n  minor: {interval: 1h}\n",
            "policies/bad.yaml line 7: defaults.minor.interval: unknown key; known keys here are"
                + " [enabled, windows]"),
        Arguments.of(
            "wrong version",
            "version: 2\n",
            "policies/bad.yaml line 1: version = '2': must be 1 (the only schema version)"),
        Arguments.of(
            "missing version",
            "groups:\n  default: {capacity: 1}\n",
            "policies/bad.yaml line 1: version: missing; policy files start with 'version: 1'"),
        Arguments.of(
            "empty file",
            "# nothing\n",
            "policies/bad.yaml line 1: version: file is empty; policy files start with 'version:"
                + " 1'"),
        Arguments.of(
            "empty match",
            BASE + "rules:\n  - name: r\n    match: \"\"\n",
            "policies/bad.yaml line 8: rules[0].match = '': must not be empty (a glob on"
                + " catalog.namespace.table)"),
        Arguments.of(
            "missing match",
            BASE + "rules:\n  - name: r\n    priority: 1\n",
            "policies/bad.yaml line 7: rules[0]: missing match (a glob on catalog.namespace.table)"),
        Arguments.of(
            "duplicate key",
            BASE + "defaults:\n  max-delay: 1h\n  max-delay: 2h\n",
            "policies/bad.yaml line 8: defaults.max-delay: duplicate key (first at line 7)"),
        Arguments.of(
            "duration too long for java.time (was a raw ArithmeticException)",
            BASE + "defaults:\n  max-delay: 200000000000000d\n",
            "policies/bad.yaml line 7: defaults.max-delay = '200000000000000d': too long: a"
                + " duration is at most about 292 billion years (e.g. 30s, 15m, 1h, 2d, or 'off')"),
        Arguments.of(
            "threshold duration too long",
            BASE + "defaults:\n  thresholds: {minor.trigger.interval: 99999999999999999999s}\n",
            "policies/bad.yaml line 7: defaults.thresholds.minor.trigger.interval ="
                + " '99999999999999999999s': too long: a duration is at most about 292 billion years"
                + " (e.g. 30s, 15m, 1h, 2d, or 'off')"),
        Arguments.of(
            "size too large",
            BASE + "defaults:\n  thresholds: {target-size: 99999999TiB}\n",
            "policies/bad.yaml line 7: defaults.thresholds.target-size = '99999999TiB': too large:"
                + " a size is at most 9223372036854775807 bytes (8 EiB)"),
        Arguments.of(
            "unknown window key",
            "version: 1\nwindows:\n  nightly: {time-zone: UTC, begin: \"01:00\", end: \"05:00\"}\n",
            "policies/bad.yaml line 3: windows.nightly.begin: unknown key; known keys here are"
                + " [time-zone, start, end, days, cron, duration]"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("invalidPolicies")
  void invalidPoliciesAreRejectedWithFileLineKeyAndRule(String label, String yaml, String message) {
    assertThatThrownBy(() -> PolicyParser.parse(FILE, yaml))
        .as(label)
        .isInstanceOf(InvalidPolicyException.class)
        .hasMessage(message);
  }
}
