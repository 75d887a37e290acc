/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.worker.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.Architectures.layeredArchitecture;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The layers of {@code firn-worker-executor} (ARCHITECTURE.md, "Modules"): the executor runs one
 * task and knows nothing above it; the local optimizer and the worker loop sit on it (the commit
 * contract and the planning front end are core's, the CLI is the module {@code firn-cli} on top,
 * ADR 0033). No engine or server framework appears here: engines live only in their runtime
 * modules.
 */
class ExecutorArchitectureTest {
  private static JavaClasses worker;

  @BeforeAll
  static void importWorker() {
    worker =
        new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("io.firn.worker");
  }

  static final ArchRule LAYERS =
      layeredArchitecture()
          .consideringOnlyDependenciesInLayers()
          .layer("Executor")
          .definedBy("io.firn.worker.executor..")
          .layer("Local")
          .definedBy("io.firn.worker.local..")
          .layer("Remote")
          .definedBy("io.firn.worker.remote..")
          .whereLayer("Local")
          .mayNotBeAccessedByAnyLayer()
          .whereLayer("Remote")
          .mayNotBeAccessedByAnyLayer();

  static final ArchRule NO_ENGINE_OR_SERVER_FRAMEWORK =
      noClasses()
          .that()
          .resideInAPackage("io.firn.worker..")
          .should()
          .dependOnClassesThat()
          .resideInAnyPackage(
              "org.apache.flink..",
              "org.apache.spark..",
              "io.dropwizard..",
              "jakarta.ws..",
              "org.quartz..",
              "io.firn.server..",
              "io.firn.ingest..")
          .because("every runtime (in-thread, Flink, Spark) and the server host this module");

  @Test
  void layersDependDownwardOnly() {
    LAYERS.check(worker);
  }

  @Test
  void noEngineOrServerFramework() {
    NO_ENGINE_OR_SERVER_FRAMEWORK.check(worker);
  }
}
