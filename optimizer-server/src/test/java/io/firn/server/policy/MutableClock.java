package io.firn.server.policy;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/** A clock tests set and advance by hand. Thread-safe. */
final class MutableClock extends Clock {
  private volatile Instant now;

  MutableClock(Instant now) {
    this.now = now;
  }

  static MutableClock at(String instant) {
    return new MutableClock(Instant.parse(instant));
  }

  void set(Instant instant) {
    now = instant;
  }

  void set(String instant) {
    now = Instant.parse(instant);
  }

  void advance(Duration duration) {
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
