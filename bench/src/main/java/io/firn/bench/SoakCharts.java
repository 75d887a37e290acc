/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.bench;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.FontMetrics;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToDoubleFunction;
import java.util.stream.DoubleStream;
import javax.imageio.ImageIO;

/**
 * Renders the soak benchmark's samples ({@link SoakSampler}'s {@code samples.csv}) as PNG line
 * charts with Java2D (headless), one chart per metric with every variant on it, and writes the
 * summary ({@code summary.md}: first, last and max per metric and variant, and the goal's ratios to
 * the compacted reference).
 *
 * <pre>
 * --samples DIR/samples.csv --charts docs/bench --prefix soak --title "..."
 * </pre>
 */
public final class SoakCharts {
  private static final Map<String, Color> COLORS =
      Map.of(
          "baseline", new Color(0xD6, 0x27, 0x28),
          "optimized", new Color(0x1F, 0x77, 0xB4),
          "compacted", new Color(0x55, 0x55, 0x55));
  private static final Map<String, String> LABELS =
      Map.of(
          "baseline", "without optimizing",
          "optimized", "with Firn",
          "compacted", "fully compacted reference (copy of Firn's rows)");

  /** One CSV line of a variant. */
  record Row(
      int sample,
      double minutes,
      boolean last,
      String variant,
      long dataFiles,
      long eqDeleteFiles,
      long posDeleteFiles,
      long dataBytes,
      long deleteBytes,
      long rows,
      String checksum,
      long scanMillis,
      long manifests) {
    long deleteFiles() {
      return eqDeleteFiles + posDeleteFiles;
    }

    long files() {
      return dataFiles + deleteFiles();
    }

    double mib() {
      return (dataBytes + deleteBytes) / 1024.0 / 1024.0;
    }
  }

  private SoakCharts() {}

  public static void main(String[] argv) throws IOException {
    BenchArgs args = new BenchArgs(argv);
    List<Row> rows = read(Path.of(args.get("samples")));
    Path charts = Path.of(args.get("charts"));
    String prefix = args.get("prefix", "soak");
    String title = args.get("title", "soak");
    Files.createDirectories(charts);
    chart(
        rows,
        "data files (live, current snapshot)",
        r -> r.dataFiles,
        title,
        charts.resolve(prefix + "-data-files.png"));
    chart(
        rows,
        "delete files (equality + position)",
        r -> r.deleteFiles(),
        title,
        charts.resolve(prefix + "-delete-files.png"));
    chart(
        rows,
        "full-scan time, deletes applied (s)",
        r -> r.scanMillis / 1000.0,
        title,
        charts.resolve(prefix + "-scan-time.png"));
    chart(
        rows, "data + delete bytes (MiB)", Row::mib, title, charts.resolve(prefix + "-bytes.png"));
    ratioChart(rows, title, charts.resolve(prefix + "-scan-ratio.png"));
    String summary = summary(rows);
    Files.writeString(Path.of(args.get("samples")).resolveSibling("summary.md"), summary);
    System.out.print(summary);
  }

  static List<Row> read(Path csv) throws IOException {
    List<String> lines = Files.readAllLines(csv);
    List<String> header = List.of(lines.get(0).split(","));
    List<Row> rows = new ArrayList<>();
    for (String line : lines.subList(1, lines.size())) {
      String[] f = line.split(",");
      if (f.length != header.size() || f[header.indexOf("data_files")].equals("-1")) {
        continue; // a failed measurement
      }
      java.util.function.Function<String, String> at = name -> f[header.indexOf(name)];
      rows.add(
          new Row(
              Integer.parseInt(at.apply("sample")),
              Double.parseDouble(at.apply("elapsed_s")) / 60.0,
              Boolean.parseBoolean(at.apply("final")),
              at.apply("variant"),
              Long.parseLong(at.apply("data_files")),
              Long.parseLong(at.apply("eq_delete_files")),
              Long.parseLong(at.apply("pos_delete_files")),
              Long.parseLong(at.apply("data_bytes")),
              Long.parseLong(at.apply("delete_bytes")),
              Long.parseLong(at.apply("rows")),
              at.apply("checksum"),
              Long.parseLong(at.apply("scan_ms")),
              // Data and delete manifests; -1 in CSVs written before the column (2026-12-07).
              header.contains("manifests") ? Long.parseLong(at.apply("manifests")) : -1));
    }
    return rows;
  }

  private static Map<String, List<Row>> byVariant(List<Row> rows) {
    Map<String, List<Row>> variants = new LinkedHashMap<>();
    for (String variant : List.of("baseline", "optimized", "compacted")) {
      List<Row> of = rows.stream().filter(r -> r.variant.equals(variant)).toList();
      if (!of.isEmpty()) {
        variants.put(variant, of);
      }
    }
    return variants;
  }

