/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.server.policy;

import io.dropwizard.lifecycle.Managed;
import io.firn.server.policy.WindowCalendar.Opening;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Date;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;
import org.quartz.Job;
import org.quartz.JobBuilder;
import org.quartz.JobDataMap;
import org.quartz.JobDetail;
import org.quartz.JobExecutionContext;
import org.quartz.JobExecutionException;
import org.quartz.Scheduler;
import org.quartz.SchedulerException;
import org.quartz.SimpleScheduleBuilder;
import org.quartz.Trigger;
import org.quartz.TriggerBuilder;
import org.quartz.impl.StdSchedulerFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tells a {@link WindowListener} when policy windows open and close, driven by a Quartz scheduler
 * (in-memory job store, one thread of its own).
 *
 * <p>For each window one Quartz trigger is pending at a time: at the end of its current opening
 * when it is open, else at the start of its next one. When a trigger fires, the scheduler looks at
 * the calendar at the trigger's instant, tells the listener about a change, and schedules the
 * window's next transition. {@link #reschedule(WindowCalendar)} (on policy reload) drops all
 * triggers, tells the listener about windows that opened or closed with the new calendar (a window
 * the new policy no longer has counts as closed), and schedules anew. The Quartz job only calls
 * back; the callbacks are notifications: whether work may start is decided by {@link
 * PolicyDecisions} over the calendar, not by the last callback.
 *
 * <p>The listener is called on the Quartz thread or the reloading thread, one call at a time, with
 * the scheduler's lock held: it must return quickly and must not call back into this scheduler. A
 * listener that throws is logged; the schedule goes on.
 */
public final class WindowScheduler implements Managed {
  private static final Logger LOG = LoggerFactory.getLogger(WindowScheduler.class);
  private static final AtomicInteger INSTANCES = new AtomicInteger();
  private static final String CONTEXT_KEY = "firn.windowScheduler";
  private static final String GROUP = "firn-windows";

  private final WindowListener listener;
  private final Clock clock;
  private final String instanceName = "firn-windows-" + INSTANCES.incrementAndGet();
  private final Set<String> open = new LinkedHashSet<>();
  private final Map<String, Transition> pending = new LinkedHashMap<>();
  private WindowCalendar calendar;
  private @Nullable Scheduler scheduler;
  private long generation;
  private long sequence;

  /** Receives window transitions. */
  public interface WindowListener {
    /** Window {@code name} opened (or is open when the scheduler starts or a policy is loaded). */
    void windowOpened(String name);

    /** Window {@code name} closed (or the reloaded policy closed or removed it). */
    void windowClosed(String name);
  }

  /**
   * A scheduled transition.
   *
   * @param window the window's name
   * @param opens true when the window opens at {@code at}, false when it closes
   * @param at when
   */
  public record Transition(String window, boolean opens, Instant at) {}

  /**
   * @param calendar the windows to start with
   * @param clock what "now" is when starting and rescheduling (Quartz itself fires on the system
   *     clock, so use {@link Clock#systemUTC()} outside tests of the initial state)
   */
  public WindowScheduler(WindowCalendar calendar, WindowListener listener, Clock clock) {
    this.calendar = calendar;
    this.listener = listener;
    this.clock = clock;
  }

  /**
   * A scheduler over the registry's calendar that reschedules whenever the registry loads a new
   * policy.
   */
  public static WindowScheduler following(
      PolicyRegistry registry, WindowListener listener, Clock clock) {
    WindowScheduler scheduler = new WindowScheduler(registry.calendar(), listener, clock);
    registry.addListener(loaded -> scheduler.reschedule(loaded.calendar()));
    return scheduler;
  }

  @Override
  public synchronized void start() throws SchedulerException {
    if (scheduler != null) {
      return;
    }
    Properties properties = new Properties();
    properties.setProperty(StdSchedulerFactory.PROP_SCHED_INSTANCE_NAME, instanceName);
    properties.setProperty(StdSchedulerFactory.PROP_SCHED_MAKE_SCHEDULER_THREAD_DAEMON, "true");
    properties.setProperty(StdSchedulerFactory.PROP_SCHED_INTERRUPT_JOBS_ON_SHUTDOWN, "false");
    properties.setProperty("org.quartz.scheduler.rmi.export", "false");
    properties.setProperty("org.quartz.scheduler.rmi.proxy", "false");
    properties.setProperty("org.quartz.threadPool.class", "org.quartz.simpl.SimpleThreadPool");
    properties.setProperty("org.quartz.threadPool.threadCount", "1");
    properties.setProperty("org.quartz.threadPool.threadNamePrefix", instanceName + "-worker");
    properties.setProperty("org.quartz.threadPool.makeThreadsDaemons", "true");
    properties.setProperty("org.quartz.jobStore.class", "org.quartz.simpl.RAMJobStore");
    properties.setProperty("org.quartz.jobStore.misfireThreshold", "5000");
    Scheduler s = new StdSchedulerFactory(properties).getScheduler();
    s.getContext().put(CONTEXT_KEY, this);
    s.start();
    scheduler = s;
    reschedule(calendar);
  }

