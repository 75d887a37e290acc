/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.firn.testkit.CdcTableGenerator;
import io.firn.testkit.CdcTableSpec;
import io.firn.testkit.HistoryRewritingCatalog;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code firn optimize} when the check after its commit fails for real: the catalog moves the table
 * back past the writer's last commit right after Firn's commit ({@link HistoryRewritingCatalog},
 * reached as a custom catalog). Exit code 3, the alarm on stderr, and the progress line names the
 * snapshot Firn committed.
 */
class IntegrityAlarmCliTest {
  @TempDir Path dir;

  @Test
  void exitsWithThreeAndNamesTheCommittedSnapshotWhenTheHistoryLosesFirnsCommit() {
    Path catalogFile = dir.resolve("catalog.db");
    String warehouse = dir.resolve("warehouse").toString();
    Catalog plain =
        CatalogUtil.buildIcebergCatalog(
            "firn",
            Map.of("type", "jdbc", "uri", "jdbc:sqlite:" + catalogFile, "warehouse", warehouse),
            new Configuration());
    CdcTableGenerator.generate(plain, TableIdentifier.of("db", "t"), CdcTableSpec.small(2));

    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int exit;
    try (PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
        PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8)) {
      exit =
          new FirnCli(o, e)
              .run(
                  new String[] {
                    "optimize",
                    "--catalog-type",
                    "custom",
                    "--catalog-property",
                    "catalog-impl=" + HistoryRewritingCatalog.class.getName(),
                    "--catalog-uri",
                    "jdbc:sqlite:" + catalogFile,
                    "--warehouse",
                    warehouse,
                    "--table",
                    "db.t",
                    "--type",
                    "full"
                  });
    }

    String stdout = out.toString(StandardCharsets.UTF_8);
    String stderr = err.toString(StandardCharsets.UTF_8);
    assertThat(exit).as("stdout:%n%s%nstderr:%n%s", stdout, stderr).isEqualTo(3);
    assertThat(stderr).contains("an integrity check failed");
    assertThat(stdout).contains("integrity_failed", "(committed, it is in the table)");
  }
}
