/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.core.config;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads one YAML document into a tree of {@link ConfigNode}s that keeps the line of every key and
 * list item, so that every message of a format names the file, the line and the key path (ADR
 * 0037). Policy files and the ingest job's file read through it. A key given twice in one map is an
 * error naming both lines; a second document in the text is an error. Stateless and thread-safe.
 */
public final class ConfigDocument {
  private static final YAMLFactory YAML = new YAMLFactory();

  private ConfigDocument() {}

  /**
   * Parses {@code text}. An empty text (or one holding only comments) is a YAML null at line 1
   * ({@link ConfigNode#isNull()}); each format says what that means.
   *
   * @param origin the file name messages start with
   * @throws ConfigException on a YAML syntax error, a duplicate key or a second document
   */
  public static ConfigNode parse(String origin, String text) {
    try (JsonParser p = YAML.createParser(text)) {
      if (p.nextToken() == null) {
        return ConfigNode.scalar(origin, "", "", 1, JsonToken.VALUE_NULL, null);
      }
      ConfigNode root = node(p, origin, "", "");
      if (p.nextToken() != null) {
        throw new ConfigException(
            origin, line(p), "", null, "only one YAML document per file", null);
      }
      return root;
    } catch (JsonProcessingException e) {
      JsonLocation at = e.getLocation();
      throw new ConfigException(
          origin,
          at == null || at.getLineNr() < 1 ? 1 : at.getLineNr(),
          "",
          null,
          "YAML syntax error: " + reason(e.getOriginalMessage()),
          e);
    } catch (IOException e) {
      throw new ConfigException(origin, 1, "", null, "cannot read: " + e.getMessage(), e);
    }
  }

  private static ConfigNode node(JsonParser p, String origin, String path, String name)
      throws IOException {
    int line = line(p);
    JsonToken token = p.currentToken();
    if (token == JsonToken.START_OBJECT) {
      Map<String, ConfigNode> fields = new LinkedHashMap<>();
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String key = p.currentName();
        int keyLine = line(p);
        String keyPath = path.isEmpty() ? key : path + "." + key;
        ConfigNode first = fields.get(key);
        if (first != null) {
          throw new ConfigException(
              origin,
              keyLine,
              keyPath,
              null,
              "duplicate key (first at line " + first.line() + ")",
              null);
        }
        p.nextToken();
        fields.put(key, node(p, origin, keyPath, key).at(keyLine));
      }
      return ConfigNode.map(origin, path, name, line, fields);
    }
    if (token == JsonToken.START_ARRAY) {
      List<ConfigNode> items = new ArrayList<>();
      while (p.nextToken() != JsonToken.END_ARRAY) {
        String index = "[" + items.size() + "]";
        items.add(node(p, origin, path + index, index));
      }
      return ConfigNode.list(origin, path, name, line, items);
    }
    return ConfigNode.scalar(
        origin, path, name, line, token, token == JsonToken.VALUE_NULL ? null : p.getText());
  }

  private static int line(JsonParser p) {
    return p.currentTokenLocation().getLineNr();
  }

  /**
   * SnakeYAML's messages span lines: a context ("while parsing a flow mapping"), the problem, and
   * indented snippets. Keeps the problem and its context on one line.
   */
  static String reason(String message) {
    List<String> parts =
        message.lines().filter(l -> !l.isBlank() && !Character.isWhitespace(l.charAt(0))).toList();
    if (parts.isEmpty()) {
      return message.strip();
    }
    String problem = parts.get(parts.size() - 1).strip();
    return parts.size() == 1 ? problem : problem + " (" + parts.get(0).strip() + ")";
  }
}
