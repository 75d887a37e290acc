/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.server.policy;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/** A clock tests set and advance by hand. Thread-safe. */
public final class MutableClock extends Clock {
  private volatile Instant now;

  public MutableClock(Instant now) {
    this.now = now;
  }

  public static MutableClock at(String instant) {
    return new MutableClock(Instant.parse(instant));
  }

  public void set(Instant instant) {
    now = instant;
  }

  public void set(String instant) {
    now = Instant.parse(instant);
  }

  public void advance(Duration duration) {
    now = now.plus(duration);
  }

  @Override
  public Instant instant() {
    return now;
  }

  @Override
  public ZoneId getZone() {
    return ZoneOffset.UTC;
  }

  @Override
  public Clock withZone(ZoneId zone) {
    throw new UnsupportedOperationException("a MutableClock is in UTC");
  }
}
