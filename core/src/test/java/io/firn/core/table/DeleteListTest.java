/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.core.table;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Random;
import java.util.Set;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileMetadata;
import org.apache.iceberg.PartitionSpec;
import org.junit.jupiter.api.Test;

/**
 * {@link DeleteList} is the list of its runs and single files in the order they were added, by
 * every access a caller uses, and {@link PartitionFiles#attachAll} attaches from runs exactly what
 * it attaches from a plain list.
 */
class DeleteListTest {
  private static final DeleteFile[] FILES = new DeleteFile[40];

  static {
    for (int i = 0; i < FILES.length; i++) {
      FILES[i] =
          FileMetadata.deleteFileBuilder(PartitionSpec.unpartitioned())
              .ofPositionDeletes()
              .withPath("file:/t/deletes-" + i + ".parquet")
              .withFormat(FileFormat.PARQUET)
              .withFileSizeInBytes(10)
              .withRecordCount(1)
              .build();
    }
  }

  @Test
  void readsAsThePlainListOfWhatWasAdded() {
    for (int seed = 0; seed < 500; seed++) {
      Random random = new Random(seed);
      DeleteFile[] other = FILES.clone();
      DeleteList.Builder builder = new DeleteList.Builder();
      List<DeleteFile> model = new ArrayList<>();
      int parts = random.nextInt(6);
      for (int p = 0; p < parts; p++) {
        if (random.nextInt(3) == 0) {
          DeleteFile single = FILES[random.nextInt(FILES.length)];
          builder.add(single);
          model.add(single);
        } else {
          DeleteFile[] array = random.nextBoolean() ? FILES : other;
          int from = random.nextInt(array.length + 1);
          int to = from + random.nextInt(array.length - from + 1);
          builder.addRun(array, from, to);
          model.addAll(List.of(array).subList(from, to));
        }
      }
      List<DeleteFile> list = builder.build();
      String context = "seed " + seed;
      assertThat(list).as(context).hasSize(model.size()).isEqualTo(model);
      assertThat(list.hashCode()).as(context).isEqualTo(model.hashCode());
      for (int i = 0; i < model.size(); i++) {
        assertThat(list.get(i)).as(context).isSameAs(model.get(i));
      }
      List<DeleteFile> iterated = new ArrayList<>();
      list.iterator().forEachRemaining(iterated::add);
      assertThat(iterated).as(context).isEqualTo(model);
      assertThat(List.copyOf(list)).as(context).isEqualTo(model);

      // attachAll from runs attaches what a plain list attaches, each new file once.
      PartitionFiles fromRuns = new PartitionFiles(null, PartitionSpec.unpartitioned(), null);
      PartitionFiles fromPlain = new PartitionFiles(null, PartitionSpec.unpartitioned(), null);
      List<String> addedFromRuns = new ArrayList<>();
      List<String> addedFromPlain = new ArrayList<>();
      fromRuns.attachAll(list, d -> addedFromRuns.add(d.location()));
      fromRuns.attachAll(list, d -> addedFromRuns.add(d.location()));
      fromPlain.attachAll(new ArrayList<>(model), d -> addedFromPlain.add(d.location()));
      assertThat(addedFromRuns).as(context).isEqualTo(addedFromPlain);
      Set<String> distinct = new HashSet<>();
      model.forEach(d -> distinct.add(d.location()));
      assertThat(addedFromRuns).as(context).hasSize(distinct.size());
      assertThat(fromRuns.attachedDeletes()).as(context).hasSize(distinct.size());
    }
  }

  @Test
  void isImmutableAndBounded() {
    List<DeleteFile> list = new DeleteList.Builder().addRun(FILES, 2, 5).add(FILES[0]).build();
    assertThatThrownBy(() -> list.add(FILES[1])).isInstanceOf(UnsupportedOperationException.class);
    assertThatThrownBy(() -> list.set(0, FILES[1]))
        .isInstanceOf(UnsupportedOperationException.class);
    assertThatThrownBy(() -> list.get(4)).isInstanceOf(IndexOutOfBoundsException.class);
    assertThatThrownBy(() -> list.get(-1)).isInstanceOf(IndexOutOfBoundsException.class);
    Iterator<DeleteFile> iterator = list.iterator();
    for (int i = 0; i < 4; i++) {
      iterator.next();
    }
    assertThatThrownBy(iterator::next).isInstanceOf(NoSuchElementException.class);
    assertThat(new DeleteList.Builder().addRun(FILES, 3, 3).build()).isEmpty();
  }
}
