/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import javax.imageio.ImageIO;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SoakChartsTest {
  private static final String CSV =
      SoakSampler.HEADER
          + "\n"
          + "0,t,0.0,false,optimized,0,0,0,0,0,0,0,0,0,0,0,0,0\n"
          + "0,t,0.0,false,compacted,1,0,0,0,0,0,0,0,0,0,0,1,0\n"
          + "0,t,0.0,false,baseline,0,0,0,0,0,0,0,0,0,0,0,0,0\n"
          + "1,t,60.0,false,optimized,2,2,1,1,2048,1024,120,10,10,100,ab,120,5\n"
          + "1,t,60.0,false,compacted,3,1,0,0,1024,0,100,0,0,100,ab,100,2\n"
          + "1,t,60.0,false,baseline,4,5,5,5,4096,2048,300,50,50,100,ab,400,12\n"
          + "2,t,120.0,true,optimized,5,1,0,0,1024,0,200,0,0,200,cd,90,2\n"
          + "2,t,120.0,true,compacted,6,1,0,0,1024,0,200,0,0,200,cd,100,2\n"
          + "2,t,120.0,true,baseline,7,9,9,9,8192,4096,600,90,90,200,cd,900,20\n"
          + "3,t,180.0,false,optimized,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,0,-1,-1\n";

  @Test
  void readsSamplesWrittenBeforeTheManifestsColumn(@TempDir Path dir) throws Exception {
    // The CSV of a run from before the column: the same rows, no manifests metric.
    Path csv = dir.resolve("samples.csv");
    Files.writeString(
        csv,
        CSV.lines()
                .map(line -> line.substring(0, line.lastIndexOf(',')))
                .collect(java.util.stream.Collectors.joining("\n"))
            + "\n");
    List<SoakCharts.Row> rows = SoakCharts.read(csv);

    assertThat(rows).hasSize(9).allMatch(r -> r.manifests() == -1);
    assertThat(SoakCharts.summary(rows))
        .contains("| optimized | full-scan s | 0.12 | 0.09 | 0.12 |")
        .doesNotContain("manifests");
  }

  @Test
  void summaryComparesEachSampleWithItsReferenceAndTheFinalRows(@TempDir Path dir)
      throws Exception {
    Path csv = dir.resolve("samples.csv");
    Files.writeString(csv, CSV);
    List<SoakCharts.Row> rows = SoakCharts.read(csv);

    assertThat(rows).hasSize(9); // the failed measurement is left out
    String summary = SoakCharts.summary(rows);
    assertThat(summary)
        .contains("| baseline | data files | 5 | 9 | 9 |")
        .contains("| optimized | delete files (eq + pos) | 2 | 0 | 2 |")
        .contains("| optimized | full-scan s | 0.12 | 0.09 | 0.12 |")
        .contains("| optimized | manifests (data + delete) | 5 | 2 | 5 |")
        .contains(
            "With Firn against the compacted reference, 2 samples: scan time above 1.3× in 0"
                + " (median 1.05×, worst 1.20× at sample 1), files (data + delete) above 1.3× in 1"
                + " (median 2.50×, worst 4.00× at sample 1).")
        .contains(
            "Of them, 1 taken with every checkpoint optimized (no equality-delete file): scan"
                + " time above 1.3× in 0 (median 0.90×); 1 taken while a checkpoint waited for its"
                + " minor: above 1.3× in 0 (median 1.20×).")
        .contains(
            "Final sample: with Firn 200 rows (checksum cd), without 200 rows (checksum cd): the"
                + " same rows.");
  }

  @Test
  void chartIsAPngOfEveryVariant(@TempDir Path dir) throws Exception {
    Path csv = dir.resolve("samples.csv");
    Files.writeString(csv, CSV);
    Path png = dir.resolve("scan.png");

    SoakCharts.chart(SoakCharts.read(csv), "scan", r -> r.scanMillis() / 1000.0, "test", png);

    BufferedImage image = ImageIO.read(png.toFile());
    assertThat(image.getWidth()).isEqualTo(960);
    assertThat(image.getHeight()).isEqualTo(480);
    // The baseline's red and Firn's blue are drawn.
    assertThat(hasColor(image, 0xD62728)).isTrue();
    assertThat(hasColor(image, 0x1F77B4)).isTrue();
  }

  @Test
  void ratioChartColoursEachSampleByTheTablesStateAndDrawsTheGoal(@TempDir Path dir)
      throws Exception {
    Path csv = dir.resolve("samples.csv");
    Files.writeString(csv, CSV);
    Path png = dir.resolve("ratio.png");

    SoakCharts.ratioChart(SoakCharts.read(csv), "test", png);

    BufferedImage image = ImageIO.read(png.toFile());
    // Sample 1 waited for its minor (orange), sample 2 was optimized (blue); the 1.3× line is red.
    assertThat(hasColor(image, 0xFF7F0E)).isTrue();
    assertThat(hasColor(image, 0x1F77B4)).isTrue();
    assertThat(hasColor(image, 0xD62728)).isTrue();
  }

  @Test
  void samplesFallAtSeededMomentsSpreadOverTheirIntervals() {
    SoakSampler.Phases phases = new SoakSampler.Phases(1);
    long interval = 60_000;
    long[] tenths = new long[10];
    for (int sample = 1; sample <= 400; sample++) {
      long offset = phases.offset(sample, interval);
      assertThat(offset).isBetween(0L, interval - 1);
      assertThat(new SoakSampler.Phases(1).offset(sample, interval)).isEqualTo(offset);
      tenths[(int) (offset * 10 / interval)]++;
    }
    // Every tenth of the interval (one 10 s checkpoint period of a 60 s interval has 1/6) is hit.
    for (long count : tenths) {
      assertThat(count).isBetween(20L, 60L);
    }
    assertThat(phases.offset(0, interval)).isZero();
    assertThat(new SoakSampler.Phases(2).offset(5, interval))
        .isNotEqualTo(phases.offset(5, interval));
    assertThat(new SoakSampler.Phases(0).offset(5, interval)).isZero();
  }

  @Test
  void rowHashCountsOnlyTheTableColumns() {
    Schema schema =
        new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.optional(2, "status", Types.StringType.get()));
    Schema withPos =
        new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.optional(2, "status", Types.StringType.get()),
            Types.NestedField.required(3, "_pos", Types.LongType.get()));
    Record plain = GenericRecord.create(schema);
    plain.setField("id", 7L);
    plain.setField("status", "paid");
    Record read = GenericRecord.create(withPos);
    read.setField("id", 7L);
    read.setField("status", "paid");
    read.setField("_pos", 41L);
    Record other = plain.copy();
    other.setField("status", "shipped");

    assertThat(SoakSampler.rowHash(read, 2)).isEqualTo(SoakSampler.rowHash(plain, 2));
    assertThat(SoakSampler.rowHash(other, 2)).isNotEqualTo(SoakSampler.rowHash(plain, 2));
  }

  private static boolean hasColor(BufferedImage image, int rgb) {
    for (int x = 0; x < image.getWidth(); x++) {
      for (int y = 0; y < image.getHeight(); y++) {
        if ((image.getRGB(x, y) & 0xFFFFFF) == rgb) {
          return true;
        }
      }
    }
    return false;
  }
}
