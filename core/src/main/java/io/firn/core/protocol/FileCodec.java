/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.core.protocol;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.ContentFileParser;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.PartitionSpecParser;
import org.apache.iceberg.ScanTaskParser;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SchemaParser;
import org.apache.iceberg.types.TypeUtil;

/**
 * Carries Iceberg data and delete files as JSON in Iceberg's own content-file format ({@link
 * ContentFileParser}). A file's JSON names its partition spec by id and holds no schema or spec:
 * those travel once per message ({@link TaskAssignment#schema()}, {@link TaskAssignment#specs()}),
 * written by {@link #schemaJson} and {@link #specJsons}, and a {@link Decoder} made from them
 * decodes every file of the message.
 *
 * <p>Only Iceberg's String-based parser entry points are used, so this works next to engine runtime
 * jars that relocate Jackson: a file is decoded by splicing its JSON, re-written by Firn's own
 * Jackson so that it is exactly one object, into a one-file scan task that {@link ScanTaskParser}
 * reads. A file cannot bring a spec or schema of its own: the decoder chooses the spec by the id
 * the file names, among those the message carries, and refuses any other.
 *
 * <p>Iceberg's JSON omits sequence numbers, which decide whether an equality delete applies to a
 * data file; they travel beside the JSON in {@link WireFile} and are set back on decode.
 *
 * <p>Thread-safe (stateless); a {@link Decoder} is immutable and thread-safe too.
 */
public final class FileCodec {
  private static final Method SET_DATA_SEQUENCE = baseFileMethod("setDataSequenceNumber");
  private static final Method SET_FILE_SEQUENCE = baseFileMethod("setFileSequenceNumber");
  private static final ObjectMapper JSON =
      new ObjectMapper().enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

  private FileCodec() {}

  /**
   * Encodes one file.
   *
   * @param file a data or delete file
   * @param spec the file's own partition spec
   * @param deletes for a data file of a task: indexes of its delete files; else empty
   */
  public static WireFile encode(ContentFile<?> file, PartitionSpec spec, List<Integer> deletes) {
    if (file.specId() != spec.specId()) {
      throw new IllegalArgumentException(
          "file " + file.location() + " has spec " + file.specId() + ", not " + spec.specId());
    }
    return new WireFile(
        ContentFileParser.toJson(file, spec),
        sequenceOrUnknown(file.dataSequenceNumber()),
        sequenceOrUnknown(file.fileSequenceNumber()),
        deletes);
  }

  /** Encodes a file that is not part of a task (no delete indexes). */
  public static WireFile encode(ContentFile<?> file, PartitionSpec spec) {
    return encode(file, spec, List.of());
  }

  /** The schema as a message carries it, once. */
  public static String schemaJson(Schema schema) {
    return SchemaParser.toJson(schema);
  }

  /** The specs as a message carries them, once each, in the order given. */
  public static List<String> specJsons(Collection<PartitionSpec> specs) {
    return specs.stream().map(PartitionSpecParser::toJson).toList();
  }

  /**
   * A decoder for the files of one message.
   *
   * @param schema the table schema the specs bind to, as {@link #schemaJson} wrote it
   * @param specs every spec a file of the message names, as {@link #specJsons} wrote them
   * @throws ProtocolException when the schema or a spec is not a JSON object, a spec has no id, or
   *     two specs share an id
   */
  public static Decoder decoder(String schema, List<String> specs) {
    tree(schema, "the schema");
    Schema parsedSchema;
    try {
      parsedSchema = SchemaParser.fromJson(schema);
    } catch (RuntimeException e) {
      throw new ProtocolException(
          "the schema is not an Iceberg schema (" + e.getMessage() + ")", e);
    }
    Map<Integer, String> byId = new HashMap<>();
    for (String spec : specs) {
      JsonNode node = tree(spec, "a partition spec");
      JsonNode id = node.get("spec-id");
      if (id == null || !id.canConvertToInt()) {
        throw new ProtocolException("a partition spec has no spec-id: " + abbreviate(spec));
      }
      if (byId.containsKey(id.intValue())) {
        throw new ProtocolException("partition spec " + id.intValue() + " is carried twice");
      }
      byId.put(id.intValue(), taskHead(parsedSchema, spec, id.intValue()));
    }
    return new Decoder(Map.copyOf(byId));
  }

  /**
   * The start of a one-file scan task of the given spec: the schema pruned to the spec's source
   * columns (all a file's partition tuple needs; its metrics are keyed by field id) and the spec,
   * both written by Iceberg, so that decoding a file of a wide table does not parse the whole
   * schema.
   */
  private static String taskHead(Schema schema, String specJson, int specId) {
    PartitionSpec spec;
    try {
      spec = PartitionSpecParser.fromJson(schema, specJson);
    } catch (RuntimeException e) {
      throw new ProtocolException(
          "partition spec " + specId + " does not bind to the schema (" + e.getMessage() + ")", e);
    }
    Set<Integer> sources = new HashSet<>();
    spec.fields().forEach(field -> sources.add(field.sourceId()));
    Schema pruned = TypeUtil.select(schema, sources);
    return "{\"task-type\":\"file-scan-task\",\"schema\":"
        + SchemaParser.toJson(pruned)
        + ",\"spec\":"
        + PartitionSpecParser.toJson(spec)
        + ",";
  }

  /** Decodes the files of one message against the schema and specs it carries. */
  public static final class Decoder {
    private final Map<Integer, String> heads;

