/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.core.table;

import io.firn.core.policy.OptimizingPolicy;

/** Size classes of data files (ARCHITECTURE.md, "Vocabulary"). */
public enum FileKind {
  /** At most target-size / fragment-ratio bytes. */
  FRAGMENT,
  /** Above the fragment size, at most min-target-size-ratio × target-size. */
  UNDERSIZED_SEGMENT,
  /** Above min-target-size-ratio × target-size. */
  SEGMENT;

  public static FileKind of(long sizeInBytes, OptimizingPolicy policy) {
    if (sizeInBytes <= policy.fragmentSize()) {
      return FRAGMENT;
    }
    return sizeInBytes <= policy.minTargetSize() ? UNDERSIZED_SEGMENT : SEGMENT;
  }
}
