/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.ingest;

import java.io.Serializable;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * Settings for the routed tables whose name matches {@code match}.
 *
 * @param match a glob on the table name (without namespace): {@code *} any characters, {@code ?}
 *     one character
 * @param primaryKey the key fields: the table's identifier fields and the upsert equality fields;
 *     ignored for append tables, which have no key
 * @param partitionCandidates what to partition by once the table has the column (see {@link
 *     PartitionCandidate}); for upsert tables only key columns, since an upsert that moved a key to
 *     another partition would leave its old row behind (Iceberg's sink refuses it too)
 * @param targetFileSize {@code write.target-file-size-bytes} for new tables; null keeps Iceberg's
 *     default
 * @param upsert whether rows upsert by key (true) or are appended (false; plain JSON only): every
 *     event is a new row, no key field is required and the table gets no identifier fields
 * @param timestampFields fields whose values are timestamps: ISO-8601 strings with an offset or
 *     {@code Z} (or epoch milliseconds) become {@code timestamptz} columns; nothing else is ever
 *     inferred as a timestamp
 * @param schemaChanges which changes of an existing table's schema events may cause
 * @param contract the checks every upserted row image must pass ({@link ContractCheck})
 * @param nested whether JSON objects and arrays become {@code struct} / {@code list} / {@code map}
 *     columns or JSON text ({@link NestedValues})
 * @param mapFields dotted paths of the object fields that become {@code map<string, V>} columns
 *     instead of structs (free-form attributes with unbounded keys); list elements and map values
 *     add no segment to a path
 * @param changeHistory the name of an append table that also gets every change of an upsert table,
 *     with {@code {table}} for the table's name (e.g. {@code {table}_changes}); null for none
 * @param inserts whether rows of keys new to the table are appended without an equality delete
 *     ({@link Inserts}); upsert tables only
 */
public record TableRule(
    String match,
    List<String> primaryKey,
    List<PartitionCandidate> partitionCandidates,
    @Nullable Long targetFileSize,
    boolean upsert,
    List<String> timestampFields,
    SchemaChanges schemaChanges,
    List<ContractCheck> contract,
    NestedValues nested,
    List<String> mapFields,
    @Nullable String changeHistory,
    Inserts inserts)
    implements Serializable {
  private static final long serialVersionUID = 1L;

  /** What tables no rule matches get: key {@code id}, upserts. */
  public static final TableRule DEFAULT = new TableRule("*", List.of("id"), List.of(), null, true);

  /** A rule without timestamp fields. */
  public TableRule(
      String match,
      List<String> primaryKey,
      List<PartitionCandidate> partitionCandidates,
      @Nullable Long targetFileSize,
      boolean upsert) {
    this(match, primaryKey, partitionCandidates, targetFileSize, upsert, List.of());
  }

  /** A rule whose tables' schemas evolve freely. */
  public TableRule(
      String match,
      List<String> primaryKey,
      List<PartitionCandidate> partitionCandidates,
      @Nullable Long targetFileSize,
      boolean upsert,
      List<String> timestampFields) {
    this(
        match,
        primaryKey,
        partitionCandidates,
        targetFileSize,
        upsert,
        timestampFields,
        SchemaChanges.EVOLVE);
  }

  /** A rule without a data contract. */
  public TableRule(
      String match,
      List<String> primaryKey,
      List<PartitionCandidate> partitionCandidates,
      @Nullable Long targetFileSize,
      boolean upsert,
      List<String> timestampFields,
      SchemaChanges schemaChanges) {
    this(
        match,
        primaryKey,
        partitionCandidates,
        targetFileSize,
        upsert,
        timestampFields,
        schemaChanges,
        List.of());
  }

  /** A rule whose nested values become columns, none of them maps, without a change history. */
  public TableRule(
      String match,
      List<String> primaryKey,
      List<PartitionCandidate> partitionCandidates,
      @Nullable Long targetFileSize,
      boolean upsert,
      List<String> timestampFields,
      SchemaChanges schemaChanges,
      List<ContractCheck> contract) {
    this(
        match,
        primaryKey,
        partitionCandidates,
        targetFileSize,
        upsert,
        timestampFields,
        schemaChanges,
        contract,
        NestedValues.COLUMNS,
        List.of(),
        null);
  }

  /** A rule with a change history, whose nested values become columns, none of them maps. */
  public TableRule(
      String match,
      List<String> primaryKey,
      List<PartitionCandidate> partitionCandidates,
      @Nullable Long targetFileSize,
      boolean upsert,
      List<String> timestampFields,
      SchemaChanges schemaChanges,
      List<ContractCheck> contract,
      @Nullable String changeHistory) {
    this(
        match,
        primaryKey,
        partitionCandidates,
        targetFileSize,
        upsert,
        timestampFields,
        schemaChanges,
        contract,
        NestedValues.COLUMNS,
        List.of(),
        changeHistory);
  }

  /** A rule without a change history. */
  public TableRule(
      String match,
      List<String> primaryKey,
      List<PartitionCandidate> partitionCandidates,
      @Nullable Long targetFileSize,
      boolean upsert,
      List<String> timestampFields,
      SchemaChanges schemaChanges,
      List<ContractCheck> contract,
      NestedValues nested,
      List<String> mapFields) {
    this(
        match,
        primaryKey,
        partitionCandidates,
        targetFileSize,
        upsert,
        timestampFields,
        schemaChanges,
        contract,
        nested,
        mapFields,
        null);
  }

  /** A rule whose new keys upsert like every other row. */
  public TableRule(
      String match,
      List<String> primaryKey,
      List<PartitionCandidate> partitionCandidates,
      @Nullable Long targetFileSize,
      boolean upsert,
      List<String> timestampFields,
      SchemaChanges schemaChanges,
      List<ContractCheck> contract,
      NestedValues nested,
      List<String> mapFields,
      @Nullable String changeHistory) {
    this(
        match,
        primaryKey,
        partitionCandidates,
        targetFileSize,
        upsert,
        timestampFields,
        schemaChanges,
        contract,
        nested,
        mapFields,
        changeHistory,
        Inserts.UPSERT);
  }

  /** What a change-history name must hold: the changed table's name. */
  public static final String TABLE_PLACEHOLDER = "{table}";

  public TableRule {
    contract = contract == null ? List.of() : List.copyOf(contract);
    nested = nested == null ? NestedValues.COLUMNS : nested;
    mapFields = mapFields == null ? List.of() : List.copyOf(mapFields);
    inserts = inserts == null ? Inserts.UPSERT : inserts;
    if (inserts == Inserts.APPEND_NEW_KEYS && !upsert) {
      throw new IllegalArgumentException(
          "table rule '"
              + match
              + "': inserts: append-new-keys needs an upsert table (an append table appends every"
              + " row already)");
    }
    if (changeHistory != null) {
      if (!upsert) {
        throw new IllegalArgumentException(
            "table rule '"
                + match
                + "': change-history needs an upsert table (an append table keeps every event"
                + " already)");
      }
      if (!changeHistory.contains(TABLE_PLACEHOLDER)
          || changeHistory.equals(TABLE_PLACEHOLDER)
          || changeHistory.indexOf(TABLE_PLACEHOLDER)
              != changeHistory.lastIndexOf(TABLE_PLACEHOLDER)) {
        throw new IllegalArgumentException(
            "table rule '"
                + match
                + "': change-history '"
                + changeHistory
                + "' must hold "
                + TABLE_PLACEHOLDER
                + " once, with a prefix or suffix (e.g. {table}_changes)");
      }
      String example = changeHistory.replace(TABLE_PLACEHOLDER, "t");
      if (!IngestSettings.TABLE_NAME.matcher(example).matches()) {
        throw new IllegalArgumentException(
            "table rule '"
                + match
                + "': change-history '"
                + changeHistory
                + "' does not make table names matching "
                + IngestSettings.TABLE_NAME.pattern());
      }
    }
    timestampFields = List.copyOf(timestampFields);
    primaryKey = List.copyOf(primaryKey);
    partitionCandidates = List.copyOf(partitionCandidates);
    if (primaryKey.isEmpty()) {
      throw new IllegalArgumentException(
          "table rule '" + match + "': primary key must name at least one field");
    }
    for (String field : mapFields) {
      if (nested == NestedValues.JSON) {
        throw new IllegalArgumentException(
            "map field '" + field + "' needs nested: columns (nested: json keeps objects as text)");
      }
      if (primaryKey.contains(field)) {
        throw new IllegalArgumentException(
            "map field '"
                + field
                + "' is a primary-key field: keys are top-level primitive values");
      }
      for (PartitionCandidate candidate : partitionCandidates) {
        if (candidate.column().equals(field)) {
          throw new IllegalArgumentException(
              "map field '"
                  + field
                  + "' is the column of partition candidate "
                  + candidate
                  + ": partition sources are top-level primitive columns");
        }
      }
    }
    if (upsert) {
      for (PartitionCandidate candidate : partitionCandidates) {
        if (!primaryKey.contains(candidate.column())) {
          throw new IllegalArgumentException(
              "table rule '"
                  + match
                  + "': partition candidate "
                  + candidate
                  + " must use a primary-key column "
                  + primaryKey
                  + " in an upsert table (an upsert that moved a key to another partition would"
                  + " leave its old row behind); partition by a key column, e.g. bucket(16, "
                  + primaryKey.get(0)
                  + "), or set upsert: false");
        }
      }
    }
  }

  /** This rule, writing the rows of new keys as {@code newInserts} says. */
  public TableRule withInserts(Inserts newInserts) {
    return new TableRule(
        match,
        primaryKey,
        partitionCandidates,
        targetFileSize,
        upsert,
        timestampFields,
        schemaChanges,
        contract,
        nested,
        mapFields,
        changeHistory,
        newInserts);
  }

  /** The change-history table of table {@code table}, or null when this rule keeps none. */
  public @Nullable String historyTable(String table) {
    return changeHistory == null ? null : changeHistory.replace(TABLE_PLACEHOLDER, table);
  }

  /**
   * The table whose change history {@code table} is under this rule, or null: {@code orders} for
   * {@code orders_changes} when the rule says {@code {table}_changes} and matches {@code orders}.
   */
  @Nullable String historySource(String table) {
    if (changeHistory == null) {
      return null;
    }
    int at = changeHistory.indexOf(TABLE_PLACEHOLDER);
    String prefix = changeHistory.substring(0, at);
    String suffix = changeHistory.substring(at + TABLE_PLACEHOLDER.length());
    if (table.length() <= prefix.length() + suffix.length()
        || !table.startsWith(prefix)
        || !table.endsWith(suffix)) {
      return null;
    }
    String source = table.substring(prefix.length(), table.length() - suffix.length());
    return matches(source) ? source : null;
  }

  /**
   * The rule of this rule's change-history tables: appends, no contract, the same timestamp fields,
   * schema changes and file size.
   */
  TableRule historyRule() {
    return new TableRule(
        Objects.requireNonNull(historyTable(match), "rule '" + match + "' keeps no change history"),
        List.of("id"),
        List.of(),
        targetFileSize,
        false,
        timestampFields,
        schemaChanges,
        List.of(),
        nested,
        mapFields);
  }

  /** Compiled globs: a rule is matched for every event until its callers cache the outcome. */
  private static final Map<String, Pattern> GLOBS = new ConcurrentHashMap<>();

  /** Whether this rule applies to the table named {@code table}. */
  public boolean matches(String table) {
    return GLOBS.computeIfAbsent(match, TableRule::glob).matcher(table).matches();
  }

  static Pattern glob(String glob) {
    StringBuilder regex = new StringBuilder();
    for (char c : glob.toCharArray()) {
      switch (c) {
        case '*' -> regex.append(".*");
        case '?' -> regex.append('.');
        default -> regex.append(Pattern.quote(String.valueOf(c)));
      }
    }
    return Pattern.compile(regex.toString());
  }
}
