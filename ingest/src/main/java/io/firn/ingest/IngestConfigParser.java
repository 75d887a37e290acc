/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.ingest;

import io.firn.core.catalog.CatalogConnectionException;
import io.firn.core.catalog.CatalogSettings;
import io.firn.core.config.ConfigDocument;
import io.firn.core.config.ConfigException;
import io.firn.core.config.ConfigNode;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

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
 * <p>The file is read through {@link ConfigDocument} (ADR 0037): messages read {@code FILE line N:
 * KEY = 'VALUE': RULE}, as policy files' do. Stateless and thread-safe.
 */
public final class IngestConfigParser {
  /** A URI's scheme ({@code s3:}, {@code file:}, {@code hdfs:}), not a drive letter. */
  private static final Pattern URI_SCHEME = Pattern.compile("[A-Za-z][A-Za-z0-9+.-]+:");

  /** The shortest checkpoint interval. */
  static final Duration MIN_CHECKPOINT_INTERVAL = Duration.ofMillis(10);

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
    try {
      return config(ConfigDocument.parse(origin, text));
    } catch (ConfigException e) {
      throw new InvalidIngestConfigException(e.getMessage(), e);
    }
  }

  private static IngestConfig config(ConfigNode root) {
    if (root.isNull()) {
      return IngestConfig.embedded();
    }
    root.keys(ROOT_KEYS);
    EventFormat format =
        root.value("format").map(IngestConfigParser::format).orElse(EventFormat.JSON);
    IngestConfig.Source source =
        root.value("source")
            .map(n -> source(n, format))
            .orElseGet(() -> IngestConfig.embedded().source());
    List<TopicFormat> topicFormats =
        root.value("format-by-topic").map(IngestConfigParser::topicFormats).orElse(List.of());
    if (!topicFormats.isEmpty() && !(source instanceof IngestConfig.KafkaSource)) {
      throw root.keyProblem(
          "format-by-topic", "chooses a format per Kafka topic; the source is not Kafka");
    }
    CatalogSettings catalog =
        root.value("catalog")
            .map(IngestConfigParser::catalog)
            .orElseGet(IngestConfig::embeddedCatalog);
    String namespace = text(root, "namespace").orElse("events");
    // Change events route by their source table unless a field is named (ADR 0008 §7).
    String defaultField = format == EventFormat.DEBEZIUM ? null : "event_type";
    String routingField = defaultField;
    String fixedTable = null;
    TableNames tableNames = TableNames.AS_IS;
    Optional<ConfigNode> routingNode = root.value("routing");
    if (routingNode.isPresent()) {
      ConfigNode routing = routingNode.get().keys(ROUTING_KEYS);
      if (routing.has("field") && routing.has("table")) {
        throw routing.problem("set either field or table, not both");
      }
      routingField = text(routing, "field").orElse(defaultField);
      fixedTable = text(routing, "table").orElse(null);
      tableNames = tableNames(routing);
    }
    boolean appendsAllowed =
        format == EventFormat.JSON
            || topicFormats.stream().anyMatch(f -> f.format() == EventFormat.JSON);
    List<ConfigNode> tableNodes =
        root.value("tables").map(n -> n.items("table rules")).orElse(List.of());
    List<TableRule> tables = new ArrayList<>();
    for (ConfigNode rule : tableNodes) {
      tables.add(table(rule, appendsAllowed));
    }
    Duration checkpoint =
        root.value("checkpoint-interval")
            .map(IngestConfigParser::checkpointInterval)
            .orElse(Duration.ofSeconds(10));
    String deadLetters = text(root, "dead-letter-table").orElse("dead_letters");
    int writeParallelism =
        (int) root.value("write-parallelism").map(n -> n.integer(1, 1024)).orElse(2L).longValue();
    if (!IngestSettings.TABLE_NAME.matcher(deadLetters).matches()) {
      throw root.value("dead-letter-table")
          .orElseThrow()
          .error("must be a table name matching " + IngestSettings.TABLE_NAME.pattern());
    }
    if (fixedTable != null
        && (!IngestSettings.TABLE_NAME.matcher(fixedTable).matches()
            || fixedTable.equals(deadLetters))) {
      throw routingNode
          .flatMap(n -> n.value("table"))
          .orElseThrow()
          .error(
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
          throw tableNodes
              .get(i)
              .value("inserts")
              .orElseThrow()
              .error(
                  "needs source.parallelism 1 (it is "
                      + kafka.kafka().parallelism()
                      + "): one router must see every key of the table (ADR 0008 §14)");
        }
      }
    }
    int metricsPort =
        (int)
            root.value("metrics-port")
                .map(n -> n.integer(0, 65_535))
                .orElse((long) IngestConfig.DEFAULT_METRICS_PORT)
                .longValue();
    return new IngestConfig(source, catalog, settings, checkpoint, checkpoints(root), metricsPort);
  }

  /** A table rule's {@code contract}: a list of checks, each a name, a field and one condition. */
  private static List<ContractCheck> contract(ConfigNode node) {
    List<ContractCheck> checks = new ArrayList<>();
    Set<String> names = new HashSet<>();
    for (ConfigNode check : node.items("checks {name, field, <condition>}")) {
      check.keys(CHECK_KEYS);
      String name = text(check, "name").orElse(null);
      String field = text(check, "field").orElse(null);
      List<ContractCheck.Kind> kinds = new ArrayList<>();
      for (ContractCheck.Kind kind : ContractCheck.Kind.values()) {
        if (check.get(kind.key()).isPresent()) {
          kinds.add(kind);
        }
      }
      if (name == null || field == null || kinds.size() != 1) {
        throw check.problem(
            "needs name, field and exactly one of required, min, max, regex, enum, max-length");
      }
      if (!names.add(name)) {
        throw check.value("name").orElseThrow().error("is the name of another check of this rule");
      }
      ContractCheck.Kind kind = kinds.get(0);
      ConfigNode condition = check.get(kind.key()).orElseThrow();
      BigDecimal number = null;
      String pattern = null;
      List<String> values = List.of();
      switch (kind) {
        case REQUIRED -> {
          if (!condition.isBoolean() || !condition.bool()) {
            throw condition.error("must be true (leave the check out otherwise)");
          }
        }
        case MIN, MAX -> number = condition.decimal();
        case MAX_LENGTH -> {
          if (!condition.isInteger()
              || condition.integer() < 0
              || condition.integer() > Integer.MAX_VALUE) {
            throw condition.error("must be a whole number of characters, 0 or more");
          }
          number = BigDecimal.valueOf(condition.integer());
        }
        case REGEX -> pattern = regex(condition);
        case ENUM -> {
          values = condition.names();
          if (values.isEmpty()) {
            throw condition.problem("must list at least one value");
          }
        }
        default -> throw new IllegalStateException("unknown check " + kind);
      }
      try {
        checks.add(new ContractCheck(name, field, kind, number, pattern, values));
      } catch (IllegalArgumentException e) {
        throw check.problem(String.valueOf(e.getMessage()), e);
      }
    }
    return checks;
  }

  /** {@code routing.lower-case} and {@code routing.rename}: a list of {@code {match, table}}. */
  private static TableNames tableNames(ConfigNode routing) {
    boolean lowerCase = routing.value("lower-case").map(ConfigNode::bool).orElse(false);
    List<TableNames.Rename> renames = new ArrayList<>();
    for (ConfigNode rename :
        routing.value("rename").map(n -> n.items("{match, table}")).orElse(List.of())) {
      rename.keys(RENAME_KEYS);
      String match = text(rename, "match").orElse(null);
      String table = text(rename, "table").orElse(null);
      if (match == null || table == null) {
        throw rename.problem(
            "needs match (a regular expression on the whole name) and table (the name, $1 for a"
                + " group)");
      }
      try {
        renames.add(new TableNames.Rename(match, table));
      } catch (PatternSyntaxException e) {
        throw rename
            .value("match")
            .orElseThrow()
            .error("not a regular expression: " + e.getDescription(), e);
      }
    }
    return new TableNames(lowerCase, renames);
  }

  /** {@code checkpoint-directory}: a local path; {@code checkpoints-retained}: 1 to 100. */
  private static IngestConfig.Checkpoints checkpoints(ConfigNode root) {
    IngestConfig.Checkpoints defaults = IngestConfig.Checkpoints.defaults();
    int retained =
        (int)
            root.value("checkpoints-retained")
                .map(n -> n.integer(1, 100))
                .orElse((long) IngestConfig.Checkpoints.DEFAULT_RETAINED)
                .longValue();
    Optional<ConfigNode> node = root.value("checkpoint-directory");
    if (node.isEmpty()) {
      return new IngestConfig.Checkpoints(defaults.directory(), retained);
    }
    String directory = node.get().nonBlankText();
    if (URI_SCHEME.matcher(directory).lookingAt()) {
      throw node.get()
          .error(
              "must be a local directory (a path, not a URI): a local run keeps its checkpoints"
                  + " on this machine's file system; a cluster keeps them where its Flink"
                  + " configuration says");
    }
    try {
      return new IngestConfig.Checkpoints(Path.of(directory), retained);
    } catch (InvalidPathException e) {
      throw node.get().error("not a valid path: " + e.getReason(), e);
    }
  }

  private static Duration checkpointInterval(ConfigNode node) {
    Duration interval = node.duration();
    if (interval.compareTo(MIN_CHECKPOINT_INTERVAL) < 0) {
      throw node.error("must be at least 10ms");
    }
    return interval;
  }

  private static EventFormat format(ConfigNode node) {
    return named(node, EventFormat.values(), EventFormat::configName);
  }

  /** The constant whose config name {@code node} holds; else an error listing them. */
  private static <T> T named(ConfigNode node, T[] values, Function<T, String> name) {
    String text = node.text();
    List<String> names = new ArrayList<>();
    for (T value : values) {
      if (name.apply(value).equals(text)) {
        return value;
      }
      names.add(name.apply(value));
    }
    throw node.error("must be one of " + String.join(", ", names));
  }

  private static IngestConfig.Source source(ConfigNode node, EventFormat format) {
    node.entries("source keys (type, ...)");
    String type = text(node, "type").orElse("generator");
    switch (type) {
      case "generator" -> {
        node.keys(GENERATOR_KEYS, "for a generator source");
        return generator(node, format);
      }
      case "kafka" -> {
        node.keys(KAFKA_KEYS, "for a kafka source");
        String servers =
            text(node, "bootstrap-servers")
                .orElseThrow(
                    () ->
                        node.keyProblem(
                            "bootstrap-servers", "required for a kafka source (host:port)"));
        List<String> topics = node.value("topics").map(ConfigNode::names).orElse(List.of());
        Optional<ConfigNode> patternNode = node.value("topic-pattern");
        String topicPattern = patternNode.map(ConfigNode::nonBlankText).orElse(null);
        if (topics.isEmpty() && topicPattern == null) {
          throw node.keyProblem(
              "topics", "required for a kafka source (a topic or a list), or source.topic-pattern");
        }
        if (!topics.isEmpty() && topicPattern != null) {
          throw node.problem("set either topics or topic-pattern, not both");
        }
        if (topicPattern != null) {
          regex(patternNode.get());
        }
        return new IngestConfig.KafkaSource(
            new KafkaSettings(
                servers,
                topics,
                text(node, "group-id").orElse("firn-ingest"),
                node.value("starting-offsets")
                    .map(
                        n ->
                            named(
                                n,
                                KafkaSettings.StartingOffsets.values(),
                                KafkaSettings.StartingOffsets::configName))
                    .orElse(KafkaSettings.StartingOffsets.COMMITTED),
                node.value("properties").map(ConfigNode::stringMap).orElse(Map.of()),
                (int) node.value("parallelism").map(n -> n.integer(1, 1024)).orElse(1L).longValue(),
                topicPattern));
      }
      default -> throw node.value("type").orElseThrow().error("must be one of generator, kafka");
    }
  }

  private static IngestConfig.GeneratorSource generator(ConfigNode node, EventFormat format) {
    IngestConfig.Profile profile =
        node.value("profile")
            .map(n -> named(n, IngestConfig.Profile.values(), IngestConfig.Profile::configName))
            .orElse(IngestConfig.Profile.STREAM);
    double rate = node.value("rate").map(ConfigNode::positive).orElse(100.0);
    if (profile == IngestConfig.Profile.SAMPLE) {
      for (String key : STREAM_ONLY_KEYS) {
        Optional<ConfigNode> set = node.value(key);
        if (set.isPresent()) {
          throw set.get().error("only for profile: stream");
        }
      }
      if (format != EventFormat.JSON) {
        throw node.value("profile")
            .orElseThrow()
            .error("the sample events are plain JSON: needs format: json (or profile: stream)");
      }
      return IngestConfig.GeneratorSource.sample(events(node, 1_000, false), rate);
    }
    long events = events(node, IngestConfig.GeneratorSource.UNBOUNDED, true);
    IngestConfig.GeneratorSource defaults = IngestConfig.GeneratorSource.stream(events, rate);
    return new IngestConfig.GeneratorSource(
        IngestConfig.Profile.STREAM,
        events,
        rate,
        integer(node, "seed", defaults.seed(), Long.MIN_VALUE),
        integer(node, "v2-after", defaults.v2After(), 0),
        integer(node, "new-type-after", defaults.newTypeAfter(), 0),
        integer(node, "bad-every", 0, 0));
  }

  /** The whole number at {@code key} from {@code min} on, else {@code fallback}. */
  private static long integer(ConfigNode parent, String key, long fallback, long min) {
    return parent.value(key).map(n -> n.integer(min, Long.MAX_VALUE)).orElse(fallback);
  }

  /** {@code source.events}: a count of at least 1, or {@code unbounded} when allowed. */
  private static long events(ConfigNode parent, long fallback, boolean unboundedAllowed) {
    Optional<ConfigNode> value = parent.value("events");
    if (value.isEmpty()) {
      return fallback;
    }
    ConfigNode node = value.get();
    if (unboundedAllowed && node.isString() && "unbounded".equals(node.shown())) {
      return IngestConfig.GeneratorSource.UNBOUNDED;
    }
    if (!node.isInteger()
        || node.integer() < 1
        || node.integer() == IngestConfig.GeneratorSource.UNBOUNDED) {
      throw node.error(
          unboundedAllowed
              ? "must be a whole number of at least 1, or unbounded"
              : "must be a whole number of at least 1 (profile: sample is bounded)");
    }
    return node.integer();
  }

  private static CatalogSettings catalog(ConfigNode node) {
    node.keys(CATALOG_KEYS);
    try {
      return new CatalogSettings(
          text(node, "name").orElse("firn"),
          text(node, "type").orElse(null),
          text(node, "uri").orElse(null),
          text(node, "warehouse").orElse(null),
          node.value("properties").map(ConfigNode::stringMap).orElse(Map.of()));
    } catch (CatalogConnectionException e) {
      throw node.problem(String.valueOf(e.getMessage()), e);
    }
  }

  /** {@code format-by-topic}: per topic pattern, the format (and routing field) of its events. */
  private static List<TopicFormat> topicFormats(ConfigNode node) {
    List<TopicFormat> formats = new ArrayList<>();
    for (ConfigNode entry : node.items("{match, format, routing-field}")) {
      entry.keys(TOPIC_FORMAT_KEYS);
      Optional<ConfigNode> match = entry.value("match");
      Optional<ConfigNode> name = entry.value("format");
      if (match.isEmpty() || name.isEmpty()) {
        throw entry.problem(
            "needs match (a regular expression on the whole topic name) and format (json or"
                + " debezium)");
      }
      EventFormat format = format(name.get());
      formats.add(
          new TopicFormat(regex(match.get()), format, text(entry, "routing-field").orElse(null)));
    }
    return formats;
  }

  /** A regular expression {@link Pattern} compiles; the text as written. */
  private static String regex(ConfigNode node) {
    String text = node.nonBlankText();
    try {
      Pattern.compile(text);
    } catch (PatternSyntaxException e) {
      throw node.error("not a regular expression: " + e.getDescription(), e);
    }
    return text;
  }

  private static TableRule table(ConfigNode rule, boolean appendsAllowed) {
    rule.keys(TABLE_KEYS);
    String match =
        text(rule, "match")
            .orElseThrow(
                () ->
                    rule.keyProblem("match", "required (a glob on the table name, e.g. order_*)"));
    List<String> primaryKey = names(rule, "primary-key");
    Long targetFileSize = null;
    Optional<ConfigNode> size = rule.value("target-file-size");
    if (size.isPresent()) {
      targetFileSize = size.get().size();
      if (targetFileSize < 1024 * 1024) {
        throw size.get().error("must be at least 1MiB");
      }
    }
    boolean upsert = rule.value("upsert").map(ConfigNode::bool).orElse(true);
    if (!upsert && !appendsAllowed) {
      throw rule.value("upsert")
          .orElseThrow()
          .error(
              "debezium change events need upserts (format: debezium, and no json topic in"
                  + " format-by-topic)");
    }
    List<PartitionCandidate> candidates = new ArrayList<>();
    Optional<ConfigNode> candidatesNode = rule.value("partition-candidates");
    if (candidatesNode.isPresent()) {
      ConfigNode list = candidatesNode.get();
      List<ConfigNode> items = list.isList() ? list.items("partition candidates") : List.of(list);
      for (ConfigNode item : items) {
        String candidate = item.nonBlankText();
        try {
          candidates.add(PartitionCandidate.parse(candidate));
        } catch (IllegalArgumentException e) {
          throw new ConfigException(
              item.origin(),
              item.line(),
              list.path(),
              candidate,
              String.valueOf(e.getMessage()),
              e);
        }
      }
    }
    SchemaChanges schemaChanges =
        rule.value("schema-changes")
            .map(n -> n.choice(SchemaChanges::parse))
            .orElse(SchemaChanges.EVOLVE);
    NestedValues nested =
        rule.value("nested").map(n -> n.choice(NestedValues::parse)).orElse(NestedValues.COLUMNS);
    List<String> mapFields = names(rule, "map-fields");
    List<ContractCheck> contract =
        rule.value("contract").map(IngestConfigParser::contract).orElse(List.of());
    Inserts inserts =
        rule.value("inserts").map(n -> n.choice(Inserts::parse)).orElse(Inserts.UPSERT);
    try {
      return new TableRule(
          match,
          primaryKey.isEmpty() ? List.of("id") : primaryKey,
          candidates,
          targetFileSize,
          upsert,
          names(rule, "timestamp-fields"),
          schemaChanges,
          contract,
          nested,
          mapFields,
          text(rule, "change-history").orElse(null),
          inserts);
    } catch (IllegalArgumentException e) {
      throw rule.problem(String.valueOf(e.getMessage()), e);
    }
  }

  /** The non-blank text at {@code key}; empty when absent. */
  private static Optional<String> text(ConfigNode parent, String key) {
    return parent.value(key).map(ConfigNode::nonBlankText);
  }

  /** A list of names, or one name, at {@code key}; empty when absent. */
  private static List<String> names(ConfigNode parent, String key) {
    return parent.value(key).map(ConfigNode::names).orElse(List.of());
  }
}
