/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.ingest.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.core.importer.Location;
import com.tngtech.archunit.lang.ArchRule;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The ingest job's boundaries (ADR 0014): Firn places exactly one class, {@code FirnDynamicSink}
 * with its nested classes, inside Iceberg's {@code flink.sink.dynamic} package to reach the sink's
 * package-private writers and committer; everything else uses Iceberg's public API only. The job
 * depends on {@code firn-core}, never on the optimizer's modules.
 */
class IngestArchitectureTest {
  private static JavaClasses ingest;

  @BeforeAll
  static void importIngest() {
    // This module's own classes only: Iceberg's jars hold the same package.
    ImportOption ownClasses =
        (Location location) -> location.matches(Pattern.compile(".*/ingest/target/classes/.*"));
    ingest =
        new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .withImportOption(ownClasses)
            .importPackages("io.firn", "org.apache.iceberg");
  }

  static final ArchRule ONE_BRIDGE_CLASS_IN_ICEBERGS_PACKAGE =
      classes()
          .that()
          .resideInAPackage("org.apache.iceberg..")
          .should()
          .haveNameMatching(
              "org\\.apache\\.iceberg\\.flink\\.sink\\.dynamic\\.FirnDynamicSink(\\$.*)?")
          .because(
              "only the bridge class may reach into Iceberg's package-private sink internals"
                  + " (ADR 0014)");

  static final ArchRule NO_OPTIMIZER_MODULE =
      noClasses()
          .that()
          .resideInAPackage("io.firn.ingest..")
          .should()
          .dependOnClassesThat()
          .resideInAnyPackage(
              "io.firn.worker..", "io.firn.server..", "org.apache.spark..", "io.dropwizard..")
          .because("the ingest job ships alone as a Flink job jar");

  @Test
  void oneBridgeClassInIcebergsPackage() {
    ONE_BRIDGE_CLASS_IN_ICEBERGS_PACKAGE.check(ingest);
  }

  @Test
  void noOptimizerModule() {
    NO_OPTIMIZER_MODULE.check(ingest);
  }
}