  @Override
  public void stop() throws SchedulerException {
    Scheduler s;
    synchronized (this) {
      s = scheduler;
      scheduler = null;
      pending.clear();
    }
    if (s != null) {
      s.shutdown(true); // outside the lock: a running job may be waiting for it
    }
  }

  /**
   * Switches to {@code next}: drops all triggers, tells the listener which windows opened or
   * closed, and schedules the next transition of every window. Before {@link #start()}, only
   * remembers the calendar.
   */
  public synchronized void reschedule(WindowCalendar next) {
    calendar = next;
    generation++;
    if (scheduler == null) {
      return;
    }
    try {
      scheduler.clear();
    } catch (SchedulerException e) {
      throw new IllegalStateException("cannot clear the window scheduler", e);
    }
    pending.clear();
    Instant now = clock.instant();
    for (String name : new ArrayList<>(open)) {
      if (!next.windows().containsKey(name) || !next.isOpen(name, now)) {
        notify(name, false);
      }
    }
    for (String name : next.windows().keySet()) {
      settle(name, now);
    }
  }

  /** The windows the listener was last told are open, in the order they opened. */
  public synchronized Set<String> openWindows() {
    return Collections.unmodifiableSet(new LinkedHashSet<>(open));
  }

  /** The pending transition of each window that has one. */
  public synchronized List<Transition> pending() {
    return List.copyOf(pending.values());
  }

  /** Called by {@link TransitionJob} when a trigger fires. */
  synchronized void fired(String window, long triggerGeneration, Instant at) {
    if (triggerGeneration != generation || scheduler == null) {
      return; // a trigger of a calendar replaced while it fired
    }
    pending.remove(window);
    Instant now = clock.instant();
    Optional<Transition> next = transition(window, at);
    if (next.isPresent() && !next.get().at().isAfter(now)) {
      at = now; // fired late past the following transition too: catch up in one step
    }
    settle(window, at);
  }

  /** Tells the listener the window's state at {@code at} and schedules its next transition. */
  private void settle(String window, Instant at) {
    notify(window, calendar.isOpen(window, at));
    transition(window, at).ifPresent(this::schedule);
  }

  private Optional<Transition> transition(String window, Instant at) {
    Optional<Opening> current = calendar.current(window, at);
    if (current.isPresent()) {
      return current.get().end().map(end -> new Transition(window, false, end));
    }
    return calendar.next(window, at).map(o -> new Transition(window, true, o.start()));
  }

  private void notify(String window, boolean isOpen) {
    try {
      if (isOpen && open.add(window)) {
        LOG.info("Window {} opened", window);
        listener.windowOpened(window);
      } else if (!isOpen && open.remove(window)) {
        LOG.info("Window {} closed", window);
        listener.windowClosed(window);
      }
    } catch (RuntimeException e) {
      LOG.error("Window listener failed on {} {}", window, isOpen ? "opening" : "closing", e);
    }
  }

  private void schedule(Transition transition) {
    String id = transition.window() + "-" + generation + "-" + sequence++;
    JobDataMap data = new JobDataMap();
    data.put(TransitionJob.WINDOW, transition.window());
    data.put(TransitionJob.GENERATION, generation);
    data.put(TransitionJob.AT, transition.at().toEpochMilli());
    JobDetail job =
        JobBuilder.newJob(TransitionJob.class).withIdentity(id, GROUP).usingJobData(data).build();
    Trigger trigger =
        TriggerBuilder.newTrigger()
            .withIdentity(id, GROUP)
            .startAt(Date.from(transition.at()))
            .withSchedule(
                SimpleScheduleBuilder.simpleSchedule().withMisfireHandlingInstructionFireNow())
            .build();
    Scheduler s = scheduler;
    if (s == null) {
      throw new IllegalStateException("cannot schedule " + transition + ": not started");
    }
    try {
      s.scheduleJob(job, trigger);
    } catch (SchedulerException e) {
      throw new IllegalStateException("cannot schedule " + transition, e);
    }
    pending.put(transition.window(), transition);
  }

  /** The Quartz job: hands the transition back to its {@link WindowScheduler}; no logic here. */
  public static final class TransitionJob implements Job {
    static final String WINDOW = "window";
    static final String GENERATION = "generation";
    static final String AT = "at";

    public TransitionJob() {}

    @Override
    public void execute(JobExecutionContext context) throws JobExecutionException {
      JobDataMap data = context.getMergedJobDataMap();
      try {
        WindowScheduler owner =
            (WindowScheduler) context.getScheduler().getContext().get(CONTEXT_KEY);
        if (owner == null) {
          throw new JobExecutionException("no window scheduler in the Quartz context");
        }
        owner.fired(
            data.getString(WINDOW),
            data.getLongValue(GENERATION),
            Instant.ofEpochMilli(data.getLongValue(AT)));
      } catch (SchedulerException | RuntimeException e) {
        throw new JobExecutionException(e);
      }
    }
  }
}
