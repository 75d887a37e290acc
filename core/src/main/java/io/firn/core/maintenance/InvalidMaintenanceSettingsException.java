/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.core.maintenance;

import org.jspecify.annotations.Nullable;

/** A maintenance setting is unknown or wrong; the message names the key, the value and the rule. */
public class InvalidMaintenanceSettingsException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  public InvalidMaintenanceSettingsException(String message) {
    super(message);
  }

  public InvalidMaintenanceSettingsException(String message, @Nullable Throwable cause) {
    super(message, cause);
  }
}