  /** One line of a chart: its points, and per point a colour ({@code null}: the line's). */
  private record Series(
      String label, Color color, boolean dashed, double[] xs, double[] ys, Color[] dots) {}

  /** A line per variant of one metric over the run. */
  static void chart(
      List<Row> rows, String metric, ToDoubleFunction<Row> value, String title, Path png)
      throws IOException {
    List<Series> series = new ArrayList<>();
    for (Map.Entry<String, List<Row>> variant : byVariant(rows).entrySet()) {
      List<Row> of = variant.getValue();
      series.add(
          new Series(
              LABELS.get(variant.getKey()),
              COLORS.get(variant.getKey()),
              variant.getKey().equals("compacted"),
              of.stream().mapToDouble(Row::minutes).toArray(),
              of.stream().mapToDouble(value).toArray(),
              null));
    }
    draw(series, metric, title, png, List.of());
  }

  /**
   * The goal's chart: per sample, the optimized table's full-scan time ÷ its compacted reference's,
   * each point coloured by the table's state (every checkpoint optimized, or one waiting for its
   * minor), with the goal's 1.3× line.
   */
  static void ratioChart(List<Row> rows, String title, Path png) throws IOException {
    List<Compared> compared = compared(rows);
    double[] x = compared.stream().mapToDouble(c -> c.optimized().minutes()).toArray();
    double[] y = compared.stream().mapToDouble(Compared::scan).toArray();
    Color[] dots =
        compared.stream()
            .map(c -> c.caughtUp() ? COLORS.get("optimized") : PENDING)
            .toArray(Color[]::new);
    draw(
        List.of(
            new Series(
                "with Firn ÷ compacted reference; dots: every checkpoint optimized (blue), one"
                    + " waiting for its minor (orange)",
                new Color(0x9E, 0xC5, 0xE8),
                false,
                x,
                y,
                dots)),
        "full-scan time ÷ reference",
        title,
        png,
        List.of(1.0, 1.3));
  }

  private static final Color PENDING = new Color(0xFF, 0x7F, 0x0E);

  /** A sample of the optimized table next to its compacted reference. */
  record Compared(Row optimized, Row reference) {
    double scan() {
      return optimized.scanMillis / (double) Math.max(1, reference.scanMillis);
    }

    double files() {
      return optimized.files() / (double) Math.max(1, reference.files());
    }

    /**
     * Minor turns every equality delete into positions or drops it, so an equality-delete file
     * means a checkpoint the optimizer has not reached yet (it commits seconds after the writer).
     */
    boolean caughtUp() {
      return optimized.eqDeleteFiles() == 0;
    }
  }

  /** The samples, in order, where the optimized table has a reference with rows to compare with. */
  static List<Compared> compared(List<Row> rows) {
    Map<Integer, Row> references = new LinkedHashMap<>();
    rows.stream()
        .filter(r -> r.variant.equals("compacted"))
        .forEach(r -> references.put(r.sample, r));
    List<Compared> compared = new ArrayList<>();
    for (Row row : rows) {
      Row reference = references.get(row.sample);
      if (row.variant.equals("optimized") && reference != null && reference.rows != 0) {
        compared.add(new Compared(row, reference));
      }
    }
    return compared;
  }

