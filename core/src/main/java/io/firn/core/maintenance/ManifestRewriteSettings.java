/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.core.maintenance;

/**
 * How {@link ManifestRewrite} decides to rewrite a table's data manifests.
 *
 * @param minCount rewrite only when the current snapshot has at least this many data manifests
 *     smaller than the table's {@code commit.manifest.target-size-bytes} (key {@code
 *     rewrite-manifests.min-count}, >= 2: one manifest rewritten alone gains nothing)
 */
public record ManifestRewriteSettings(int minCount) {

  /** From 10 small data manifests on. */
  public static final ManifestRewriteSettings DEFAULTS =
      new ManifestRewriteSettings(MaintenanceKeys.REWRITE_MANIFESTS_MIN_COUNT_DEFAULT);

  /**
   * @throws InvalidMaintenanceSettingsException naming the key, the value and the rule
   */
  public ManifestRewriteSettings {
    SettingRules.require(
        minCount >= 2, MaintenanceKeys.REWRITE_MANIFESTS_MIN_COUNT, minCount, "must be >= 2");
  }
}
