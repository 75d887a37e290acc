/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.core.catalog;

import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.TreeSet;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * Which catalog settings are credentials, how the server withholds them from workers ({@code
 * auth.shareCatalogCredentials: false}), and how a worker adds its own from a properties file
 * ({@code FIRN_CATALOG_PROPERTIES}: lines {@code <catalog>.<property>=<value>}, e.g. {@code
 * lake.jdbc.password=...}; ADR 0017).
 */
public final class CatalogCredentials {
  /** The environment variable naming a worker's own catalog properties file. */
  public static final String ENV = "FIRN_CATALOG_PROPERTIES";

  private static final List<String> MARKERS =
      List.of("password", "secret", "token", "credential", "access-key", "private-key", "sas");

  private static final Pattern URI_PASSWORD =
      Pattern.compile("([?&;])password=[^&;]*", Pattern.CASE_INSENSITIVE);

  private CatalogCredentials() {}

  /** True for property keys that hold credentials (passwords, secrets, tokens, keys). */
  public static boolean isCredential(String key) {
    String lower = key.toLowerCase(Locale.ROOT);
    return MARKERS.stream().anyMatch(lower::contains);
  }

  /** The credential keys of a catalog's settings (a password in its URI counts as {@code uri}). */
  public static List<String> credentialKeys(CatalogSettings settings) {
    TreeSet<String> keys = new TreeSet<>();
    settings.properties().keySet().stream()
        .filter(CatalogCredentials::isCredential)
        .forEach(keys::add);
    if (settings.uri() != null && URI_PASSWORD.matcher(settings.uri()).find()) {
      keys.add("uri (password=)");
    }
    return List.copyOf(keys);
  }

  /** The settings without credential properties and without a {@code password=} in the URI. */
  public static CatalogSettings withoutCredentials(CatalogSettings settings) {
    Map<String, String> kept = new LinkedHashMap<>();
    settings
        .properties()
        .forEach(
            (key, value) -> {
              if (!isCredential(key)) {
                kept.put(key, value);
              }
            });
    return new CatalogSettings(
        settings.name(),
        settings.type(),
        uriWithoutPassword(settings.uri()),
        settings.warehouse(),
        kept);
  }

  /** A JDBC or HTTP URI without its {@code password=} parameter; null stays null. */
  public static @Nullable String uriWithoutPassword(@Nullable String uri) {
    if (uri == null) {
      return null;
    }
    String kept = URI_PASSWORD.matcher(uri).replaceAll("$1").replace("?&", "?").replace("&&", "&");
    if (kept.endsWith("?") || kept.endsWith("&")) {
      kept = kept.substring(0, kept.length() - 1);
    }
    return kept;
  }

  /**
   * The server's settings of a catalog with the worker's own properties for it laid over them:
   * {@code <catalog>.<property>} entries of {@code local}; the worker's value wins.
   */
  public static CatalogSettings withLocal(CatalogSettings fromServer, Map<String, String> local) {
    String prefix = fromServer.name() + ".";
    Map<String, String> merged = new LinkedHashMap<>(fromServer.properties());
    local.forEach(
        (key, value) -> {
          if (key.startsWith(prefix) && key.length() > prefix.length()) {
            merged.put(key.substring(prefix.length()), value);
          }
        });
    return new CatalogSettings(
        fromServer.name(), fromServer.type(), fromServer.uri(), fromServer.warehouse(), merged);
  }

  /**
   * The worker's own catalog properties: the file named by {@link #ENV}, or none when unset.
   *
   * @throws UncheckedIOException when the file is named but cannot be read
   */
  public static Map<String, String> localProperties(Map<String, String> environment) {
    String file = environment.get(ENV);
    if (file == null || file.isBlank()) {
      return Map.of();
    }
    Properties properties = new Properties();
    try (Reader in = Files.newBufferedReader(Path.of(file), StandardCharsets.UTF_8)) {
      properties.load(in);
    } catch (IOException e) {
      throw new UncheckedIOException(
          ENV + " names " + file + ", which cannot be read: " + e.getMessage(), e);
    }
    Map<String, String> values = new LinkedHashMap<>();
    properties.stringPropertyNames().forEach(k -> values.put(k, properties.getProperty(k)));
    return Map.copyOf(values);
  }
}