  private static void draw(
      List<Series> series, String metric, String title, Path png, List<Double> marks)
      throws IOException {
    int width = 960;
    int height = 480;
    int left = 80;
    int right = 30;
    int top = 60;
    int bottom = 60;
    double maxX = series.stream().flatMapToDouble(l -> DoubleStream.of(l.xs)).max().orElse(1);
    double maxY =
        DoubleStream.concat(
                series.stream().flatMapToDouble(l -> DoubleStream.of(l.ys)),
                marks.stream().mapToDouble(Double::doubleValue))
            .max()
            .orElse(1);
    double stepX = niceStep(maxX / 8);
    double stepY = niceStep(Math.max(maxY, 1e-9) / 6);
    maxX = Math.max(stepX, Math.ceil(maxX / stepX) * stepX);
    maxY = Math.max(stepY, Math.ceil(maxY / stepY) * stepY);
    BufferedImage image = new BufferedImage(width, height, BufferedImage.TYPE_INT_RGB);
    Graphics2D g = image.createGraphics();
    g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
    g.setRenderingHint(
        RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
    g.setColor(Color.WHITE);
    g.fillRect(0, 0, width, height);
    int plotW = width - left - right;
    int plotH = height - top - bottom;
    g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 16));
    g.setColor(Color.BLACK);
    g.drawString(metric + " — " + title, left, 24);
    g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
    FontMetrics fm = g.getFontMetrics();
    for (double y = 0; y <= maxY + stepY / 2; y += stepY) {
      int py = top + plotH - (int) Math.round(y / maxY * plotH);
      g.setColor(new Color(0xE5, 0xE5, 0xE5));
      g.drawLine(left, py, left + plotW, py);
      g.setColor(Color.DARK_GRAY);
      String label = format(y, stepY);
      g.drawString(label, left - 8 - fm.stringWidth(label), py + fm.getAscent() / 2 - 1);
    }
    for (double x = 0; x <= maxX + stepX / 2; x += stepX) {
      int px = left + (int) Math.round(x / maxX * plotW);
      g.setColor(new Color(0xE5, 0xE5, 0xE5));
      g.drawLine(px, top, px, top + plotH);
      g.setColor(Color.DARK_GRAY);
      String label = format(x, stepX);
      g.drawString(label, px - fm.stringWidth(label) / 2, top + plotH + 18);
    }
    for (double mark : marks) {
      int py = top + plotH - (int) Math.round(mark / maxY * plotH);
      g.setStroke(stroke(true));
      g.setColor(mark == 1.0 ? Color.GRAY : COLORS.get("baseline"));
      g.drawLine(left, py, left + plotW, py);
      String label = format(mark, 0.1) + "×";
      g.drawString(label, left + plotW - fm.stringWidth(label) - 4, py - 4);
    }
    g.setStroke(new BasicStroke(1f));
    g.setColor(Color.BLACK);
    g.drawRect(left, top, plotW, plotH);
    String xLabel = "minutes since the start (both ingest jobs start together)";
    g.drawString(xLabel, left + plotW / 2 - fm.stringWidth(xLabel) / 2, height - 16);
    int legendY = 44;
    int legendX = left;
    for (Series line : series) {
      g.setStroke(stroke(line.dashed));
      g.setColor(line.color);
      int[] xs = new int[line.xs.length];
      int[] ys = new int[xs.length];
      for (int i = 0; i < xs.length; i++) {
        xs[i] = left + (int) Math.round(line.xs[i] / maxX * plotW);
        ys[i] = top + plotH - (int) Math.round(line.ys[i] / maxY * plotH);
      }
      g.drawPolyline(xs, ys, xs.length);
      for (int i = 0; i < xs.length; i++) {
        g.setColor(line.dots == null ? line.color : line.dots[i]);
        g.fillOval(xs[i] - 3, ys[i] - 3, 6, 6);
      }
      g.setColor(line.color);
      g.drawLine(legendX, legendY - 4, legendX + 24, legendY - 4);
      g.setColor(Color.BLACK);
      g.drawString(line.label, legendX + 30, legendY);
      legendX += 30 + fm.stringWidth(line.label) + 24;
    }
    g.dispose();
    ImageIO.write(image, "png", png.toFile());
  }

  private static BasicStroke stroke(boolean dashed) {
    return dashed
        ? new BasicStroke(
            2f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_ROUND, 1f, new float[] {6f, 5f}, 0f)
        : new BasicStroke(2f);
  }

  private static double niceStep(double raw) {
    if (raw <= 0) {
      return 1;
    }
    double magnitude = Math.pow(10, Math.floor(Math.log10(raw)));
    for (double m : new double[] {1, 2, 2.5, 5, 10}) {
      if (raw <= m * magnitude) {
        return m * magnitude;
      }
    }
    return 10 * magnitude;
  }

  /** With as many decimals as the step needs (0.25 shows two, 0.5 one, 5 none). */
  private static String format(double value, double step) {
    int decimals = 0;
    while (decimals < 4
        && Math.abs(Math.round(step * Math.pow(10, decimals)) - step * Math.pow(10, decimals))
            > 1e-6) {
      decimals++;
    }
    return String.format(Locale.ROOT, "%." + decimals + "f", value);
  }

  /** First, last and max per metric and variant; the goal's ratios to the reference. */
  static String summary(List<Row> rows) {
    StringBuilder out = new StringBuilder();
    out.append("| variant | metric | first | last | max |\n|---|---|---:|---:|---:|\n");
    Map<String, ToDoubleFunction<Row>> metrics = new LinkedHashMap<>();
    metrics.put("data files", r -> r.dataFiles);
    metrics.put("delete files (eq + pos)", r -> r.deleteFiles());
    metrics.put("data + delete MiB", Row::mib);
    metrics.put("live rows", r -> r.rows);
    metrics.put("full-scan s", r -> r.scanMillis / 1000.0);
    if (rows.stream().anyMatch(r -> r.manifests >= 0)) {
      metrics.put("manifests (data + delete)", r -> r.manifests);
    }
    for (Map.Entry<String, List<Row>> variant : byVariant(rows).entrySet()) {
      // From the first sample with rows: before it the ingest job had not committed the table.
      List<Row> of = variant.getValue().stream().filter(r -> r.rows > 0).toList();
      if (of.isEmpty()) {
        continue;
      }
      for (Map.Entry<String, ToDoubleFunction<Row>> metric : metrics.entrySet()) {
        ToDoubleFunction<Row> f = metric.getValue();
        out.append(
            String.format(
                Locale.ROOT,
                "| %s | %s | %s | %s | %s |%n",
                variant.getKey(),
                metric.getKey(),
                num(f.applyAsDouble(of.get(0))),
                num(f.applyAsDouble(of.get(of.size() - 1))),
                num(of.stream().mapToDouble(f).max().orElse(0))));
      }
    }
    // Per sample: the optimized table against the reference written from its own rows.
    double worstScan = 0;
    double worstFiles = 0;
    int scanOver = 0;
    int filesOver = 0;
    int worstScanSample = -1;
    int worstFilesSample = -1;
    List<Compared> all = compared(rows);
    int compared = all.size();
    List<Double> scanRatios = new ArrayList<>();
    List<Double> fileRatios = new ArrayList<>();
    List<Double> caughtUp = new ArrayList<>();
    List<Double> pending = new ArrayList<>();
    for (Compared sample : all) {
      double scan = sample.scan();
      double files = sample.files();
      scanRatios.add(scan);
      fileRatios.add(files);
      (sample.caughtUp() ? caughtUp : pending).add(scan);
      if (scan > 1.3) {
        scanOver++;
      }
      if (files > 1.3) {
        filesOver++;
      }
      if (scan > worstScan) {
        worstScan = scan;
        worstScanSample = sample.optimized().sample();
      }
      if (files > worstFiles) {
        worstFiles = files;
        worstFilesSample = sample.optimized().sample();
      }
    }
    out.append(
        String.format(
            Locale.ROOT,
            "%nWith Firn against the compacted reference, %d samples: scan time above 1.3× in %d"
                + " (median %.2f×, worst %.2f× at sample %d), files (data + delete) above 1.3× in"
                + " %d (median %.2f×, worst %.2f× at sample %d).%n",
            compared,
            scanOver,
            median(scanRatios),
            worstScan,
            worstScanSample,
            filesOver,
            median(fileRatios),
            worstFiles,
            worstFilesSample));
    out.append(
        String.format(
            Locale.ROOT,
            "Of them, %d taken with every checkpoint optimized (no equality-delete file): scan time"
                + " above 1.3× in %d (median %.2f×); %d taken while a checkpoint waited for its"
                + " minor: above 1.3× in %d (median %.2f×).%n",
            caughtUp.size(),
            caughtUp.stream().filter(r -> r > 1.3).count(),
            median(caughtUp),
            pending.size(),
            pending.stream().filter(r -> r > 1.3).count(),
            median(pending)));
    Row lastOptimized =
        rows.stream().filter(r -> r.last && r.variant.equals("optimized")).findFirst().orElse(null);
    Row lastBaseline =
        rows.stream().filter(r -> r.last && r.variant.equals("baseline")).findFirst().orElse(null);
    if (lastOptimized != null && lastBaseline != null) {
      out.append(
          String.format(
              Locale.ROOT,
              "Final sample: with Firn %d rows (checksum %s), without %d rows (checksum %s): %s.%n",
              lastOptimized.rows,
              lastOptimized.checksum,
              lastBaseline.rows,
              lastBaseline.checksum,
              lastOptimized.rows == lastBaseline.rows
                      && lastOptimized.checksum.equals(lastBaseline.checksum)
                  ? "the same rows"
                  : "DIFFERENT"));
    }
    return out.toString();
  }

  private static double median(List<Double> values) {
    if (values.isEmpty()) {
      return Double.NaN;
    }
    List<Double> sorted = values.stream().sorted().toList();
    int middle = sorted.size() / 2;
    return sorted.size() % 2 == 1
        ? sorted.get(middle)
        : (sorted.get(middle - 1) + sorted.get(middle)) / 2;
  }

  private static String num(double value) {
    return value == Math.rint(value) && Math.abs(value) < 1e15
        ? String.format(Locale.ROOT, "%,d", (long) value)
        : String.format(Locale.ROOT, "%,.2f", value);
  }
}