    private Decoder(Map<Integer, String> heads) {
      this.heads = heads;
    }

    /**
     * Decodes a data file.
     *
     * @throws ProtocolException when the JSON is not a data file in Iceberg's format or names a
     *     spec the message does not carry
     */
    public DataFile dataFile(WireFile wire) {
      String head = head(wire, "data");
      FileScanTask task = parse(wire, head + "\"data-file\":" + wire.json());
      if (task.file() == null) {
        throw new ProtocolException("expected a data file: " + abbreviate(wire.json()));
      }
      return withSequenceNumbers(task.file(), wire);
    }

    /**
     * Decodes a delete file.
     *
     * @throws ProtocolException when the JSON is not a delete file in Iceberg's format or names a
     *     spec the message does not carry
     */
    public DeleteFile deleteFile(WireFile wire) {
      String head = head(wire, "delete");
      FileScanTask task = parse(wire, head + "\"delete-files\":[" + wire.json() + "]");
      if (task.deletes() == null || task.deletes().size() != 1) {
        throw new ProtocolException("expected one delete file: " + abbreviate(wire.json()));
      }
      return withSequenceNumbers(task.deletes().get(0), wire);
    }

    /**
     * Checks, in one streaming pass, that the file's JSON is exactly one object (so splicing it
     * cannot add fields to the task around it) of the expected content, and finds its spec's task
     * head.
     */
    private String head(WireFile wire, String what) {
      String json = wire.json();
      if (json == null || json.isBlank()) {
        throw new ProtocolException(what + " file JSON is missing");
      }
      Integer specId = null;
      String content = "";
      try (JsonParser parser = JSON.getFactory().createParser(json)) {
        if (parser.nextToken() != JsonToken.START_OBJECT) {
          throw new ProtocolException(
              "a " + what + " file is not a JSON object: " + abbreviate(json));
        }
        while (parser.nextToken() == JsonToken.FIELD_NAME) {
          String name = parser.currentName();
          JsonToken value = parser.nextToken();
          if (name.equals("spec-id") && value == JsonToken.VALUE_NUMBER_INT) {
            specId = parser.getIntValue();
          } else if (name.equals("content") && value == JsonToken.VALUE_STRING) {
            content = parser.getText();
          } else {
            parser.skipChildren();
          }
        }
        if (parser.nextToken() != null) {
          throw new ProtocolException(
              "a " + what + " file is not JSON: text after its object: " + abbreviate(json));
        }
      } catch (IOException e) {
        throw new ProtocolException("a " + what + " file is not JSON: " + abbreviate(json), e);
      }
      if (content.equalsIgnoreCase("data") != what.equals("data")) {
        throw new ProtocolException(
            "expected a " + what + " file, got content '" + content + "': " + abbreviate(json));
      }
      if (specId == null) {
        throw new ProtocolException("file JSON has no spec-id: " + abbreviate(json));
      }
      String head = heads.get(specId);
      if (head == null) {
        throw new ProtocolException(
            "file names partition spec "
                + specId
                + ", which the message does not carry (it carries "
                + heads.keySet().stream().sorted().toList()
                + "): "
                + abbreviate(json));
      }
      return head;
    }

    private static FileScanTask parse(WireFile wire, String taskWithoutEnd) {
      try {
        return ScanTaskParser.fromJson(taskWithoutEnd + ",\"start\":0,\"length\":0}", true);
      } catch (RuntimeException e) {
        throw new ProtocolException(
            "file JSON is not an Iceberg content file ("
                + e.getMessage()
                + "): "
                + abbreviate(wire.json()),
            e);
      }
    }
  }

  /** Parses one JSON object (nothing before or after it). */
  private static JsonNode tree(String json, String what) {
    JsonNode node;
    try {
      node = json == null ? null : JSON.readTree(json);
    } catch (JsonProcessingException e) {
      throw new ProtocolException(what + " is not JSON: " + abbreviate(json), e);
    }
    if (node == null || !node.isObject()) {
      throw new ProtocolException(what + " is not a JSON object: " + abbreviate(json));
    }
    return node;
  }

  private static <F extends ContentFile<F>> F withSequenceNumbers(F file, WireFile wire) {
    try {
      if (wire.dataSequenceNumber() >= 0) {
        SET_DATA_SEQUENCE.invoke(file, wire.dataSequenceNumber());
      }
      if (wire.fileSequenceNumber() >= 0) {
        SET_FILE_SEQUENCE.invoke(file, wire.fileSequenceNumber());
      }
    } catch (IllegalAccessException | InvocationTargetException e) {
      throw new IllegalStateException("cannot set the sequence numbers of " + file.location(), e);
    }
    return file;
  }

  private static long sequenceOrUnknown(Long sequence) {
    return sequence == null ? -1 : sequence;
  }

  private static String abbreviate(String json) {
    String text = String.valueOf(json);
    return text.length() <= 200 ? text : text.substring(0, 200) + "...";
  }

  /**
   * Iceberg keeps the setters of decoded files on its package-private {@code BaseFile}; the files
   * {@code ContentFileParser} returns extend it. A test pins this, so an Iceberg upgrade that
   * changes it fails the build rather than losing sequence numbers.
   */
  private static Method baseFileMethod(String name) {
    try {
      Method method = Class.forName("org.apache.iceberg.BaseFile").getMethod(name, Long.class);
      method.setAccessible(true);
      return method;
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(
          "this Iceberg version has no BaseFile." + name + "(Long); FileCodec needs updating");
    }
  }
}
