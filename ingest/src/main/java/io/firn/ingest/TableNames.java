/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.ingest;

import java.io.Serializable;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

/**
 * How a source's table name becomes the Iceberg table's ({@code routing.lower-case}, {@code
 * routing.rename}; ADR 0008 §7): lower-cased first when asked ({@code Customers} → {@code
 * customers}), then the first rename whose regular expression matches the whole name replaces it
 * ({@code order_\d+} → {@code orders} gathers a sharded table; {@code $1} refers to a group). A
 * name no rename matches stays as it is. The result must still be a valid table name, else the
 * event is an {@code invalid_table_name} dead letter that names both.
 *
 * @param lowerCase whether names are lower-cased before the renames
 * @param renames tried in order; the first whose {@code match} matches the whole name wins
 */
public record TableNames(boolean lowerCase, List<Rename> renames) implements Serializable {
  private static final long serialVersionUID = 1L;

  /** Names as the source gives them. */
  public static final TableNames AS_IS = new TableNames(false, List.of());

  /** Compiled patterns, shared by every instance (names are looked up for every event). */
  private static final Map<String, Pattern> PATTERNS = new ConcurrentHashMap<>();

  public TableNames {
    renames = List.copyOf(renames);
  }

  /**
   * One rename.
   *
   * @param match a Java regular expression that must match the whole (lower-cased) name
   * @param table the table name, with {@code $1}... for the expression's groups
   */
  public record Rename(String match, String table) implements Serializable {
    private static final long serialVersionUID = 1L;

    /**
     * @throws java.util.regex.PatternSyntaxException when {@code match} is no regular expression
     */
    public Rename {
      PATTERNS.computeIfAbsent(match, Pattern::compile);
    }
  }

  /** The Iceberg table name for the source's {@code name}. */
  public String map(String name) {
    String mapped = lowerCase ? name.toLowerCase(Locale.ROOT) : name;
    for (Rename rename : renames) {
      java.util.regex.Matcher matcher =
          PATTERNS.computeIfAbsent(rename.match(), Pattern::compile).matcher(mapped);
      if (matcher.matches()) {
        return matcher.replaceFirst(rename.table());
      }
    }
    return mapped;
  }

  /** Whether every name stays as it is. */
  public boolean asIs() {
    return !lowerCase && renames.isEmpty();
  }
}
