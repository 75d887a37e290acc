/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.ingest;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.SplittableRandom;
import org.jspecify.annotations.Nullable;

/**
 * The built-in realistic event stream (the generator's {@code profile: stream}): {@code
 * order_events}, {@code interaction_events} and {@code user_events} from the start, {@code
 * payment_events} from {@link Settings#newTypeFrom()} on; from {@link Settings#v2From()} on the
 * payloads carry the v2 fields ({@code coupon_code}, {@code user_agent}, {@code scroll_depth},
 * {@code loyalty_tier}). Every table is keyed by {@code id}; keys are updated again and again
 * (orders go created → paid → shipped → delivered, users re-visit, interactions are extended,
 * payments are captured and refunded). Rendered as plain JSON events (routing field {@code
 * event_type}, no deletes: plain JSON only upserts) or as Debezium-style change events ({@code op}
 * c/u/d with {@code before}/{@code after}, the table in {@code source.table}), where cancelled and
 * purged orders, voided payments, erased users and discarded interactions are deletes.
 *
 * <p>Deterministic: event {@code i} of a given {@link Settings} is always the same text. The stream
 * is a state machine over fixed key slots, so {@link #event(long)} is cheapest for ascending
 * indexes; an index below the last one replays from 0. {@link #expectedRows(Settings, long)} is the
 * reference: the rows a correct upsert sink holds after events {@code 0..n-1}.
 *
 * <p>Pure JDK and Jackson (no Flink, no Iceberg), so that tests reading the tables with another
 * engine can compute the reference. Not thread-safe.
 */
public final class EventStream {

  /** The tables of the stream, in order of appearance. */
  public static final List<String> TABLES =
      List.of("order_events", "interaction_events", "user_events", "payment_events");

  /** The fields the v2 payloads add, per table. */
  public static final Map<String, List<String>> V2_FIELDS =
      Map.of(
          "order_events", List.of("coupon_code"),
          "interaction_events", List.of("user_agent", "scroll_depth"),
          "user_events", List.of("loyalty_tier"));

