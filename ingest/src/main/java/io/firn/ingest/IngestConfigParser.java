/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.ingest;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.firn.core.catalog.CatalogConnectionException;
import io.firn.core.catalog.CatalogSettings;
import io.firn.core.policy.Durations;
import io.firn.core.policy.Sizes;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * Reads the ingest job's YAML file. Every key is optional; unknown and duplicate keys are errors.
 *
 * <pre>
 * source:                       # default: the generator
 *   type: kafka                 # generator | kafka
 *   profile: stream             #   generator: stream (realistic, see EventStream) | sample
 *   events: 1000                #   generator: how many events, or unbounded (stream default;
 *                               #     sample: 1000; no source at all: 1000 of the stream)
 *   rate: 100                   #   generator: events per second (default 100)
 *   v2-after: 500               #   stream: first event with v2 payloads (default events/2, 5000)
 *   new-type-after: 666         #   stream: first payment_events event (default 2*events/3, 10000)
 *   seed: 1                     #   stream: varies the random choices (default 1)
 *   bad-every: 0                #   stream: every Nth event malformed, 0 none (default 0)
 *   bootstrap-servers: host:9092  # kafka: required
 *   topics: [events]            #   kafka: required, a list or one name
 *   group-id: firn-ingest       #   kafka (default firn-ingest)
 *   starting-offsets: earliest  #   kafka: earliest | latest | committed (default committed)
 *   parallelism: 1              #   kafka: source readers (default 1, see ADR 0008)
 *   properties: {}              #   kafka: further consumer properties
 * format: json                  # json | debezium
 * format-by-topic:              # Kafka: other formats for some topics, first match wins
 *   - {match: 'pg\\.shop\\..*', format: debezium}  # routing-field: the format's default unless set
 * catalog:                      # default: SQLite file firn-data/catalog.db, warehouse firn-data/warehouse
 *   name: firn
 *   type: jdbc                  # jdbc | hadoop | rest | hive | glue | custom; from uri if absent
 *   uri: jdbc:postgresql://db/iceberg
 *   warehouse: s3://bucket/warehouse
 *   properties: {}
 * namespace: events
 * routing:
 *   field: event_type           # the field naming the table (json default event_type; debezium:
 *                               # source.table unless a field is named)
 *   table: all_events           # or: every event into this one table
 *   lower-case: true            # Customers -> customers, before the renames
 *   rename: [{match: 'order_\d+', table: orders}]  # first whole-name match wins; $1 for a group
 * tables:                       # first matching rule wins; others: key id, upsert
 *   - match: "order_*"          # glob on the table name: * any characters, ? one
 *     primary-key: [id]
 *     partition-candidates: [bucket(16, id)]  # region | bucket(N, col) | truncate(W, col)
 *     target-file-size: 128MiB
 *     upsert: true              # false: append (json only)
 *     timestamp-fields: [event_time]  # ISO-8601 with offset (or epoch millis) -> timestamptz
 *     schema-changes: evolve    # evolve | add-only (new columns only) | freeze (none)
 *     nested: columns           # objects -> struct, arrays -> list (default) | json (JSON text)
 *     map-fields: [attributes]  # objects at these dotted paths -> map<string, V>, not struct
 *     change-history: "{table}_changes"  # also append every change, with __op, to this table
 *     inserts: append-new-keys  # keys new to a table the job created: no equality delete
 *     contract:                 # checks of every upserted row; breaking one: contract_violation
 *       - {name: positive_amount, field: amount, min: 0}  # or required: true, max, regex, enum,
 *                                                        # max-length
 * checkpoint-interval: 10s
 * checkpoint-directory: firn-data/checkpoints  # local runs: where checkpoints are kept (ADR 0019)
 * checkpoints-retained: 3       # local runs: completed checkpoints kept per run (1-100)
 * dead-letter-table: dead_letters
 * write-parallelism: 2
 * metrics-port: 9250            # local runs: firn_ingest_* on http://127.0.0.1:9250/metrics (0: off)
 * </pre>
 *
 * <p>Messages read {@code FILE: KEY = 'VALUE': RULE} or {@code FILE: unknown key 'KEY' (allowed:
 * ...)}. Stateless and thread-safe.
 */
