/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.core.policy;

import org.jspecify.annotations.Nullable;

/** A policy value or key is wrong; the message names the key, the value and the rule. */
public class InvalidPolicyException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  public InvalidPolicyException(String message) {
    super(message);
  }

  public InvalidPolicyException(String message, @Nullable Throwable cause) {
    super(message, cause);
  }
}