  private static final String[] REGIONS = {"eu-west", "us-east", "ap-south"};
  private static final String[] CURRENCIES = {"EUR", "USD", "INR"};
  private static final String[][] COUNTRIES = {
    {"DE", "FR", "NL", "IE"}, {"US", "CA"}, {"IN", "SG", "JP"}
  };
  private static final String[] PAGES = {"/home", "/search", "/product", "/cart", "/checkout"};
  private static final String[] ACTIONS = {"view", "click", "scroll", "add_to_cart"};
  private static final String[] AGENTS = {
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) Firefox/128.0",
    "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) Safari/605.1.15",
    "Mozilla/5.0 (Linux; Android 14; Pixel 8) Chrome/126.0 Mobile",
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) Mobile/15E148"
  };
  private static final String[] NAMES = {
    "Ada", "Grace", "Linus", "Margaret", "Ken", "Barbara", "Dennis", "Frances", "Edsger", "Radia"
  };
  private static final String[] TIERS = {"bronze", "silver", "gold"};
  private static final String[] METHODS = {"card", "paypal", "bank_transfer"};
  private static final Instant EPOCH = Instant.parse("2026-01-01T00:00:00Z");

  /**
   * What the stream looks like.
   *
   * @param seed varies every random choice
   * @param v2From the first index whose payloads carry the v2 fields
   * @param newTypeFrom the first index that may be a {@code payment_events} event
   * @param format plain JSON events or Debezium-style change events (with deletes)
   * @param badEvery every {@code badEvery}-th event is malformed JSON (0: none)
   * @param orderSlots orders in flight (a slot's next order gets a new key)
   * @param interactionSlots interactions in flight
   * @param users distinct users ({@code u1..uN})
   * @param paymentSlots payments in flight
   */
  public record Settings(
      long seed,
      long v2From,
      long newTypeFrom,
      EventFormat format,
      long badEvery,
      int orderSlots,
      int interactionSlots,
      int users,
      int paymentSlots)
      implements Serializable {
    private static final long serialVersionUID = 1L;

    public Settings {
      if (v2From < 0 || newTypeFrom < 0 || badEvery < 0) {
        throw new IllegalArgumentException("v2From, newTypeFrom and badEvery must be >= 0");
      }
      if (orderSlots < 1 || interactionSlots < 1 || users < 1 || paymentSlots < 1) {
        throw new IllegalArgumentException("key slots must be >= 1");
      }
      if (format == null) {
        throw new IllegalArgumentException("format must be set");
      }
    }

    /** Default key spaces (200 orders, 300 interactions, 100 users, 100 payments in flight). */
    public static Settings of(long seed, long v2From, long newTypeFrom, EventFormat format) {
      return new Settings(seed, v2From, newTypeFrom, format, 0, 200, 300, 100, 100);
    }

    /** These settings with a malformed event every {@code every} events (0: none). */
    public Settings withBadEvery(long every) {
      return new Settings(
          seed,
          v2From,
          newTypeFrom,
          format,
          every,
          orderSlots,
          interactionSlots,
          users,
          paymentSlots);
    }

    /** These settings with other key spaces. */
    public Settings withKeys(int orders, int interactions, int userCount, int payments) {
      return new Settings(
          seed, v2From, newTypeFrom, format, badEvery, orders, interactions, userCount, payments);
    }
  }

  /**
   * One event of the stream.
   *
   * @param index its position
   * @param table the table it changes; null for a malformed event
   * @param key the key it changes ({@link Long} or {@link String}); null for a malformed event
   * @param op {@code c}, {@code u} or {@code d} (plain JSON events are upserts: never {@code d});
   *     null for a malformed event
   * @param payload the event's text
   */
  public record Event(
      long index,
      @Nullable String table,
      @Nullable Object key,
      @Nullable String op,
      String payload) {
    /** Whether the event is deliberately malformed (see {@link Settings#badEvery()}). */
    public boolean malformed() {
      return table == null;
    }
  }

  /** A change of one key: before is null for a create, after null for a delete. */
  private record Change(
      String table,
      Object key,
      String op,
      @Nullable Map<String, Object> before,
      @Nullable Map<String, Object> after) {}

  /** A field every generated row of its table has. */
  private static Object field(Map<String, Object> row, String name) {
    return Objects.requireNonNull(row.get(name), () -> "a generated row without '" + name + "'");
  }

  private final Settings settings;
  private final ObjectMapper mapper = new ObjectMapper();
  private State state;

  public EventStream(Settings settings) {
    this.settings = settings;
    this.state = new State(settings);
  }

  public Settings settings() {
    return settings;
  }

  /** The text of event {@code index}. */
  public String event(long index) {
    return at(index).payload();
  }

  /** Event {@code index}. */
  public Event at(long index) {
    if (index < 0) {
      throw new IllegalArgumentException("event index " + index + " must be >= 0");
    }
    if (index < state.next) {
      state = new State(settings);
    }
    while (state.next < index) {
      state.step();
    }
    Change change = state.step();
    if (change == null) {
      return new Event(index, null, null, null, malformed(index));
    }
    return new Event(index, change.table(), change.key(), change.op(), render(change));
  }

  /**
   * The reference: the rows a correct sink holds after events {@code 0..count-1} — per table, per
   * key, the last image written (a column the image lacks is null in the table); deleted keys are
   * absent. Plain JSON rows include the routing field {@code event_type}, as the table does. Values
   * are {@link Long}, {@link Double} or {@link String}.
   */
  public static Map<String, Map<Object, Map<String, Object>>> expectedRows(
      Settings settings, long count) {
    Map<String, Map<Object, Map<String, Object>>> tables = new LinkedHashMap<>();
    State state = new State(settings);
    for (long i = 0; i < count; i++) {
      Change change = state.step();
      if (change == null) {
        continue;
      }
      Map<Object, Map<String, Object>> rows =
          tables.computeIfAbsent(change.table(), t -> new LinkedHashMap<>());
      if (change.after() == null) {
        rows.remove(change.key());
      } else {
        rows.put(change.key(), jsonImage(settings, change));
      }
    }
    return tables;
  }

  /** The row {@code change} leaves: a change with an after image (plain JSON has no deletes). */
  private static Map<String, Object> jsonImage(Settings settings, Change change) {
    Map<String, Object> after =
        Objects.requireNonNull(change.after(), () -> "a delete leaves no row: " + change.key());
    if (settings.format() != EventFormat.JSON) {
      return after;
    }
    Map<String, Object> event = new LinkedHashMap<>();
    event.put("event_type", change.table());
    event.putAll(after);
    return event;
  }

  private static String malformed(long index) {
    return "{\"event_type\": \"order_events\", \"id\": " + index + ", \"amount\": ";
  }

  private String render(Change change) {
    Object value;
    if (settings.format() == EventFormat.JSON) {
      value = jsonImage(settings, change);
    } else {
      Map<String, Object> event = new LinkedHashMap<>();
      event.put("op", change.op());
      event.put("before", change.before());
      event.put("after", change.after());
      Map<String, Object> source = new LinkedHashMap<>();
      source.put("db", "shop");
      source.put("table", change.table());
      event.put("source", source);
      value = event;
    }
    try {
      return mapper.writeValueAsString(value);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The key slots and what each holds now; {@link #step()} makes the next change. */
  private static final class State {
    private final Settings settings;
    private final boolean cdc;
    private final Slot[] orders;
    private final Slot[] interactions;
    private final Map<String, Object>[] users;
    private final Slot[] payments;
    long next;

    /** A slot's current key generation and row (null: none yet, or deleted). */
    private static final class Slot {
      long generation;
      @Nullable Map<String, Object> row;
    }

    @SuppressWarnings("unchecked")
    State(Settings settings) {
      this.settings = settings;
      this.cdc = settings.format() == EventFormat.DEBEZIUM;
      this.orders = slots(settings.orderSlots());
      this.interactions = slots(settings.interactionSlots());
      this.users = new Map[settings.users()];
      this.payments = slots(settings.paymentSlots());
    }

    private static Slot[] slots(int count) {
      Slot[] slots = new Slot[count];
      for (int i = 0; i < count; i++) {
        slots[i] = new Slot();
      }
      return slots;
    }

    /** The change of event {@link #next} (null: a malformed event), and advance. */
    @Nullable Change step() {
      long i = next++;
      if (settings.badEvery() > 0 && i % settings.badEvery() == settings.badEvery() - 1) {
        return null;
      }
      SplittableRandom random = new SplittableRandom(settings.seed() * 0x9E3779B97F4A7C15L + i);
      boolean v2 = i >= settings.v2From();
      int pick = random.nextInt(100);
      if (i >= settings.newTypeFrom()) {
        if (pick < 25) {
          return order(i, random, v2);
        } else if (pick < 65) {
          return interaction(i, random, v2);
        } else if (pick < 85) {
          return user(i, random, v2);
        }
        return payment(i, random);
      }
      if (pick < 30) {
        return order(i, random, v2);
      } else if (pick < 75) {
        return interaction(i, random, v2);
      }
      return user(i, random, v2);
    }

    private static String time(long i, SplittableRandom random) {
      // 10 events a second of event time; some arrive up to 3 s late.
      long millis = i * 100 - (random.nextInt(10) == 0 ? random.nextInt(3_000) : 0);
      return EPOCH.plusMillis(Math.max(0, millis)).toString();
    }

    private static double money(SplittableRandom random, double min, double max) {
      return Math.round((min + random.nextDouble() * (max - min)) * 100) / 100.0;
    }

    private static long id(Slot slot, int slotIndex, int slots, long base) {
      return base + slot.generation * slots + slotIndex + 1;
    }

    private String userId(SplittableRandom random) {
      return "u" + (random.nextInt(settings.users()) + 1);
    }

    private static int regionOf(String userId) {
      return Math.floorMod(userId.hashCode() * 31 + 7, REGIONS.length);
    }

    private Change order(long i, SplittableRandom random, boolean v2) {
      int index = random.nextInt(orders.length);
      Slot slot = orders[index];
      Map<String, Object> before = slot.row;
      if (before != null) {
        String status = (String) field(before, "status");
        String nextStatus =
            switch (status) {
              case "created" -> random.nextInt(10) == 0 ? "cancelled" : "paid";
              case "paid" -> "shipped";
              case "shipped" -> "delivered";
              default -> null; // delivered or cancelled: the order is done
            };
        if (nextStatus == null || (cdc && nextStatus.equals("cancelled"))) {
          slot.generation++;
          slot.row = null;
          // Change data: cancelled orders and a third of the finished ones are deleted.
          if (cdc && (nextStatus != null || random.nextInt(3) == 0)) {
            return new Change("order_events", field(before, "id"), "d", before, null);
          }
          if (nextStatus == null) {
            return order(i, random, v2, index, slot);
          }
        } else {
          Map<String, Object> after = new LinkedHashMap<>(before);
          after.put("status", nextStatus);
          after.put("event_time", time(i, random));
          if (v2 && !after.containsKey("coupon_code") && random.nextInt(4) == 0) {
            after.put("coupon_code", "SAVE" + (5 + random.nextInt(4) * 5));
          }
          slot.row = after;
          return new Change("order_events", field(after, "id"), "u", before, after);
        }
      }
      return order(i, random, v2, index, slot);
    }

    /** A new order in {@code slot}. */
    private Change order(long i, SplittableRandom random, boolean v2, int index, Slot slot) {
      String customer = userId(random);
      int region = regionOf(customer);
      Map<String, Object> row = new LinkedHashMap<>();
      row.put("id", id(slot, index, orders.length, 100_000));
      row.put("customer_id", customer);
      row.put("status", "created");
      row.put("items", (long) (1 + random.nextInt(5)));
      row.put("amount", money(random, 5, 500));
      row.put("currency", CURRENCIES[region]);
      row.put("region", REGIONS[region]);
      row.put("event_time", time(i, random));
      if (v2 && random.nextInt(3) == 0) {
        row.put("coupon_code", "WELCOME" + (10 + random.nextInt(3) * 5));
      }
      slot.row = row;
      return new Change("order_events", field(row, "id"), "c", null, row);
    }

    private Change interaction(long i, SplittableRandom random, boolean v2) {
      int index = random.nextInt(interactions.length);
      Slot slot = interactions[index];
      Map<String, Object> before = slot.row;
      if (before != null) {
        int choice = random.nextInt(20);
        if (cdc && choice == 0) {
          // Bot traffic discarded.
          slot.generation++;
          slot.row = null;
          return new Change("interaction_events", field(before, "id"), "d", before, null);
        }
        if (choice < 8) {
          Map<String, Object> after = new LinkedHashMap<>(before);
          after.put("action", ACTIONS[random.nextInt(ACTIONS.length)]);
          after.put(
              "duration_ms", (Long) field(before, "duration_ms") + 200 + random.nextInt(5_000));
          after.put("event_time", time(i, random));
          if (v2) {
            after.putIfAbsent("user_agent", AGENTS[random.nextInt(AGENTS.length)]);
            after.put("scroll_depth", Math.round(random.nextDouble() * 100) / 100.0);
          }
          slot.row = after;
          return new Change("interaction_events", field(after, "id"), "u", before, after);
        }
        slot.generation++;
      }
      String user = userId(random);
      Map<String, Object> row = new LinkedHashMap<>();
      row.put("id", id(slot, index, interactions.length, 1_000_000));
      row.put("session_id", String.format(Locale.ROOT, "s-%08x", random.nextInt() & 0x7fffffff));
      row.put("user_id", user);
      row.put("page", PAGES[random.nextInt(PAGES.length)]);
      row.put("action", "view");
      row.put("region", REGIONS[regionOf(user)]);
      row.put("duration_ms", (long) random.nextInt(2_000));
      row.put("event_time", time(i, random));
      if (v2) {
        row.put("user_agent", AGENTS[random.nextInt(AGENTS.length)]);
        row.put("scroll_depth", Math.round(random.nextDouble() * 100) / 100.0);
      }
      slot.row = row;
      return new Change("interaction_events", field(row, "id"), "c", null, row);
    }

    private Change user(long i, SplittableRandom random, boolean v2) {
      int index = random.nextInt(users.length);
      String id = "u" + (index + 1);
      Map<String, Object> before = users[index];
      if (before != null) {
        if (cdc && random.nextInt(25) == 0) {
          // Erased on request.
          users[index] = null;
          return new Change("user_events", id, "d", before, null);
        }
        Map<String, Object> after = new LinkedHashMap<>(before);
        after.put("visits", (Long) field(before, "visits") + 1);
        after.put("event_time", time(i, random));
        if (v2) {
          long visits = (Long) field(after, "visits");
          after.put("loyalty_tier", TIERS[(int) Math.min(2, visits / 4)]);
        }
        users[index] = after;
        return new Change("user_events", id, "u", before, after);
      }
      int region = regionOf(id);
      String[] countries = COUNTRIES[region];
      Map<String, Object> row = new LinkedHashMap<>();
      row.put("id", id);
      row.put("name", NAMES[index % NAMES.length] + " " + (char) ('A' + index % 26) + ".");
      row.put("country", countries[index % countries.length]);
      row.put("region", REGIONS[region]);
      row.put("visits", 1L);
      row.put("event_time", time(i, random));
      if (v2) {
        row.put("loyalty_tier", TIERS[0]);
      }
      users[index] = row;
      return new Change("user_events", id, "c", null, row);
    }

    private Change payment(long i, SplittableRandom random) {
      int index = random.nextInt(payments.length);
      Slot slot = payments[index];
      Map<String, Object> before = slot.row;
      if (before != null) {
        String status = (String) field(before, "status");
        String nextStatus =
            switch (status) {
              case "authorized" -> random.nextInt(12) == 0 ? "voided" : "captured";
              case "captured" -> random.nextInt(5) == 0 ? "refunded" : null;
              default -> null;
            };
        if (nextStatus == null || (cdc && nextStatus.equals("voided"))) {
          slot.generation++;
          slot.row = null;
          if (nextStatus != null) {
            return new Change("payment_events", field(before, "id"), "d", before, null);
          }
        } else {
          Map<String, Object> after = new LinkedHashMap<>(before);
          after.put("status", nextStatus);
          after.put("event_time", time(i, random));
          slot.row = after;
          return new Change("payment_events", field(after, "id"), "u", before, after);
        }
      }
      Slot order = orders[random.nextInt(orders.length)];
      Map<String, Object> row = new LinkedHashMap<>();
      row.put("id", id(slot, index, payments.length, 5_000_000));
      int region;
      Map<String, Object> orderRow = order.row;
      if (orderRow != null) {
        row.put("order_id", field(orderRow, "id"));
        row.put("amount", field(orderRow, "amount"));
        region = List.of(REGIONS).indexOf((String) field(orderRow, "region"));
      } else {
        region = random.nextInt(REGIONS.length);
        row.put("amount", money(random, 5, 500));
      }
      row.put("currency", CURRENCIES[region]);
      row.put("method", METHODS[random.nextInt(METHODS.length)]);
      row.put("status", "authorized");
      row.put("region", REGIONS[region]);
      row.put("event_time", time(i, random));
      slot.row = row;
      return new Change("payment_events", field(row, "id"), "c", null, row);
    }
  }
}
