/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.core.policy;

import org.jspecify.annotations.Nullable;

/**
 * One threshold key has a value its rule rejects. Carries the key and the rule apart from the
 * message, so the policy parser can name the file, line and rule path of the key without reading
 * its own message back.
 */
public final class InvalidPolicyValueException extends InvalidPolicyException {
  private static final long serialVersionUID = 1L;

  private final String key;
  private final String problem;

  /**
   * @param key the policy key, e.g. {@code target-size}
   * @param shownValue the value as the message shows it (quoted when it is the text as written)
   * @param problem the rule it breaks, e.g. {@code must be at least 1MiB}
   */
  InvalidPolicyValueException(
      String key, String shownValue, String problem, @Nullable Throwable cause) {
    super("policy key '" + key + "' = " + shownValue + ": " + problem, cause);
    this.key = key;
    this.problem = problem;
  }

  /** The policy key whose value is wrong. */
  public String key() {
    return key;
  }

  /** The rule the value breaks, without key or value. */
  public String problem() {
    return problem;
  }
}
