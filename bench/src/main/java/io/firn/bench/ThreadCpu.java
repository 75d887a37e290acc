/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * CPU time per thread over a run, grouped by thread name without Flink's subtask suffix: sampled
 * every 100 ms (a thread's CPU counter dies with the thread, so the last sample is what it used; up
 * to 100 ms of a thread's end is lost). Unlike JFR's execution samples, which are capped per
 * period, these compare across runs with different numbers of threads.
 */
final class ThreadCpu implements AutoCloseable {
  private final ThreadMXBean threads = ManagementFactory.getThreadMXBean();
  private final Map<Long, Long> cpu = new HashMap<>();
  private final Map<Long, String> names = new HashMap<>();
  private final Map<Long, Long> start = new HashMap<>();
  private final Thread sampler;
  private volatile boolean running = true;

  ThreadCpu() {
    sample(true);
    sampler =
        new Thread(
            () -> {
              while (running) {
                sample(false);
                try {
                  Thread.sleep(100);
                } catch (InterruptedException e) {
                  return;
                }
              }
            },
            "bench-thread-cpu");
    sampler.setDaemon(true);
    sampler.start();
  }

  private synchronized void sample(boolean first) {
    for (ThreadInfo info : threads.getThreadInfo(threads.getAllThreadIds())) {
      if (info == null) {
        continue;
      }
      long nanos = threads.getThreadCpuTime(info.getThreadId());
      if (nanos < 0) {
        continue;
      }
      if (first) {
        start.put(info.getThreadId(), nanos);
      }
      cpu.put(info.getThreadId(), nanos);
      names.put(info.getThreadId(), info.getThreadName());
    }
  }

  @Override
  public void close() {
    running = false;
    sampler.interrupt();
    sample(false);
  }

  /** CPU seconds per thread group, the largest first, groups under 2 % of the total left out. */
  synchronized String summary() {
    Map<String, Double> groups = new TreeMap<>();
    double total = 0;
    for (Map.Entry<Long, Long> entry : cpu.entrySet()) {
      double seconds = (entry.getValue() - start.getOrDefault(entry.getKey(), 0L)) / 1e9;
      String name =
          names
              .get(entry.getKey())
              .replaceAll(" \\(\\d+/\\d+\\)#\\d+", "")
              .replaceAll("[0-9a-f]{8}-[0-9a-f-]{27}", "*")
              .replaceAll("-\\d+$", "-N");
      groups.merge(name, seconds, Double::sum);
      total += seconds;
    }
    double all = total;
    return groups.entrySet().stream()
        .filter(e -> e.getValue() >= 0.02 * all)
        .sorted(Map.Entry.<String, Double>comparingByValue().reversed())
        .map(e -> String.format(Locale.ROOT, "%s %.1f s", e.getKey(), e.getValue()))
        .collect(Collectors.joining("; "));
  }
}
