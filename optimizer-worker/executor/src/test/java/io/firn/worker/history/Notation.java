/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.worker.history;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The compact text for keys that a printed schedule uses. A checkpoint's touches are tokens in
 * order, {@code U} for an upsert and {@code D} for a delete, each with a key or an ascending range:
 * {@code "U0-39 D5 U5"} upserts keys 0 to 39, deletes 5, upserts 5 again. A key set is {@code
 * "3,17,40-45"}.
 */
final class Notation {
  private Notation() {}

  static List<UpsertWriter.Touch> touches(String text) {
    List<UpsertWriter.Touch> touches = new ArrayList<>();
    for (String token : text.trim().split("\\s+")) {
      if (token.isEmpty()) {
        continue;
      }
      char kind = token.charAt(0);
      if (kind != 'U' && kind != 'D') {
        throw new IllegalArgumentException("touch '" + token + "' must start with U or D");
      }
      for (long key : range(token.substring(1))) {
        touches.add(new UpsertWriter.Touch(key, kind == 'U'));
      }
    }
    return touches;
  }

  static String touches(List<UpsertWriter.Touch> touches) {
    StringBuilder text = new StringBuilder();
    int i = 0;
    while (i < touches.size()) {
      UpsertWriter.Touch first = touches.get(i);
      int j = i;
      while (j + 1 < touches.size()
          && touches.get(j + 1).upsert() == first.upsert()
          && touches.get(j + 1).key() == touches.get(j).key() + 1) {
        j++;
      }
      if (text.length() > 0) {
        text.append(' ');
      }
      text.append(first.upsert() ? 'U' : 'D').append(first.key());
      if (j > i) {
        text.append('-').append(touches.get(j).key());
      }
      i = j + 1;
    }
    return text.toString();
  }

  static Set<Long> keys(String text) {
    Set<Long> keys = new LinkedHashSet<>();
    for (String part : text.split(",")) {
      if (!part.isBlank()) {
        keys.addAll(range(part.trim()));
      }
    }
    return keys;
  }

  static String keys(Collection<Long> keys) {
    List<Long> sorted = new ArrayList<>(new java.util.TreeSet<>(keys));
    StringBuilder text = new StringBuilder();
    int i = 0;
    while (i < sorted.size()) {
      int j = i;
      while (j + 1 < sorted.size() && sorted.get(j + 1) == sorted.get(j) + 1) {
        j++;
      }
      if (text.length() > 0) {
        text.append(',');
      }
      text.append(sorted.get(i));
      if (j > i) {
        text.append('-').append(sorted.get(j));
      }
      i = j + 1;
    }
    return text.toString();
  }

  private static List<Long> range(String text) {
    int dash = text.indexOf('-', 1);
    long from = Long.parseLong(dash < 0 ? text : text.substring(0, dash));
    long to = dash < 0 ? from : Long.parseLong(text.substring(dash + 1));
    if (to < from) {
      throw new IllegalArgumentException("range " + text + " must ascend");
    }
    List<Long> keys = new ArrayList<>();
    for (long k = from; k <= to; k++) {
      keys.add(k);
    }
    return keys;
  }
}
