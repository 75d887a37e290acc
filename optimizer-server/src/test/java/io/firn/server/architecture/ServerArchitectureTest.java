/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.server.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The server's boundaries (ARCHITECTURE.md, "The server"): the REST resources are the top layer,
 * used by no other part; the server runs the executor and the committer but not the CLI; no engine.
 */
class ServerArchitectureTest {
  private static JavaClasses server;

  @BeforeAll
  static void importServer() {
    server =
        new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("io.firn.server");
  }

  static final ArchRule NOTHING_BELOW_THE_API_USES_IT =
      noClasses()
          .that()
          .resideInAnyPackage(
              "io.firn.server.optimizing..",
              "io.firn.server.policy..",
              "io.firn.server.store..",
              "io.firn.server.ha..")
          .should()
          .dependOnClassesThat()
          .resideInAPackage("io.firn.server.api..")
          .because("resources are thin shells over the server's parts, not a layer they call");

  static final ArchRule NO_CLI_NO_ENGINE =
      noClasses()
          .that()
          .resideInAPackage("io.firn.server..")
          .should()
          .dependOnClassesThat()
          .resideInAnyPackage(
              "io.firn.cli..", "io.firn.ingest..", "org.apache.flink..", "org.apache.spark..")
          .because("the server hosts the executor in-thread; engines run in their own runtimes");

  @Test
  void nothingBelowTheApiUsesIt() {
    NOTHING_BELOW_THE_API_USES_IT.check(server);
  }

  @Test
  void noCliNoEngine() {
    NO_CLI_NO_ENGINE.check(server);
  }
}
