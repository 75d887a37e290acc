/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.server.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.dropwizard.core.setup.Bootstrap;
import io.firn.server.FirnServerApplication;
import io.firn.server.FirnServerConfiguration;
import io.firn.server.TableSummary;
import io.firn.server.optimizing.ProcessRecord;
import io.firn.server.optimizing.ProcessStatus;
import io.firn.server.optimizing.TableStateRecord;
import io.firn.server.optimizing.TableStatus;
import io.firn.server.optimizing.TaskRecord;
import io.firn.server.optimizing.TaskStatus;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The JSON of the stored records, as the REST API writes them (the application's own object
 * mapper), byte for byte: statuses are the lower-case labels of openapi.yaml, instants ISO-8601.
 */
class RecordsJsonTest {
  private static final Instant T0 = Instant.parse("2026-12-02T10:00:00Z");

  private static ObjectMapper mapper() {
    FirnServerApplication application = new FirnServerApplication();
    Bootstrap<FirnServerConfiguration> bootstrap = new Bootstrap<>(application);
    application.initialize(bootstrap);
    return bootstrap.getObjectMapper();
  }

  @Test
  void aProcessWithItsTasks() throws Exception {
    ProcessRecord process =
        new ProcessRecord(
            "p1",
            "lake",
            "db",
            "events",
            "minor",
            "manual",
            ProcessStatus.PARTIAL,
            42L,
            2,
            2,
            1000,
            T0,
            T0.plusSeconds(30),
            "1 of 2 partition(s) committed",
            1,
            1,
            10,
            2000,
            900);
    TaskRecord task =
        new TaskRecord(
            "p1",
            0,
            "day=2026-12-01",
            TaskStatus.COMMITTED,
            1,
            "p1-t0-a1",
            "w-1",
            3,
            0,
            500,
            T0.plusSeconds(1),
            T0.plusSeconds(9),
            "committed",
            12,
            10,
            450);
    TaskRecord waiting =
        new TaskRecord(
            "p1",
            1,
            "day=2026-12-02",
            TaskStatus.PENDING,
            0,
            null,
            null,
            1,
            1,
            500,
            null,
            null,
            "waiting",
            0,
            0,
            0);
    assertThat(
            mapper()
                .writeValueAsString(
                    new ProcessesResource.ProcessDetail(process, List.of(task, waiting))))
        .isEqualTo(
            "{\"process\":{\"processId\":\"p1\",\"catalog\":\"lake\",\"namespace\":\"db\","
                + "\"table\":\"events\",\"type\":\"minor\",\"trigger\":\"manual\","
                + "\"status\":\"partial\",\"snapshotId\":42,\"partitions\":2,\"tasks\":2,"
                + "\"rewriteBytes\":1000,\"createdAt\":\"2026-12-02T10:00:00Z\","
                + "\"finishedAt\":\"2026-12-02T10:00:30Z\","
                + "\"message\":\"1 of 2 partition(s) committed\",\"committedGroups\":1,"
                + "\"failedGroups\":1,\"rowsWritten\":10,\"bytesRead\":2000,\"bytesWritten\":900},"
                + "\"tasks\":[{\"processId\":\"p1\",\"taskNumber\":0,"
                + "\"partition\":\"day=2026-12-01\",\"status\":\"committed\",\"attempts\":1,"
                + "\"attemptId\":\"p1-t0-a1\",\"workerId\":\"w-1\",\"rewriteFiles\":3,"
                + "\"convertFiles\":0,\"rewriteBytes\":500,\"startedAt\":\"2026-12-02T10:00:01Z\","
                + "\"finishedAt\":\"2026-12-02T10:00:09Z\",\"message\":\"committed\","
                + "\"rowsRead\":12,\"rowsWritten\":10,\"bytesWritten\":450},"
                + "{\"processId\":\"p1\",\"taskNumber\":1,\"partition\":\"day=2026-12-02\","
                + "\"status\":\"pending\",\"attempts\":0,\"attemptId\":null,\"workerId\":null,"
                + "\"rewriteFiles\":1,\"convertFiles\":1,\"rewriteBytes\":500,\"startedAt\":null,"
                + "\"finishedAt\":null,\"message\":\"waiting\",\"rowsRead\":0,\"rowsWritten\":0,"
                + "\"bytesWritten\":0}]}");
  }

  @Test
  void aTableState() throws Exception {
    TableStateRecord table =
        new TableStateRecord(
            "lake",
            "db",
            "events",
            42L,
            true,
            "2 of 4 partition(s) due",
            T0,
            TableStatus.PARKED,
            T0.plusSeconds(5),
            false,
            "3 failures",
            T0.plusSeconds(3600),
            3,
            "p1",
            61,
            40,
            12,
            3,
            TableSummary.of(9_000, 8_000, 40, 1_234, 7, 3));
    assertThat(mapper().writeValueAsString(table))
        .isEqualTo(
            "{\"catalog\":\"lake\",\"namespace\":\"db\",\"table\":\"events\",\"snapshotId\":42,"
                + "\"needsPlan\":true,\"reason\":\"2 of 4 partition(s) due\","
                + "\"evaluatedAt\":\"2026-12-02T10:00:00Z\",\"status\":\"parked\","
                + "\"since\":\"2026-12-02T10:00:05Z\",\"paused\":false,"
                + "\"parkedReason\":\"3 failures\",\"parkedUntil\":\"2026-12-02T11:00:00Z\","
                + "\"failures\":3,\"lastProcessId\":\"p1\",\"health\":61,\"dataFiles\":40,"
                + "\"equalityDeleteFiles\":12,\"positionDeleteFiles\":3,"
                + "\"summary\":{\"totalBytes\":9000,\"dataBytes\":8000,\"averageDataFileBytes\":200,"
                + "\"records\":1234,\"snapshots\":7,\"manifests\":3}}");
  }
}
