/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.core.maintenance;

import org.jspecify.annotations.Nullable;

/**
 * The check behind every settings record (no static state: the records' defaults refer to each
 * other, so the check must not live in one of them).
 */
final class SettingRules {
  private SettingRules() {}

  static void require(boolean ok, String key, @Nullable Object value, String rule) {
    if (!ok) {
      throw new InvalidMaintenanceSettingsException(
          "maintenance key '" + key + "' = " + value + ": " + rule);
    }
  }
}
