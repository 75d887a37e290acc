/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.core.maintenance;

import java.util.Locale;

/**
 * Compares file locations written in different forms: {@code file:/a}, {@code file:///a} and {@code
 * /a} are the same local file; {@code s3a://} and {@code s3n://} are {@code s3://}; repeated and
 * trailing slashes do not count.
 */
final class Locations {
  private Locations() {}

  static String normalize(String location) {
    String scheme;
    String rest;
    if (location.startsWith("/")) {
      scheme = "file";
      rest = location;
    } else {
      int colon = location.indexOf(':');
      if (colon < 0) {
        return collapse(location);
      }
      scheme = location.substring(0, colon).toLowerCase(Locale.ROOT);
      rest = location.substring(colon + 1);
      if (scheme.equals("s3a") || scheme.equals("s3n")) {
        scheme = "s3";
      }
    }
    if (scheme.equals("file")) {
      // file:/a, file:///a and file://localhost/a
      if (rest.startsWith("//localhost/")) {
        rest = rest.substring("//localhost".length());
      }
      return "file:" + collapse(rest);
    }
    if (rest.startsWith("//")) {
      int slash = rest.indexOf('/', 2);
      String authority = slash < 0 ? rest.substring(2) : rest.substring(2, slash);
      String path = slash < 0 ? "" : rest.substring(slash);
      return scheme + "://" + authority + collapse(path);
    }
    return scheme + ":" + collapse(rest);
  }

  /** Whether {@code location} is {@code root} or lies under it (both normalized). */
  static boolean within(String location, String root) {
    return location.equals(root) || location.startsWith(root.endsWith("/") ? root : root + "/");
  }

  private static String collapse(String path) {
    String collapsed = path.replaceAll("/{2,}", "/");
    while (collapsed.length() > 1 && collapsed.endsWith("/")) {
      collapsed = collapsed.substring(0, collapsed.length() - 1);
    }
    return collapsed;
  }
}
