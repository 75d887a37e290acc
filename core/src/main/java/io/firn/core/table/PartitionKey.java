/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.core.table;

import java.util.Comparator;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.PartitionSpec;

/**
 * Identifies one partition of one partition spec. Files of an older spec form their own partitions:
 * Iceberg applies partition-scoped deletes only within the same spec.
 *
 * @param specId the partition spec id
 * @param path the partition path as Iceberg prints it ({@code id_bucket=3}); empty when the spec is
 *     unpartitioned
 */
public record PartitionKey(int specId, String path) implements Comparable<PartitionKey> {
  private static final Comparator<PartitionKey> ORDER =
      Comparator.comparingInt(PartitionKey::specId).thenComparing(PartitionKey::path);

  /** The key of the partition a file belongs to. */
  public static PartitionKey of(PartitionSpec spec, ContentFile<?> file) {
    return new PartitionKey(spec.specId(), spec.partitionToPath(file.partition()));
  }

  public boolean unpartitioned() {
    return path.isEmpty();
  }

  @Override
  public int compareTo(PartitionKey other) {
    return ORDER.compare(this, other);
  }

  /** {@code id_bucket=3} or {@code <unpartitioned>}, with the spec id when it is not 0. */
  @Override
  public String toString() {
    String name = unpartitioned() ? "<unpartitioned>" : path;
    return specId == 0 ? name : name + " (spec " + specId + ")";
  }
}
