/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.server.optimizing;

import io.firn.core.protocol.ProtocolException;
import io.firn.core.protocol.RegisterRequest;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;
import org.jspecify.annotations.Nullable;

/** What a worker may register as, and the secret that proves later messages come from it. */
final class WorkerLimits {
  /** Longest worker name, group, engine and engine version (the state store's column width). */
  static final int MAX_TEXT = 255;

  /** Most slots one worker may announce. */
  static final int MAX_SLOTS = 4096;

  private static final SecureRandom RANDOM = new SecureRandom();

  private WorkerLimits() {}

  /**
   * @throws ProtocolException naming the first field that is missing, too long or out of range
   */
  static void checkRegistration(RegisterRequest request) {
    text("name", request.name(), true);
    text("group", request.group(), false);
    if (request.group() != null && request.group().isBlank()) {
      // A blank group would be a group of its own that no policy names: its worker would idle.
      throw new ProtocolException(
          "register: group is blank; leave it out for the default group or name a group");
    }
    text("engine", request.engine(), true);
    text("engineVersion", request.engineVersion(), false);
    if (request.slots() < 1 || request.slots() > MAX_SLOTS) {
      throw new ProtocolException(
          "register: slots = " + request.slots() + ", must be between 1 and " + MAX_SLOTS);
    }
  }

  /** 256 random bits, URL-safe. */
  static String newSecret() {
    byte[] bytes = new byte[32];
    RANDOM.nextBytes(bytes);
    return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
  }

  /** Constant-time comparison; a missing secret never matches. */
  static boolean sameSecret(String expected, @Nullable String given) {
    return given != null
        && MessageDigest.isEqual(
            expected.getBytes(StandardCharsets.UTF_8), given.getBytes(StandardCharsets.UTF_8));
  }

  private static void text(String field, @Nullable String value, boolean required) {
    if (value == null || value.isBlank()) {
      if (required) {
        throw new ProtocolException("register: " + field + " is missing");
      }
      return;
    }
    if (value.length() > MAX_TEXT) {
      throw new ProtocolException(
          "register: "
              + field
              + " is "
              + value.length()
              + " characters long, at most "
              + MAX_TEXT
              + " are allowed");
    }
    for (int i = 0; i < value.length(); i++) {
      if (Character.isISOControl(value.charAt(i))) {
        throw new ProtocolException("register: " + field + " contains a control character");
      }
    }
  }
}