public final class IngestConfigParser {
  /** A URI's scheme ({@code s3:}, {@code file:}, {@code hdfs:}), not a drive letter. */
  private static final Pattern URI_SCHEME = Pattern.compile("[A-Za-z][A-Za-z0-9+.-]+:");

  private static final ObjectMapper YAML =
      new ObjectMapper(new YAMLFactory().enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION));

  private static final List<String> ROOT_KEYS =
      List.of(
          "source",
          "format",
          "format-by-topic",
          "catalog",
          "namespace",
          "routing",
          "tables",
          "checkpoint-interval",
          "checkpoint-directory",
          "checkpoints-retained",
          "dead-letter-table",
          "write-parallelism",
          "metrics-port");
  private static final List<String> TOPIC_FORMAT_KEYS = List.of("match", "format", "routing-field");
  private static final List<String> GENERATOR_KEYS =
      List.of(
          "type", "profile", "events", "rate", "v2-after", "new-type-after", "seed", "bad-every");
  private static final List<String> STREAM_ONLY_KEYS =
      List.of("v2-after", "new-type-after", "seed", "bad-every");
  private static final List<String> KAFKA_KEYS =
      List.of(
          "type",
          "bootstrap-servers",
          "topics",
          "topic-pattern",
          "group-id",
          "starting-offsets",
          "parallelism",
          "properties");
  private static final List<String> CATALOG_KEYS =
      List.of("name", "type", "uri", "warehouse", "properties");
  private static final List<String> ROUTING_KEYS =
      List.of("field", "table", "lower-case", "rename");
  private static final List<String> RENAME_KEYS = List.of("match", "table");
  private static final List<String> TABLE_KEYS =
      List.of(
          "match",
          "primary-key",
          "partition-candidates",
          "target-file-size",
          "upsert",
          "timestamp-fields",
          "schema-changes",
          "nested",
          "map-fields",
          "contract",
          "change-history",
          "inserts");
  private static final List<String> CHECK_KEYS =
      List.of("name", "field", "required", "min", "max", "regex", "enum", "max-length");

  private IngestConfigParser() {}

  /**
   * Reads {@code file}, replacing {@code ${NAME}} and {@code ${NAME:-default}} by environment
   * variables first (see {@link EnvSubstitution}).
   *
   * @throws InvalidIngestConfigException when the file cannot be read or is invalid
   */
  public static IngestConfig parse(Path file) {
    String text;
    try {
      text = Files.readString(file);
    } catch (IOException e) {
      throw new InvalidIngestConfigException(file + ": cannot read the file: " + e, e);
    }
    return parse(
        EnvSubstitution.substitute(text, System.getenv(), file.toString()), file.toString());
  }

  /**
   * @param origin the file name for messages
   * @throws InvalidIngestConfigException when the text is invalid
   */
  public static IngestConfig parse(String text, String origin) {
    JsonNode root;
    try {
      root = YAML.readTree(text);
    } catch (JsonProcessingException e) {
      JsonLocation location = e.getLocation();
      throw new InvalidIngestConfigException(
          origin
              + (location != null && location.getLineNr() > 0
                  ? ": line " + location.getLineNr()
                  : "")
              + ": not valid YAML: "
              + e.getOriginalMessage(),
          e);
    }
    return new Reader(origin, keyLines(text)).config(root);
  }

  /**
   * The line of every key and list item of a (valid) YAML text, by its path in messages ({@code
   * source.topics}, {@code tables[0].match}).
   */
  static Map<String, Integer> keyLines(String text) {
    Map<String, Integer> lines = new HashMap<>();
    try (JsonParser parser = YAML.getFactory().createParser(text)) {
      Deque<String> containers = new ArrayDeque<>();
      // Per open container: the next item index of a list, -1 for a mapping.
      Deque<int[]> items = new ArrayDeque<>();
      String next = "";
      for (JsonToken token = parser.nextToken(); token != null; token = parser.nextToken()) {
        int line = parser.currentTokenLocation().getLineNr();
        if (token == JsonToken.END_OBJECT || token == JsonToken.END_ARRAY) {
          containers.pop();
          items.pop();
          if (containers.isEmpty()) {
            break; // the end of the first document: the only one the parser reads
          }
          continue;
        }
        if (token == JsonToken.FIELD_NAME) {
          String container = containers.isEmpty() ? "" : containers.peek();
          next =
              container.isEmpty() ? parser.currentName() : container + "." + parser.currentName();
          lines.putIfAbsent(next, line);
          continue;
        }
        if (!items.isEmpty() && items.peek()[0] >= 0) {
          next = containers.peek() + "[" + items.peek()[0]++ + "]";
          lines.putIfAbsent(next, line);
        }
        if (token == JsonToken.START_OBJECT || token == JsonToken.START_ARRAY) {
          containers.push(next);
          items.push(new int[] {token == JsonToken.START_ARRAY ? 0 : -1});
        }
      }
    } catch (IOException e) {
      // Not valid YAML: readTree reports it.
    }
    return lines;
  }

  /** One parse: carries the origin and the lines of the keys for messages. */
  private static final class Reader {
    private final String origin;
    private final Map<String, Integer> lines;

    Reader(String origin, Map<String, Integer> lines) {
      this.origin = origin;
      this.lines = lines;
    }

    IngestConfig config(JsonNode root) {
      if (root == null || root.isNull() || root.isMissingNode()) {
        return IngestConfig.embedded();
      }
      object(root, "", ROOT_KEYS);
      EventFormat format = format(root.get("format"));
      IngestConfig.Source source = source(root.get("source"), format);
      List<TopicFormat> topicFormats = topicFormats(root.get("format-by-topic"));
      if (!topicFormats.isEmpty() && !(source instanceof IngestConfig.KafkaSource)) {
        throw error(
            "format-by-topic",
            "format-by-topic: chooses a format per Kafka topic; the source is not Kafka");
      }
      CatalogSettings catalog = catalog(root.get("catalog"));
      String namespace = text(root, "namespace", "events");
      JsonNode routing = root.get("routing");
      // Change events route by their source table unless a field is named (ADR 0008 §7).
      String defaultField = format == EventFormat.DEBEZIUM ? null : "event_type";
      String routingField = defaultField;
      String fixedTable = null;
      TableNames tableNames = TableNames.AS_IS;
      if (routing != null && !routing.isNull()) {
        object(routing, "routing", ROUTING_KEYS);
        if (routing.has("field") && routing.has("table")) {
          throw error("routing", "routing: set either field or table, not both");
        }
        routingField = text(routing, "routing.field", defaultField);
        fixedTable = text(routing, "routing.table", null);
        tableNames = tableNames(routing);
      }
      boolean appendsAllowed =
          format == EventFormat.JSON
              || topicFormats.stream().anyMatch(f -> f.format() == EventFormat.JSON);
      List<TableRule> tables = tables(root.get("tables"), appendsAllowed);
      Duration checkpoint = duration(root, "checkpoint-interval", Duration.ofSeconds(10));
      String deadLetters = text(root, "dead-letter-table", "dead_letters");
      int writeParallelism = (int) integer(root, "write-parallelism", 2, 1, 1024);
      if (!IngestSettings.TABLE_NAME.matcher(deadLetters).matches()) {
        throw value(
            "dead-letter-table",
            deadLetters,
            "must be a table name matching " + IngestSettings.TABLE_NAME.pattern());
      }
      if (fixedTable != null
          && (!IngestSettings.TABLE_NAME.matcher(fixedTable).matches()
              || fixedTable.equals(deadLetters))) {
        throw value(
            "routing.table",
            fixedTable,
            "must be a table name matching "
                + IngestSettings.TABLE_NAME.pattern()
                + " other than the dead-letter table");
      }
      IngestSettings settings =
          new IngestSettings(
              namespace,
              routingField,
              fixedTable,
              tables,
              deadLetters,
              writeParallelism,
              format,
              tableNames,
              topicFormats);
      if (source instanceof IngestConfig.KafkaSource kafka && kafka.kafka().parallelism() > 1) {
        for (int i = 0; i < tables.size(); i++) {
          if (tables.get(i).inserts() == Inserts.APPEND_NEW_KEYS) {
            throw value(
                "tables[" + i + "].inserts",
                Inserts.APPEND_NEW_KEYS.code(),
                "needs source.parallelism 1 (it is "
                    + kafka.kafka().parallelism()
                    + "): one router must see every key of the table (ADR 0008 §14)");
          }
        }
      }
      int metricsPort =
          (int) integer(root, "metrics-port", IngestConfig.DEFAULT_METRICS_PORT, 0, 65_535);
      return new IngestConfig(
          source, catalog, settings, checkpoint, checkpoints(root), metricsPort);
    }

    /**
     * A table rule's {@code contract}: a list of checks, each a name, a field and one condition.
     */
    private List<ContractCheck> contract(JsonNode node, String path) {
      List<ContractCheck> checks = new ArrayList<>();
      if (node == null || node.isNull()) {
        return checks;
      }
      if (!node.isArray()) {
        throw value(path, node.toString(), "must be a list of checks {name, field, <condition>}");
      }
      java.util.Set<String> names = new java.util.HashSet<>();
      for (int i = 0; i < node.size(); i++) {
        String key = path + "[" + i + "]";
        JsonNode check = node.get(i);
        object(check, key, CHECK_KEYS);
        String name = text(check, key + ".name", null);
        String field = text(check, key + ".field", null);
        List<ContractCheck.Kind> kinds = new ArrayList<>();
        for (ContractCheck.Kind kind : ContractCheck.Kind.values()) {
          if (check.has(kind.key())) {
            kinds.add(kind);
          }
        }
        if (name == null || field == null || kinds.size() != 1) {
          throw error(
              key,
              key
                  + ": needs name, field and exactly one of required, min, max, regex, enum,"
                  + " max-length");
        }
        if (!names.add(name)) {
          throw value(key + ".name", name, "is the name of another check of this rule");
        }
        ContractCheck.Kind kind = kinds.get(0);
        String at = key + "." + kind.key();
        JsonNode condition = check.get(kind.key());
        java.math.BigDecimal number = null;
        String pattern = null;
        List<String> values = List.of();
        switch (kind) {
          case REQUIRED -> {
            if (!condition.isBoolean() || !condition.booleanValue()) {
              throw value(at, condition.asText(), "must be true (leave the check out otherwise)");
            }
          }
          case MIN, MAX -> {
            if (!condition.isNumber()) {
              throw value(at, condition.asText(), "must be a number");
            }
            number = condition.decimalValue();
          }
          case MAX_LENGTH -> {
            if (!condition.canConvertToInt()
                || !condition.isIntegralNumber()
                || condition.intValue() < 0) {
              throw value(
                  at, condition.asText(), "must be a whole number of characters, 0 or more");
            }
            number = java.math.BigDecimal.valueOf(condition.intValue());
          }
          case REGEX -> {
            pattern = condition.asText();
            try {
              Pattern.compile(pattern);
            } catch (java.util.regex.PatternSyntaxException e) {
              throw value(at, pattern, "not a regular expression: " + e.getDescription());
            }
          }
          case ENUM -> {
            values = names(condition, at);
            if (values.isEmpty()) {
              throw value(at, condition.toString(), "must list at least one value");
            }
          }
          default -> throw new IllegalStateException("unknown check " + kind);
        }
        try {
          checks.add(new ContractCheck(name, field, kind, number, pattern, values));
        } catch (IllegalArgumentException e) {
          throw error(key, key + ": " + e.getMessage());
        }
      }
      return checks;
    }

    /** {@code routing.lower-case} and {@code routing.rename}: a list of {@code {match, table}}. */
    private TableNames tableNames(JsonNode routing) {
      boolean lowerCase = bool(routing, "routing.lower-case", false);
      List<TableNames.Rename> renames = new ArrayList<>();
      JsonNode list = routing.get("rename");
      if (list != null && !list.isNull()) {
        if (!list.isArray()) {
          throw value("routing.rename", list.toString(), "must be a list of {match, table}");
        }
        for (int i = 0; i < list.size(); i++) {
          String key = "routing.rename[" + i + "]";
          object(list.get(i), key, RENAME_KEYS);
          String match = text(list.get(i), key + ".match", null);
          String table = text(list.get(i), key + ".table", null);
          if (match == null || table == null) {
            throw error(
                key,
                key
                    + ": needs match (a regular expression on the whole name) and table (the"
                    + " name, $1 for a group)");
          }
          try {
            renames.add(new TableNames.Rename(match, table));
          } catch (java.util.regex.PatternSyntaxException e) {
            throw value(key + ".match", match, "not a regular expression: " + e.getDescription());
          }
        }
      }
      return new TableNames(lowerCase, renames);
    }

    /** {@code checkpoint-directory}: a local path; {@code checkpoints-retained}: 1 to 100. */
    private IngestConfig.Checkpoints checkpoints(JsonNode root) {
      IngestConfig.Checkpoints defaults = IngestConfig.Checkpoints.defaults();
      int retained =
          (int)
              integer(
                  root, "checkpoints-retained", IngestConfig.Checkpoints.DEFAULT_RETAINED, 1, 100);
      String directory = text(root, "checkpoint-directory", null);
      if (directory == null) {
        return new IngestConfig.Checkpoints(defaults.directory(), retained);
      }
      if (URI_SCHEME.matcher(directory).lookingAt()) {
        throw value(
            "checkpoint-directory",
            directory,
            "must be a local directory (a path, not a URI): a local run keeps its checkpoints on"
                + " this machine's file system; a cluster keeps them where its Flink configuration"
                + " says");
      }
      try {
        return new IngestConfig.Checkpoints(Path.of(directory), retained);
      } catch (InvalidPathException e) {
        throw value("checkpoint-directory", directory, "not a valid path: " + e.getReason());
      }
    }

    private EventFormat format(JsonNode node) {
      if (node == null || node.isNull()) {
        return EventFormat.JSON;
      }
      for (EventFormat format : EventFormat.values()) {
        if (format.configName().equals(node.asText())) {
          return format;
        }
      }
      throw value("format", node.asText(), "must be one of json, debezium");
    }

    private IngestConfig.Source source(JsonNode node, EventFormat format) {
      if (node == null || node.isNull()) {
        return IngestConfig.embedded().source();
      }
      if (!node.isObject()) {
        throw value("source", node.toString(), "must be a mapping");
      }
      String type = text(node, "source.type", "generator");
      switch (type) {
        case "generator" -> {
          object(node, "source", GENERATOR_KEYS, "a generator source");
          return generator(node, format);
        }
        case "kafka" -> {
          object(node, "source", KAFKA_KEYS, "a kafka source");
          String servers = text(node, "source.bootstrap-servers", null);
          if (servers == null) {
            throw error(
                "source.bootstrap-servers",
                "source.bootstrap-servers: required for a kafka source (host:port)");
          }
          List<String> topics = names(node.get("topics"), "source.topics");
          String topicPattern = text(node, "source.topic-pattern", null);
          if (topics.isEmpty() == (topicPattern == null)) {
            throw error(
                topicPattern == null ? "source.topics" : "source.topic-pattern",
                topicPattern == null
                    ? "source.topics: required for a kafka source (a topic or a list), or"
                        + " source.topic-pattern"
                    : "source: set either topics or topic-pattern, not both");
          }
          if (topicPattern != null) {
            try {
              java.util.regex.Pattern.compile(topicPattern);
            } catch (java.util.regex.PatternSyntaxException e) {
              throw value(
                  "source.topic-pattern",
                  topicPattern,
                  "not a regular expression: " + e.getDescription());
            }
          }
          return new IngestConfig.KafkaSource(
              new KafkaSettings(
                  servers,
                  topics,
                  text(node, "source.group-id", "firn-ingest"),
                  startingOffsets(node.get("starting-offsets")),
                  properties(node.get("properties"), "source.properties"),
                  (int) integer(node, "source.parallelism", 1, 1, 1024),
                  topicPattern));
        }
        default -> throw value("source.type", type, "must be one of generator, kafka");
      }
    }

    private IngestConfig.GeneratorSource generator(JsonNode node, EventFormat format) {
      String profileName = text(node, "source.profile", "stream");
      IngestConfig.Profile profile = null;
      for (IngestConfig.Profile candidate : IngestConfig.Profile.values()) {
        if (candidate.configName().equals(profileName)) {
          profile = candidate;
        }
      }
      if (profile == null) {
        throw value("source.profile", profileName, "must be one of stream, sample");
      }
      double rate = positive(node, "source.rate", 100);
      if (profile == IngestConfig.Profile.SAMPLE) {
        for (String key : STREAM_ONLY_KEYS) {
          if (node.has(key)) {
            throw value("source." + key, node.get(key).asText(), "only for profile: stream");
          }
        }
        if (format != EventFormat.JSON) {
          throw value(
              "source.profile",
              profileName,
              "the sample events are plain JSON: needs format: json (or profile: stream)");
        }
        return IngestConfig.GeneratorSource.sample(events(node, 1_000, false), rate);
      }
      long events = events(node, IngestConfig.GeneratorSource.UNBOUNDED, true);
      IngestConfig.GeneratorSource defaults = IngestConfig.GeneratorSource.stream(events, rate);
      return new IngestConfig.GeneratorSource(
          IngestConfig.Profile.STREAM,
          events,
          rate,
          integer(node, "source.seed", defaults.seed(), Long.MIN_VALUE, Long.MAX_VALUE),
          integer(node, "source.v2-after", defaults.v2After(), 0, Long.MAX_VALUE),
          integer(node, "source.new-type-after", defaults.newTypeAfter(), 0, Long.MAX_VALUE),
          integer(node, "source.bad-every", 0, 0, Long.MAX_VALUE));
    }

    /** {@code source.events}: a count of at least 1, or {@code unbounded} when allowed. */
    private long events(JsonNode parent, long fallback, boolean unboundedAllowed) {
      JsonNode node = parent.get("events");
      if (node == null || node.isNull()) {
        return fallback;
      }
      if (unboundedAllowed && node.isTextual() && node.asText().equals("unbounded")) {
        return IngestConfig.GeneratorSource.UNBOUNDED;
      }
      if (!node.isIntegralNumber()
          || !node.canConvertToLong()
          || node.asLong() < 1
          || node.asLong() == IngestConfig.GeneratorSource.UNBOUNDED) {
        throw value(
            "source.events",
            node.asText(),
            unboundedAllowed
                ? "must be a whole number of at least 1, or unbounded"
                : "must be a whole number of at least 1 (profile: sample is bounded)");
      }
      return node.asLong();
    }

    private KafkaSettings.StartingOffsets startingOffsets(JsonNode node) {
      if (node == null || node.isNull()) {
        return KafkaSettings.StartingOffsets.COMMITTED;
      }
      for (KafkaSettings.StartingOffsets offsets : KafkaSettings.StartingOffsets.values()) {
        if (offsets.configName().equals(node.asText())) {
          return offsets;
        }
      }
      throw value(
          "source.starting-offsets", node.asText(), "must be one of earliest, latest, committed");
    }

    private CatalogSettings catalog(JsonNode node) {
      if (node == null || node.isNull()) {
        return IngestConfig.embeddedCatalog();
      }
      object(node, "catalog", CATALOG_KEYS);
      try {
        return new CatalogSettings(
            text(node, "catalog.name", "firn"),
            text(node, "catalog.type", null),
            text(node, "catalog.uri", null),
            text(node, "catalog.warehouse", null),
            properties(node.get("properties"), "catalog.properties"));
      } catch (CatalogConnectionException e) {
        InvalidIngestConfigException error = error("catalog", "catalog: " + e.getMessage());
        error.initCause(e);
        throw error;
      }
    }

    /** {@code format-by-topic}: per topic pattern, the format (and routing field) of its events. */
    private List<TopicFormat> topicFormats(JsonNode node) {
      List<TopicFormat> formats = new ArrayList<>();
      if (node == null || node.isNull()) {
        return formats;
      }
      if (!node.isArray()) {
        throw value(
            "format-by-topic", node.toString(), "must be a list of {match, format, routing-field}");
      }
      for (int i = 0; i < node.size(); i++) {
        String key = "format-by-topic[" + i + "]";
        JsonNode entry = node.get(i);
        object(entry, key, TOPIC_FORMAT_KEYS);
        String match = text(entry, key + ".match", null);
        String name = text(entry, key + ".format", null);
        if (match == null || name == null) {
          throw error(
              key,
              key
                  + ": needs match (a regular expression on the whole topic name) and format"
                  + " (json or debezium)");
        }
        EventFormat format = null;
        for (EventFormat candidate : EventFormat.values()) {
          if (candidate.configName().equals(name)) {
            format = candidate;
          }
        }
        if (format == null) {
          throw value(key + ".format", name, "must be one of json, debezium");
        }
        try {
          java.util.regex.Pattern.compile(match);
        } catch (java.util.regex.PatternSyntaxException e) {
          throw value(key + ".match", match, "not a regular expression: " + e.getDescription());
        }
        formats.add(new TopicFormat(match, format, text(entry, key + ".routing-field", null)));
      }
      return formats;
    }

    private List<TableRule> tables(JsonNode node, boolean appendsAllowed) {
      List<TableRule> rules = new ArrayList<>();
      if (node == null || node.isNull()) {
        return rules;
      }
      if (!node.isArray()) {
        throw value("tables", node.toString(), "must be a list of table rules");
      }
      for (int i = 0; i < node.size(); i++) {
        String key = "tables[" + i + "]";
        JsonNode rule = node.get(i);
        object(rule, key, TABLE_KEYS);
        String match = text(rule, key + ".match", null);
        if (match == null) {
          throw error(
              key + ".match", key + ".match: required (a glob on the table name, e.g. order_*)");
        }
        List<String> primaryKey = names(rule.get("primary-key"), key + ".primary-key");
        Long targetFileSize = null;
        JsonNode size = rule.get("target-file-size");
        if (size != null && !size.isNull()) {
          try {
            targetFileSize = Sizes.parse(size.asText());
          } catch (IllegalArgumentException e) {
            throw value(key + ".target-file-size", size.asText(), e.getMessage());
          }
          if (targetFileSize < 1024 * 1024) {
            throw value(key + ".target-file-size", size.asText(), "must be at least 1MiB");
          }
        }
        boolean upsert = bool(rule, key + ".upsert", true);
        if (!upsert && !appendsAllowed) {
          throw value(
              key + ".upsert",
              "false",
              "debezium change events need upserts (format: debezium, and no json topic in"
                  + " format-by-topic)");
        }
        List<PartitionCandidate> candidates = new ArrayList<>();
        for (String candidate :
            names(rule.get("partition-candidates"), key + ".partition-candidates")) {
          try {
            candidates.add(PartitionCandidate.parse(candidate));
          } catch (IllegalArgumentException e) {
            throw value(key + ".partition-candidates", candidate, e.getMessage());
          }
        }
        SchemaChanges schemaChanges =
            choice(
                rule, key + ".schema-changes", SchemaChanges.EVOLVE.code(), SchemaChanges::parse);
        NestedValues nested =
            choice(rule, key + ".nested", NestedValues.COLUMNS.code(), NestedValues::parse);
        List<String> mapFields = names(rule.get("map-fields"), key + ".map-fields");
        List<ContractCheck> contract = contract(rule.get("contract"), key + ".contract");
        Inserts inserts = choice(rule, key + ".inserts", Inserts.UPSERT.code(), Inserts::parse);
        try {
          rules.add(
              new TableRule(
                  match,
                  primaryKey.isEmpty() ? List.of("id") : primaryKey,
                  candidates,
                  targetFileSize,
                  upsert,
                  names(rule.get("timestamp-fields"), key + ".timestamp-fields"),
                  schemaChanges,
                  contract,
                  nested,
                  mapFields,
                  text(rule, key + ".change-history", null),
                  inserts));
        } catch (IllegalArgumentException e) {
          throw error(key, key + ": " + e.getMessage());
        }
      }
      return rules;
    }

    // ---- values

    private void object(JsonNode node, String path, List<String> allowed) {
      object(node, path, allowed, null);
    }

    private void object(JsonNode node, String path, List<String> allowed, String what) {
      if (!node.isObject()) {
        throw value(path.isEmpty() ? "(root)" : path, node.toString(), "must be a mapping");
      }
      for (Iterator<String> names = node.fieldNames(); names.hasNext(); ) {
        String name = names.next();
        if (!allowed.contains(name)) {
          throw error(
              path.isEmpty() ? name : path + "." + name,
              "unknown key '"
                  + (path.isEmpty() ? name : path + "." + name)
                  + "'"
                  + (what == null ? "" : " for " + what)
                  + " (allowed: "
                  + String.join(", ", allowed)
                  + ")");
        }
      }
    }

    /**
     * The value {@code parse} makes of the text at {@code path} ({@code fallback} when absent); its
     * {@code IllegalArgumentException} names the allowed values.
     */
    private <T> T choice(JsonNode parent, String path, String fallback, Function<String, T> parse) {
      String text = text(parent, path, fallback);
      try {
        return parse.apply(text);
      } catch (IllegalArgumentException e) {
        throw value(path, text, e.getMessage());
      }
    }

    private String text(JsonNode parent, String path, String fallback) {
      JsonNode node = parent.get(leaf(path));
      if (node == null || node.isNull()) {
        return fallback;
      }
      if (!node.isValueNode() || node.asText().isBlank()) {
        throw value(path, node.toString(), "must be a non-empty text");
      }
      return node.asText();
    }

    private long integer(JsonNode parent, String path, long fallback, long min, long max) {
      JsonNode node = parent.get(leaf(path));
      if (node == null || node.isNull()) {
        return fallback;
      }
      if (!node.isIntegralNumber()
          || !node.canConvertToLong()
          || node.asLong() < min
          || node.asLong() > max) {
        throw value(path, node.asText(), "must be a whole number from " + min + " to " + max);
      }
      return node.asLong();
    }

    private double positive(JsonNode parent, String path, double fallback) {
      JsonNode node = parent.get(leaf(path));
      if (node == null || node.isNull()) {
        return fallback;
      }
      if (!node.isNumber() || node.asDouble() <= 0) {
        throw value(path, node.asText(), "must be a number greater than 0");
      }
      return node.asDouble();
    }

    private boolean bool(JsonNode parent, String path, boolean fallback) {
      JsonNode node = parent.get(leaf(path));
      if (node == null || node.isNull()) {
        return fallback;
      }
      if (!node.isBoolean()) {
        throw value(path, node.asText(), "must be true or false");
      }
      return node.asBoolean();
    }

    private Duration duration(JsonNode parent, String path, Duration fallback) {
      JsonNode node = parent.get(leaf(path));
      if (node == null || node.isNull()) {
        return fallback;
      }
      Duration duration;
      try {
        duration = Durations.parse(node.asText());
      } catch (IllegalArgumentException e) {
        throw value(path, node.asText(), e.getMessage());
      }
      if (duration.compareTo(Duration.ofMillis(10)) < 0) {
        throw value(path, node.asText(), "must be at least 10ms");
      }
      return duration;
    }

    /** A list of names, or one name; empty when absent. */
    private List<String> names(JsonNode node, String path) {
      List<String> names = new ArrayList<>();
      if (node == null || node.isNull()) {
        return names;
      }
      if (node.isTextual() && !node.asText().isBlank()) {
        names.add(node.asText());
        return names;
      }
      if (!node.isArray()) {
        throw value(path, node.toString(), "must be a name or a list of names");
      }
      for (JsonNode element : node) {
        if (!element.isTextual() || element.asText().isBlank()) {
          throw value(path, node.toString(), "must be a name or a list of names");
        }
        names.add(element.asText());
      }
      return names;
    }

    private Map<String, String> properties(JsonNode node, String path) {
      Map<String, String> properties = new LinkedHashMap<>();
      if (node == null || node.isNull()) {
        return properties;
      }
      if (!node.isObject()) {
        throw value(path, node.toString(), "must be a mapping of names to values");
      }
      for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> field = it.next();
        if (!field.getValue().isValueNode() || field.getValue().isNull()) {
          throw value(
              path + "." + field.getKey(), field.getValue().toString(), "must be a single value");
        }
        properties.put(field.getKey(), field.getValue().asText());
      }
      return properties;
    }

    private static String leaf(String path) {
      int dot = path.lastIndexOf('.');
      return dot < 0 ? path : path.substring(dot + 1);
    }

    private InvalidIngestConfigException value(String path, String value, String rule) {
      return error(path, path + " = '" + value + "': " + rule);
    }

    /**
     * @param path the key the message is about: the message names the line of the key, or of the
     *     nearest enclosing key when the key is absent
     */
    private InvalidIngestConfigException error(String path, String message) {
      for (String key = path; !key.isEmpty(); key = parent(key)) {
        Integer line = lines.get(key);
        if (line != null) {
          return new InvalidIngestConfigException(origin + ": line " + line + ": " + message);
        }
      }
      return new InvalidIngestConfigException(origin + ": " + message);
    }

    private static String parent(String path) {
      int cut = Math.max(path.lastIndexOf('.'), path.lastIndexOf('['));
      return cut < 0 ? "" : path.substring(0, cut);
    }
  }
}
