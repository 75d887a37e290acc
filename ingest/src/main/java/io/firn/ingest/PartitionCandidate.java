/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.ingest;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.iceberg.PartitionField;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.transforms.Transform;
import org.apache.iceberg.transforms.Transforms;
import org.apache.iceberg.types.Types;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One partition candidate of a table rule: a column and a transform, written {@code region}
 * (identity), {@code bucket(16, id)}, {@code truncate(4, sku)} or {@code day(event_time)} (also
 * {@code year}, {@code month}, {@code hour}; for fields the rule declares as timestamps).
 *
 * <p>A routed table is partitioned by the candidates its schema has, in the rule's order; a
 * candidate whose column appears later evolves the spec then (Iceberg's dynamic sink applies the
 * new spec; files already written keep theirs). A candidate whose transform does not fit the
 * column's inferred type (e.g. {@code bucket} on a double) is left out, with a warning.
 *
 * @param transform {@code identity}, {@code bucket}, {@code truncate}, {@code year}, {@code month},
 *     {@code day} or {@code hour}
 * @param width the bucket count or truncation width; 0 otherwise
 * @param column the source column
 */
public record PartitionCandidate(String transform, int width, String column)
    implements Serializable {
  private static final long serialVersionUID = 1L;
  private static final Logger LOG = LoggerFactory.getLogger(PartitionCandidate.class);

  private static final Pattern COLUMN = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");
  private static final Pattern TRANSFORM =
      Pattern.compile(
          "(?i:(bucket|truncate))\\(\\s*(\\d{1,6})\\s*,\\s*([A-Za-z_][A-Za-z0-9_]*)\\s*\\)");

  private static final Pattern TIME =
      Pattern.compile("(?i:(year|month|day|hour))\\(\\s*([A-Za-z_][A-Za-z0-9_]*)\\s*\\)");

  /**
   * Parses one candidate.
   *
   * @throws IllegalArgumentException naming the accepted forms
   */
  public static PartitionCandidate parse(String text) {
    String trimmed = text.trim();
    if (COLUMN.matcher(trimmed).matches()) {
      return new PartitionCandidate("identity", 0, trimmed);
    }
    Matcher matcher = TRANSFORM.matcher(trimmed);
    if (matcher.matches()) {
      String transform = matcher.group(1).toLowerCase(Locale.ROOT);
      int width = Integer.parseInt(matcher.group(2));
      if (width < 1) {
        throw new IllegalArgumentException(transform + " width must be at least 1");
      }
      return new PartitionCandidate(transform, width, matcher.group(3));
    }
    Matcher time = TIME.matcher(trimmed);
    if (time.matches()) {
      return new PartitionCandidate(time.group(1).toLowerCase(Locale.ROOT), 0, time.group(2));
    }
    throw new IllegalArgumentException(
        "must be a column name, bucket(N, column), truncate(W, column) or year|month|day|hour(column)"
            + " of a timestamp field");
  }

  /**
   * The spec for {@code schema}: the candidates whose column it has (and whose transform fits the
   * column's type), in order.
   */
  public static PartitionSpec spec(List<PartitionCandidate> candidates, Schema schema) {
    PartitionSpec.Builder builder = PartitionSpec.builderFor(schema);
    boolean any = false;
    for (PartitionCandidate candidate : candidates) {
      Types.NestedField field = schema.findField(candidate.column());
      if (field == null) {
        continue;
      }
      if (!candidate.icebergTransform().canTransform(field.type())) {
        LOG.warn(
            "Partition candidate {} does not fit column '{}' of type {}: left out of the spec",
            candidate,
            candidate.column(),
            field.type());
        continue;
      }
      switch (candidate.transform()) {
        case "bucket" -> builder.bucket(candidate.column(), candidate.width());
        case "truncate" -> builder.truncate(candidate.column(), candidate.width());
        case "year" -> builder.year(candidate.column());
        case "month" -> builder.month(candidate.column());
        case "day" -> builder.day(candidate.column());
        case "hour" -> builder.hour(candidate.column());
        default -> builder.identity(candidate.column());
      }
      any = true;
    }
    return any ? builder.build() : PartitionSpec.unpartitioned();
  }

  /**
   * {@code candidates} with those {@code previous} partitions by first, in its order, then the
   * others in rule order.
   */
  public static List<PartitionCandidate> ordered(
      List<PartitionCandidate> candidates, @Nullable PartitionSpec previous) {
    if (previous == null || previous.isUnpartitioned()) {
      return candidates;
    }
    List<PartitionCandidate> ordered = new ArrayList<>();
    for (PartitionField field : previous.fields()) {
      String column = previous.schema().findColumnName(field.sourceId());
      for (PartitionCandidate candidate : candidates) {
        if (candidate.column().equals(column)
            && candidate.icebergTransform().toString().equals(field.transform().toString())
            && !ordered.contains(candidate)) {
          ordered.add(candidate);
        }
      }
    }
    for (PartitionCandidate candidate : candidates) {
      if (!ordered.contains(candidate)) {
        ordered.add(candidate);
      }
    }
    return ordered;
  }

  private Transform<?, ?> icebergTransform() {
    return switch (transform) {
      case "bucket" -> Transforms.bucket(width);
      case "truncate" -> Transforms.truncate(width);
      case "year" -> Transforms.year();
      case "month" -> Transforms.month();
      case "day" -> Transforms.day();
      case "hour" -> Transforms.hour();
      default -> Transforms.identity();
    };
  }

  @Override
  public String toString() {
    return switch (transform) {
      case "identity" -> column;
      case "bucket", "truncate" -> transform + "(" + width + ", " + column + ")";
      default -> transform + "(" + column + ")";
    };
  }
}
