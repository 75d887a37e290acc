/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dropwizard.configuration.ConfigurationParsingException;
import io.dropwizard.core.cli.Cli;
import io.dropwizard.core.setup.Bootstrap;
import io.dropwizard.util.JarLocation;
import io.firn.core.catalog.CatalogSettings;
import io.firn.server.testing.ConfigurationFiles;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FirnServerConfigurationTest {
  @TempDir Path dir;

  private FirnServerConfiguration parse(String yaml) throws Exception {
    Path file = dir.resolve("firn-server.yaml");
    Files.writeString(file, yaml);
    return ConfigurationFiles.read(file);
  }

  @Test
  void readsCatalogsPatternsStateStoreAndWatchInterval() throws Exception {
    FirnServerConfiguration configuration =
        parse(
            """
            catalogs:
              - name: lake
                uri: jdbc:sqlite:/data/catalog.db
                warehouse: /data/warehouse
                properties:
                  jdbc.schema-version: V1
            tables:
              include: ["lake.db.*"]
              exclude: ["lake.db.tmp_*"]
            stateStore:
              url: jdbc:postgresql://127.0.0.1:5432/firn
              user: firn
            watch:
              interval: 5s
            """);

    assertThat(configuration.getCatalogs().get(0).settings())
        .isEqualTo(
            new CatalogSettings(
                "lake",
                "jdbc",
                "jdbc:sqlite:/data/catalog.db",
                "/data/warehouse",
                Map.of("jdbc.schema-version", "V1")));
    assertThat(configuration.getTables().patterns().matches("lake.db.events")).isTrue();
    assertThat(configuration.getTables().patterns().matches("lake.db.tmp_1")).isFalse();
    assertThat(configuration.getTables().patterns().matches("other.db.events")).isFalse();
    assertThat(configuration.getStateStore().getUrl())
        .isEqualTo("jdbc:postgresql://127.0.0.1:5432/firn");
    assertThat(configuration.getWatch().getInterval().toJavaDuration())
        .isEqualTo(Duration.ofSeconds(5));
  }

  @Test
  void defaultsToAnEmbeddedH2StateStoreAndEveryTable() throws Exception {
    FirnServerConfiguration configuration = parse("catalogs: []\n");

    assertThat(configuration.getStateStore().getUrl()).isEqualTo("jdbc:h2:file:./firn-state/firn");
    assertThat(configuration.getTables().patterns().matches("any.name.space.table")).isTrue();
    assertThat(configuration.getWatch().getInterval().toJavaDuration())
        .isEqualTo(Duration.ofSeconds(30));
  }

  @Test
  void rejectsAnUnknownKeyNamingIt() {
    assertThatThrownBy(() -> parse("stateStore:\n  urll: jdbc:h2:mem:x\n"))
        .isInstanceOf(ConfigurationParsingException.class)
        .hasMessageContaining("Unrecognized field at: stateStore.urll")
        .hasMessageContaining("Did you mean?:\n      - url");
  }

  @Test
  void aSectionWithoutKeysMeansItsDefaults() throws Exception {
    // Every key under a section commented out: YAML reads the section as null. It used to reach
    // the consistency check as null and fail it with "HV000028: Unexpected exception during
    // isValid call" (a NullPointerException), naming no key.
    FirnServerConfiguration configuration =
        parse(
            """
            catalogs:
            tables:
            stateStore:
            watch:
            optimizing:
            auth:
            metrics:
            policies:
            ha:
            maintenance:
            """);

    assertThat(configuration.getCatalogs()).isEmpty();
    assertThat(configuration.getTables().patterns().matches("lake.db.events")).isTrue();
    assertThat(configuration.getStateStore().getUrl())
        .isEqualTo(StateStoreConfiguration.DEFAULT_URL);
    assertThat(configuration.getAuth().getWorkerToken()).isNull();
    assertThat(configuration.getPolicies().getPath()).isNull();
    assertThat(configuration.getHa().isEnabled()).isFalse();
    assertThat(configuration.getMaintenance()).isEmpty();
    assertThat(configuration.problems()).isEmpty();
  }

  @Test
  void rejectsAnEmptyCatalogEntryPatternOrPropertyNamingIt() {
    // Each used to pass validation and fail later: the server's start with a
    // NullPointerException, or the check with the message "catalogs[0]: null".
    assertThatThrownBy(() -> parse("catalogs:\n  - name: lake\n    uri: jdbc:sqlite:x\n  -\n"))
        .isInstanceOf(ConfigurationParsingException.class)
        .hasMessageContaining(
            "Failed to parse configuration at: catalogs.[1]; Invalid `null` value encountered");
    assertThatThrownBy(() -> parse("tables:\n  include: [\"lake.*\", ~]\n"))
        .isInstanceOf(ConfigurationParsingException.class)
        .hasMessageContaining(
            "Failed to parse configuration at: tables.include.[1]; Invalid `null` value");
    assertThatThrownBy(() -> parse("tables:\n  exclude: [~]\n"))
        .isInstanceOf(ConfigurationParsingException.class)
        .hasMessageContaining(
            "Failed to parse configuration at: tables.exclude.[0]; Invalid `null` value");
    assertThatThrownBy(
            () ->
                parse(
                    """
                    catalogs:
                      - name: lake
                        uri: jdbc:sqlite:x
                        warehouse: /w
                        properties:
                          jdbc.user:
                    """))
        .isInstanceOf(ConfigurationParsingException.class)
        .hasMessageContaining("Failed to parse configuration at: catalogs.[0].properties.jdbc.user")
        .hasMessageContaining("Invalid `null` value");
  }

  @Test
  void rejectsAnUnknownKeyInsideACatalog() {
    assertThatThrownBy(
            () ->
                parse(
                    """
                    catalogs:
                      - name: lake
                        uri: jdbc:sqlite:/data/catalog.db
                        warehous: /data/warehouse
                    """))
        .isInstanceOf(ConfigurationParsingException.class)
        .hasMessageContaining("Unrecognized field at: catalogs.[0].warehous")
        .hasMessageContaining("Did you mean?:\n      - warehouse");
  }

  @Test
  void checkCommandValidatesAFileWithoutStartingAnything() throws Exception {
    Path good = dir.resolve("good.yaml");
    Files.writeString(good, "catalogs: []\nwatch:\n  interval: 1s\n");
    Path bad = dir.resolve("bad.yaml");
    Files.writeString(bad, "watch:\n  intervall: 1s\n");

    assertThat(check(good)).isEmpty();
    assertThat(lastOutput)
        .contains("configuration " + good + " is valid; the server would use:")
        .contains("catalogs: none")
        .contains("watch: every 1 second");
    assertThat(check(bad))
        .get()
        .asInstanceOf(InstanceOfAssertFactories.THROWABLE)
        .hasMessageContaining("Unrecognized field at: watch.intervall");
  }

  @Test
  void checkRefusesWhatTheServerWouldRefuseNamingEachYamlKey() throws Exception {
    Path bad = dir.resolve("inconsistent.yaml");
    Files.writeString(
        bad,
        """
        catalogs:
          - name: lake
            type: jdbc
            warehouse: /data/warehouse
          - name: lake
            uri: jdbc:sqlite:/data/catalog.db
            warehouse: /data/warehouse
          - name: other
            type: nessie
        maintenance:
          expire-snapshot.max-age: 1h
        policies:
          path: %s
        """
            .formatted(dir.resolve("no-such-policy.yaml")));

    assertThat(check(bad))
        .get()
        .asInstanceOf(InstanceOfAssertFactories.THROWABLE)
        .hasMessageContaining(
            "catalogs[0]: catalog 'lake' of type jdbc needs a uri (key 'uri', on the command line")
        .hasMessageContaining("catalogs[1]: the name 'lake' is used more than once")
        .hasMessageContaining(
            "catalogs[2]: catalog 'other': type 'nessie' is not one of jdbc, hadoop, rest, hive,"
                + " glue, custom")
        .hasMessageContaining("maintenance: unknown maintenance key(s) [expire-snapshot.max-age]")
        .hasMessageContaining(
            "policies.path: " + dir.resolve("no-such-policy.yaml") + " does not exist");
    assertThatThrownBy(() -> parse(Files.readString(bad)))
        .as("the server refuses the same file before it starts")
        .hasMessageContaining("catalogs[1]: the name 'lake' is used more than once");

    Path policy = dir.resolve("bad-policy.yaml");
    Files.writeString(policy, "version: 1\nwindows:\n  nightly: {cron: \"not a cron\"}\n");
    Path withPolicy = dir.resolve("with-policy.yaml");
    Files.writeString(withPolicy, "catalogs: []\npolicies:\n  path: " + policy + "\n");
    assertThat(check(withPolicy))
        .get()
        .asInstanceOf(InstanceOfAssertFactories.THROWABLE)
        .hasMessageContaining("policies.path: ");
  }

  @Test
  void aSchedulingIntervalOutOfItsRangeOrNoDurationIsRefusedByName() throws Exception {
    Path bad = dir.resolve("interval.yaml");
    for (String value : new String[] {"0ms", "2h"}) {
      Files.writeString(bad, "catalogs: []\noptimizing:\n  schedulingInterval: " + value + "\n");
      assertThat(check(bad))
          .as(value)
          .get()
          .asInstanceOf(InstanceOfAssertFactories.THROWABLE)
          .hasMessageContaining("optimizing.schedulingInterval must be");
    }
    Files.writeString(bad, "catalogs: []\noptimizing:\n  schedulingInterval: soon\n");
    assertThat(check(bad))
        .get()
        .asInstanceOf(InstanceOfAssertFactories.THROWABLE)
        .hasMessageContaining("schedulingInterval");
    Files.writeString(bad, "catalogs: []\noptimizing:\n  schedulingInterval: 2s\n");
    assertThat(check(bad)).isEmpty();
  }

  @Test
  void severalReplicasNeedAnAdvertisedUrlASharedStoreAndTwoRenewalsPerLease() throws Exception {
    Path bad = dir.resolve("ha.yaml");
    Files.writeString(
        bad,
        """
        catalogs: []
        stateStore:
          url: "jdbc:h2:mem:firn"
        ha:
          enabled: true
          leaseTtl: 10s
          renewInterval: 6s
        """);
    assertThat(check(bad))
        .get()
        .asInstanceOf(InstanceOfAssertFactories.THROWABLE)
        .hasMessageContaining("ha.advertisedUrl: required when ha.enabled is true")
        .hasMessageContaining("ha.renewInterval (6 seconds) must be at most half of ha.leaseTtl")
        .hasMessageContaining("ha.enabled: the replicas must share their state store");
    Files.writeString(
        bad, "catalogs: []\nha:\n  enabled: true\n  advertisedUrl: \"firn-0:8080\"\n");
    assertThat(check(bad))
        .get()
        .asInstanceOf(InstanceOfAssertFactories.THROWABLE)
        .hasMessageContaining("ha.advertisedUrl: 'firn-0:8080' is not an http(s) URL with a host");
    assertThat(parse("catalogs: []\n").getHa().isEnabled()).as("off by default").isFalse();
  }

  @Test
  void checkPrintsWhatTheServerWouldUseWithoutCredentials() throws Exception {
    Path policy = dir.resolve("policy.yaml");
    Files.writeString(
        policy,
        "version: 1\nwindows:\n  night: {time-zone: UTC, start: \"01:00\", end: \"05:00\"}\n"
            + "rules:\n  - name: orders\n    match: \"lake.db.orders\"\n    priority: 5\n");
    Path file = dir.resolve("full.yaml");
    Files.writeString(
        file,
        """
        catalogs:
          - name: lake
            type: jdbc
            uri: jdbc:postgresql://db:5432/lake?password=hunter2
            warehouse: /data/warehouse
            properties:
              jdbc.password: hunter3
          - name: hms
            uri: thrift://metastore:9083
          - name: aws
            type: glue
            warehouse: s3://lake/wh
            properties:
              client.region: eu-west-1
              glue.id: "123456789012"
        tables:
          include: ["lake.db.*"]
        stateStore:
          url: jdbc:postgresql://db:5432/firn?user=firn&password=hunter4
        auth:
          workerToken: w-token-value
        policies:
          path: %s
        server:
          applicationConnectors: [{type: http, port: 8181}]
          adminConnectors: [{type: http, bindHost: 127.0.0.1, port: 8182}]
        """
            .formatted(policy));

    assertThat(check(file)).isEmpty();

    assertThat(lastOutput)
        .contains("catalog lake: jdbc jdbc:postgresql://db:5432/lake")
        .contains("warehouse /data/warehouse")
        .contains("credentials [jdbc.password, uri (password=)] (not shown)")
        .contains("catalog hms: hive thrift://metastore:9083\n")
        .contains(
            "catalog aws: glue the AWS Glue endpoint of its region, region eu-west-1, catalog id"
                + " 123456789012, warehouse s3://lake/wh")
        .contains("tables: include [lake.db.*]")
        .contains("state store: jdbc:postgresql://db:5432/firn")
        .contains("policies: " + policy + ": 1 rule(s), windows [night]")
        .contains("auth: worker token set, admin token NOT set")
        .contains("application connectors: all interfaces:8181")
        .contains("admin connectors: 127.0.0.1:8182")
        .doesNotContain("hunter2", "hunter3", "hunter4", "w-token-value");
  }

  private static String lastOutput = "";

  private static Optional<Throwable> check(Path file) throws Exception {
    FirnServerApplication application = new FirnServerApplication();
    Bootstrap<FirnServerConfiguration> bootstrap = new Bootstrap<>(application);
    application.initialize(bootstrap);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    PrintStream print = new PrintStream(out, true, StandardCharsets.UTF_8);
    bootstrap.addCommand(new ServerCheckCommand(print));
    Optional<Throwable> result =
        new Cli(new JarLocation(FirnServerApplication.class), bootstrap, print, print)
            .run("check", file.toString());
    lastOutput = out.toString(StandardCharsets.UTF_8);
    return result;
  }
}
