/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.deploy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Where the kit lives and how its files are read. */
final class Kit {
  static final ObjectMapper JSON = JsonMapper.builder().build();
  static final YAMLMapper YAML = new YAMLMapper(new YAMLFactory());

  private Kit() {}

  /** {@code deploy/}: set by the build; falls back to the working directory (the module's). */
  static Path deployDir() {
    return Path.of(System.getProperty("firn.deploy.dir", ".")).toAbsolutePath().normalize();
  }

  /** The repository's root. */
  static Path repositoryDir() {
    return Path.of(System.getProperty("firn.repository.dir", "..")).toAbsolutePath().normalize();
  }

  static Path deploy(String relative) {
    return deployDir().resolve(relative);
  }

  /** A fresh directory under {@code deploy/target/}. */
  static Path scratch(String prefix) {
    try {
      Path target = deployDir().resolve("target");
      Files.createDirectories(target);
      return Files.createTempDirectory(target, prefix);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static JsonNode readJson(Path file) {
    try {
      return JSON.readTree(file.toFile());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file, e);
    }
  }

  static JsonNode readYaml(Path file) {
    try {
      return YAML.readTree(file.toFile());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file, e);
    }
  }

  static String read(Path file) {
    try {
      return Files.readString(file);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file, e);
    }
  }
}
