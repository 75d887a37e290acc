/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.core.maintenance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class MaintenanceSettingsTest {
  @Test
  void defaultsFollowPolicyFilesAndTheDesign() {
    MaintenanceSettings defaults = MaintenanceSettings.DEFAULTS;
    assertThat(defaults.expireSnapshots().enabled()).isFalse();
    assertThat(defaults.orphanFiles().enabled()).isFalse();
    assertThat(defaults.danglingDeletes().enabled()).isTrue();
    assertThat(defaults.rewriteManifests())
        .isEqualTo(new MaintenanceSettings.Schedule(true, Duration.ofMinutes(10)));
    assertThat(defaults.manifests().minCount()).isEqualTo(10);
    assertThat(defaults.orphans().minAge()).isEqualTo(Duration.ofDays(3));
    assertThat(defaults.expiry().maxAge()).isEqualTo(Duration.ofHours(12));
    assertThat(defaults.expiry().retainLast()).isEqualTo(1);
    assertThat(defaults.expiry().cleanExpiredFiles()).isTrue();
  }

  @Test
  void overridesEveryKey() {
    MaintenanceSettings settings =
        MaintenanceSettings.DEFAULTS.withOverrides(
            Map.ofEntries(
                Map.entry("expire-snapshots.enabled", "true"),
                Map.entry("expire-snapshots.interval", "30m"),
                Map.entry("expire-snapshots.max-age", "2d"),
                Map.entry("expire-snapshots.retain-last", "10"),
                Map.entry("expire-snapshots.clean-expired-files", "false"),
                Map.entry("expire-snapshots.dry-run", "true"),
                Map.entry("orphan-files.enabled", "true"),
                Map.entry("orphan-files.interval", "12h"),
                Map.entry("orphan-files.min-age", "PT72H"),
                Map.entry("orphan-files.dry-run", "true"),
                Map.entry("dangling-deletes.enabled", "false"),
                Map.entry("dangling-deletes.interval", "2h"),
                Map.entry("dangling-deletes.dry-run", "true"),
                Map.entry("rewrite-manifests.enabled", "false"),
                Map.entry("rewrite-manifests.interval", "5m"),
                Map.entry("rewrite-manifests.min-count", "2")));
    assertThat(settings)
        .isEqualTo(
            new MaintenanceSettings(
                new MaintenanceSettings.Schedule(true, Duration.ofMinutes(30)),
                new SnapshotExpirySettings(Duration.ofDays(2), 10, false, true),
                new MaintenanceSettings.Schedule(true, Duration.ofHours(12)),
                new OrphanCleanupSettings(Duration.ofDays(3), true),
                new MaintenanceSettings.Schedule(false, Duration.ofHours(2)),
                new DanglingDeleteSettings(true),
                new MaintenanceSettings.Schedule(false, Duration.ofMinutes(5)),
                new ManifestRewriteSettings(2)));
  }

  @Test
  void rejectsWrongValuesNamingKeyValueAndRule() {
    MaintenanceSettings defaults = MaintenanceSettings.DEFAULTS;
    assertThatThrownBy(
            () -> defaults.withOverrides(Map.of("orphan-files.interval", "200000000000000d")))
        .isInstanceOf(InvalidMaintenanceSettingsException.class)
        .hasMessageStartingWith(
            "maintenance key 'orphan-files.interval' = '200000000000000d': too long: a duration");
    assertThatThrownBy(() -> defaults.withOverrides(Map.of("orphan-files.min-age", "10m")))
        .isInstanceOf(InvalidMaintenanceSettingsException.class)
        .hasMessage(
            "maintenance key 'orphan-files.min-age' = PT10M: must be >= 1h (younger files may"
                + " belong to a commit in progress)");
    assertThatThrownBy(() -> defaults.withOverrides(Map.of("expire-snapshots.retain-last", "0")))
        .hasMessage("maintenance key 'expire-snapshots.retain-last' = 0: must be >= 1");
    assertThatThrownBy(() -> defaults.withOverrides(Map.of("expire-snapshots.max-age", "off")))
        .hasMessage("maintenance key 'expire-snapshots.max-age' = PT-0.001S: must be > 0");
    assertThatThrownBy(() -> defaults.withOverrides(Map.of("rewrite-manifests.min-count", "1")))
        .isInstanceOf(InvalidMaintenanceSettingsException.class)
        .hasMessage("maintenance key 'rewrite-manifests.min-count' = 1: must be >= 2");
    assertThatThrownBy(() -> defaults.withOverrides(Map.of("orphan-files.interval", "0s")))
        .hasMessage("maintenance key 'orphan-files.interval' = PT0S: must be > 0");
    assertThatThrownBy(() -> defaults.withOverrides(Map.of("orphan-files.dry-run", "yes")))
        .hasMessage("maintenance key 'orphan-files.dry-run' = 'yes': must be true or false");
    assertThatThrownBy(() -> defaults.withOverrides(Map.of("expire-snapshots.retain-last", "x")))
        .hasMessage("maintenance key 'expire-snapshots.retain-last' = 'x': must be a whole number");
    assertThatThrownBy(() -> defaults.withOverrides(Map.of("expire-snapshots.max-age", "soon")))
        .hasMessage(
            "maintenance key 'expire-snapshots.max-age' = 'soon': must be a duration such as 30s,"
                + " 15m, 1h, 2d, PT1H, or 'off'");
    assertThatThrownBy(() -> defaults.withOverrides(Map.of("orphan-files.min_age", "3d")))
        .hasMessageStartingWith(
            "unknown maintenance key(s) [orphan-files.min_age]; known keys are [");
  }

  @Test
  void recognisesFlinkTemporaryManifestsButNotIcebergsOwnMetadataFiles() {
    assertThat(
            FlinkCommits.isTemporaryManifest(
                "s3://b/t/metadata/0123456789abcdef0123456789abcdef-fedcba9876543210fedcba9876543210"
                    + "-00003-1-42-00002.avro"))
        .isTrue();
    assertThat(
            FlinkCommits.isTemporaryManifest(
                "/t/metadata/0123456789abcdef0123456789abcdef-fedcba9876543210fedcba9876543210"
                    + "-00000-0-7-00001-3f1c9e0a-1b2c-4d5e-8f90-123456789abc.avro"))
        .isTrue();
    assertThat(
            FlinkCommits.isTemporaryManifest(
                "/t/metadata/6f9a3c1e-3b2a-4c1d-9e8f-0a1b2c3d4e5f-m0.avro"))
        .isFalse();
    assertThat(
            FlinkCommits.isTemporaryManifest(
                "/t/metadata/snap-123456789-1-6f9a3c1e-3b2a-4c1d-9e8f-0a1b2c3d4e5f.avro"))
        .isFalse();
    assertThat(FlinkCommits.isTemporaryManifest("/t/metadata/v3.metadata.json")).isFalse();
  }
}
