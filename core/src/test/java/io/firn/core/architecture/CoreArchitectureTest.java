/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.core.architecture;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.properties.HasName.Predicates.name;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.EvaluationResult;
import io.firn.core.plan.PlannerThatReadsAFile;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The boundaries of {@code firn-core} that the compiler does not see (ARCHITECTURE.md,
 * "Boundaries"): the planner is pure, core knows no engine, framework or other Firn module. Checked
 * on the production classes; the last test shows a rule failing on a class that breaks it.
 */
class CoreArchitectureTest {
  private static JavaClasses core;

  @BeforeAll
  static void importCore() {
    core =
        new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("io.firn.core");
  }

  /**
   * The planner decides from files, policy, history and a clock it is given: no file, network,
   * catalog or table access, and no clock of its own, so a plan is reproducible and testable.
   */
  static final ArchRule PLANNING_DOES_NO_IO =
      noClasses()
          .that()
          .resideInAPackage("io.firn.core.plan..")
          .should()
          .dependOnClassesThat()
          .resideInAnyPackage(
              "java.io..",
              "java.nio.file..",
              "java.nio.channels..",
              "java.net..",
              "java.sql..",
              "org.apache.iceberg.io..",
              "org.apache.iceberg.catalog..",
              "org.apache.hadoop..",
              "io.firn.core.catalog..",
              "io.firn.core.io..",
              "io.firn.core.maintenance..")
          .orShould()
          .callMethod(System.class, "currentTimeMillis")
          .orShould()
          .callMethod(java.time.Instant.class, "now")
          .orShould()
          .callMethod(java.time.Clock.class, "systemUTC")
          .orShould()
          .dependOnClassesThat()
          .haveFullyQualifiedName("org.apache.iceberg.Table")
          .because("the planner is pure: files + policy + history + clock in, a plan out");

  static final ArchRule CORE_KNOWS_NO_ENGINE_OR_FRAMEWORK =
      noClasses()
          .that()
          .resideInAPackage("io.firn.core..")
          .should()
          .dependOnClassesThat()
          .resideInAnyPackage(
              "org.apache.flink..",
              "org.apache.spark..",
              "io.dropwizard..",
              "jakarta.ws..",
              "io.micrometer..")
          .orShould()
          .dependOnClassesThat(
              resideInAPackage("org.quartz..").and(not(name("org.quartz.CronExpression"))))
          .because(
              "firn-core is shared by the server, every worker runtime and the ingest job (of"
                  + " Quartz only CronExpression, the one cron validator, ADR 0007)");

  static final ArchRule CORE_KNOWS_NO_OTHER_MODULE =
      noClasses()
          .that()
          .resideInAPackage("io.firn.core..")
          .should()
          .dependOnClassesThat()
          .resideInAnyPackage("io.firn.worker..", "io.firn.server..", "io.firn.ingest..")
          .because("dependencies flow downward only");

  /**
   * The commit contract and the planning front end sit on top of core's other packages: the
   * planner, the scanner, policies and the protocol never reach up to them, and committing does not
   * plan.
   */
  static final ArchRule COMMIT_AND_FRONT_END_ON_TOP =
      noClasses()
          .that()
          .resideInAnyPackage(
              "io.firn.core.plan..",
              "io.firn.core.table..",
              "io.firn.core.policy..",
              "io.firn.core.protocol..",
              "io.firn.core.catalog..",
              "io.firn.core.io..",
              "io.firn.core.maintenance..")
          .should()
          .dependOnClassesThat()
          .resideInAnyPackage("io.firn.core.commit..", "io.firn.core.optimize..")
          .because("dependencies flow downward inside core too (ARCHITECTURE.md, \"Boundaries\")");

  static final ArchRule COMMITTING_DOES_NOT_PLAN =
      noClasses()
          .that()
          .resideInAPackage("io.firn.core.commit..")
          .should()
          .dependOnClassesThat()
          .resideInAPackage("io.firn.core.optimize..")
          .because("the commit contract takes a plan and results; it never makes a plan");

  @Test
  void commitAndFrontEndOnTop() {
    COMMIT_AND_FRONT_END_ON_TOP.check(core);
  }

  @Test
  void committingDoesNotPlan() {
    COMMITTING_DOES_NOT_PLAN.check(core);
  }

  @Test
  void planningDoesNoIo() {
    PLANNING_DOES_NO_IO.check(core);
  }

  @Test
  void coreKnowsNoEngineOrFramework() {
    CORE_KNOWS_NO_ENGINE_OR_FRAMEWORK.check(core);
  }

  @Test
  void coreKnowsNoOtherModule() {
    CORE_KNOWS_NO_OTHER_MODULE.check(core);
  }

  @Test
  void aPlannerThatReadsAFileBreaksTheRule() {
    JavaClasses violating = new ClassFileImporter().importClasses(PlannerThatReadsAFile.class);

    EvaluationResult result = PLANNING_DOES_NO_IO.evaluate(violating);

    assertThat(result.hasViolation()).isTrue();
    assertThat(result.getFailureReport().getDetails())
        .anyMatch(d -> d.contains("PlannerThatReadsAFile") && d.contains("java.nio.file.Files"))
        .anyMatch(d -> d.contains("PlannerThatReadsAFile") && d.contains("Instant.now()"));
  }
}
