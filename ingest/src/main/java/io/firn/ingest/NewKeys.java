/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.ingest;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.TimestampData;
import org.apache.iceberg.DataOperations;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotSummary;
import org.jspecify.annotations.Nullable;

/**
 * What the router knows of the keys of one upsert table whose rule says {@code inserts:
 * append-new-keys} (ADR 0008 §14): which keys the table may hold ({@link #seen}, a Bloom filter: a
 * key it has never been told of is certainly absent, a key it was told of may be present), and
 * which keys' rows of the running checkpoint sit in the table's appending writer ({@link #held},
 * exact, cleared at every barrier).
 *
 * <p>Only a table the job created itself starts with such a record: its keys are then exactly the
 * keys the job wrote. The record lives in the router's operator state, and the table's history is
 * checked against it at every restore and every completed checkpoint: a snapshot that adds rows and
 * is neither the job's own commit nor a rewrite (Firn's optimizer, maintenance, {@code replace})
 * retires the record, and the table upserts every row from the next barrier on.
 */
final class NewKeys {
  /** The snapshot summary key the job's commits carry, naming the committing job kind. */
  static final String WRITER_PROPERTY = "firn.ingest-writer";

  /** The summary key of Firn's optimizer and maintenance commits (they never add a key). */
  private static final String FIRN_PROCESS_PROPERTY = "firn.process-id";

  /** Keys one table's filter takes before the table falls back to upserts (about 20 MiB). */
  static final long MAX_KEYS = 1L << 24;

  /** Keys held across all tables of one router within one checkpoint (about 40 MiB). */
  static final int MAX_HELD = 1 << 21;

  private static final int VERSION = 1;

  final String table;
  private final KeyFilter seen;
  private final HeldKeys held = new HeldKeys();
  private long verifiedSnapshot;
  private @Nullable String retiring;

  private NewKeys(String table, KeyFilter seen, long verifiedSnapshot) {
    this.table = table;
    this.seen = seen;
    this.verifiedSnapshot = verifiedSnapshot;
  }

  /** The record of a table the job has just created: no key yet, no snapshot. */
  static NewKeys created(String table) {
    return new NewKeys(table, new KeyFilter(), -1L);
  }

  /**
   * Whether the key hashed in {@code hash} may be in the table (false: certainly not, whatever
   * happens to a held key).
   */
  boolean maySee(KeyHash hash) {
    return seen.mightContain(hash.h1, hash.h2);
  }

  /**
   * Tells the filter of a key that now has a row. False when the filter is full: the table must
   * retire at the next barrier, and this key must upsert.
   */
  boolean see(KeyHash hash) {
    if (seen.count() >= MAX_KEYS) {
      retire("its key filter is full (" + MAX_KEYS + " keys)");
      return seen.mightContain(hash.h1, hash.h2);
    }
    seen.put(hash.h1, hash.h2);
    return true;
  }

  /**
   * A held key whose row of this checkpoint was deleted: the table has no row of it (it was new in
   * this checkpoint), so it may be appended again.
   */
  static final Schema NO_ROW = new Schema();

  /**
   * Where the key in {@code hash} stands in this checkpoint: null when it is not held (its rows, if
   * any, are older or in the upsert writer), {@link #NO_ROW} when it was new in this checkpoint and
   * its row was deleted, else the schema whose appending writer holds its row.
   */
  @Nullable Schema held(KeyHash hash) {
    return held.get(hash.h1, hash.h2);
  }

  /** Holds the key in {@code hash}: its row of this checkpoint is in {@code schema}'s writer. */
  void hold(KeyHash hash, Schema schema) {
    held.put(hash.h1, hash.h2, schema);
  }

  /**
   * The held row of the key in {@code hash} is deleted: the key stays held, with {@link #NO_ROW}.
   */
  void release(KeyHash hash) {
    held.put(hash.h1, hash.h2, NO_ROW);
  }

  int heldCount() {
    return held.size();
  }

  /** The barrier: the appending writers start new files, nothing of theirs is held. */
  void barrier() {
    held.clear();
  }

  /** Appends of new keys stop at the next barrier, for {@code why}. */
  void retire(String why) {
    if (retiring == null) {
      retiring = why;
    }
  }

  /** Why the table retires at the next barrier, or null while it appends new keys. */
  @Nullable String retiring() {
    return retiring;
  }

  /** Whether new keys may still be appended (held keys go to their writer until the barrier). */
  boolean appends() {
    return retiring == null;
  }

  long keys() {
    return seen.count();
  }

  /**
   * Checks the snapshots of the table since the last check, newest first: the first one that adds
   * rows of another writer, or null (and the check moves to {@code snapshots}' newest).
   *
   * @param snapshots the table's current snapshot and its ancestors, newest first
   */
  @Nullable Snapshot foreign(Iterable<Snapshot> snapshots) {
    Long newest = null;
    for (Snapshot snapshot : snapshots) {
      if (newest == null) {
        newest = snapshot.snapshotId();
      }
      if (snapshot.snapshotId() == verifiedSnapshot) {
        break;
      }
      if (addsForeignRows(snapshot)) {
        return snapshot;
      }
    }
    if (newest != null) {
      verifiedSnapshot = newest;
    }
    return null;
  }

  /** Whether {@code snapshot} may add a key the job did not write. */
  static boolean addsForeignRows(Snapshot snapshot) {
    Map<String, String> summary = snapshot.summary();
    if (summary.containsKey(WRITER_PROPERTY) || summary.containsKey(FIRN_PROCESS_PROPERTY)) {
      return false;
    }
    String operation = snapshot.operation();
    if (DataOperations.REPLACE.equals(operation) || DataOperations.DELETE.equals(operation)) {
      return false;
    }
    return !"0".equals(summary.getOrDefault(SnapshotSummary.ADDED_RECORDS_PROP, "unknown"))
        || !"0".equals(summary.getOrDefault(SnapshotSummary.ADDED_FILES_PROP, "0"));
  }

  /** The record as operator state. */
  byte[] toBytes() {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      out.writeInt(VERSION);
      out.writeUTF(table);
      out.writeLong(verifiedSnapshot);
      seen.writeTo(out);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return bytes.toByteArray();
  }

  /** A record from operator state ({@link #toBytes}). */
  static NewKeys fromBytes(byte[] state) {
    try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(state))) {
      int version = in.readInt();
      if (version != VERSION) {
        throw new IllegalStateException(
            "new-key state of version " + version + " (this job reads " + VERSION + ")");
      }
      String table = in.readUTF();
      long verified = in.readLong();
      return new NewKeys(table, KeyFilter.readFrom(in), verified);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * A 128-bit hash of a row's key values, reused per router. Values hash by their text, so that a
   * key column widened from {@code int} to {@code long} (or a decimal's precision) keeps its keys.
   */
  static final class KeyHash {
    long h1;
    long h2;

    /** Hashes the values at {@code positions} of {@code row}. */
    KeyHash of(GenericRowData row, int[] positions) {
      long a = 0x9E3779B97F4A7C15L;
      long b = 0xC2B2AE3D27D4EB4FL;
      for (int position : positions) {
        String text = text(row.getField(position));
        int length = text.length();
        for (int i = 0; i < length; i += 4) {
          long chunk = 0;
          for (int j = i; j < Math.min(i + 4, length); j++) {
            chunk = (chunk << 16) | text.charAt(j);
          }
          a = Long.rotateLeft(a ^ fmix(chunk), 27) * 0x87C37B91114253D5L + 0x52DCE729L;
          b =
              Long.rotateLeft(b ^ fmix(chunk ^ 0x4CF5AD432745937FL), 31) * 0x4CF5AD432745937FL
                  + 0x38495AB5L;
        }
        // The field's end (and length): ("ab", "c") differs from ("a", "bc").
        a = fmix(a ^ (length + 0x1F1F1F1FL));
        b = fmix(b + length + 0x3C3C3C3CL);
      }
      h1 = fmix(a + b);
      h2 = fmix(b + h1) | 1L;
      return this;
    }

    private static String text(Object value) {
      if (value instanceof DecimalData decimal) {
        return decimal.toBigDecimal().stripTrailingZeros().toPlainString();
      }
      if (value instanceof TimestampData timestamp) {
        return timestamp.getMillisecond() + "." + timestamp.getNanoOfMillisecond();
      }
      return String.valueOf(value);
    }

    /** MurmurHash3's 64-bit finalizer: a bijection that spreads every input bit. */
    private static long fmix(long k) {
      k ^= k >>> 33;
      k *= 0xFF51AFD7ED558CCDL;
      k ^= k >>> 33;
      k *= 0xC4CEB9FE1A85EC53L;
      k ^= k >>> 33;
      return k;
    }
  }

  /**
   * A Bloom filter that grows: segments of 1 Mi keys, then twice as many each, about 1 % false
   * positives each (a false positive only makes a new key upsert).
   */
  static final class KeyFilter {
    private static final int FIRST_CAPACITY = 1 << 20;
    private static final double BITS_PER_KEY = 9.6;
    private static final int HASHES = 7;

    private final List<long[]> segments = new ArrayList<>();
    private final List<Integer> capacities = new ArrayList<>();
    private long count;
    private int lastCount;

    long count() {
      return count;
    }

    boolean mightContain(long h1, long h2) {
      for (long[] bits : segments) {
        if (contains(bits, h1, h2)) {
          return true;
        }
      }
      return false;
    }

    /** Adds a key unless the filter may hold it already. */
    void put(long h1, long h2) {
      if (mightContain(h1, h2)) {
        return;
      }
      if (segments.isEmpty() || lastCount >= capacities.get(capacities.size() - 1)) {
        int capacity =
            segments.isEmpty() ? FIRST_CAPACITY : capacities.get(capacities.size() - 1) * 2;
        long words = ((long) Math.ceil(capacity * BITS_PER_KEY) + 63) / 64;
        segments.add(new long[(int) words]);
        capacities.add(capacity);
        lastCount = 0;
      }
      long[] bits = segments.get(segments.size() - 1);
      long size = bits.length * 64L;
      for (int i = 0; i < HASHES; i++) {
        long bit = Long.remainderUnsigned(h1 + i * h2, size);
        bits[(int) (bit >>> 6)] |= 1L << bit;
      }
      lastCount++;
      count++;
    }

    private static boolean contains(long[] bits, long h1, long h2) {
      long size = bits.length * 64L;
      for (int i = 0; i < HASHES; i++) {
        long bit = Long.remainderUnsigned(h1 + i * h2, size);
        if ((bits[(int) (bit >>> 6)] & (1L << bit)) == 0) {
          return false;
        }
      }
      return true;
    }

    void writeTo(DataOutputStream out) throws IOException {
      out.writeLong(count);
      out.writeInt(lastCount);
      out.writeInt(segments.size());
      for (int s = 0; s < segments.size(); s++) {
        out.writeInt(capacities.get(s));
        long[] bits = segments.get(s);
        out.writeInt(bits.length);
        for (long word : bits) {
          out.writeLong(word);
        }
      }
    }

    static KeyFilter readFrom(DataInputStream in) throws IOException {
      KeyFilter filter = new KeyFilter();
      filter.count = in.readLong();
      filter.lastCount = in.readInt();
      int segments = in.readInt();
      for (int s = 0; s < segments; s++) {
        filter.capacities.add(in.readInt());
        long[] bits = new long[in.readInt()];
        for (int i = 0; i < bits.length; i++) {
          bits[i] = in.readLong();
        }
        filter.segments.add(bits);
      }
      return filter;
    }
  }

  /**
   * The keys whose row of the running checkpoint is in an appending writer: an open-addressing
   * table of 128-bit key hashes (a collision of two keys is about as likely as 2^-100 per lookup)
   * and the schema each row was written in, or {@link #NO_ROW}.
   */
  static final class HeldKeys {
    private long[] h1s = new long[1024];
    private long[] h2s = new long[1024];
    private Schema[] schemas = new Schema[1024];
    private int size;

    int size() {
      return size;
    }

    @Nullable Schema get(long h1, long h2) {
      int mask = schemas.length - 1;
      for (int slot = (int) h1 & mask; schemas[slot] != null; slot = (slot + 1) & mask) {
        if (h1s[slot] == h1 && h2s[slot] == h2) {
          return schemas[slot];
        }
      }
      return null;
    }

    void put(long h1, long h2, Schema schema) {
      int mask = schemas.length - 1;
      int slot = (int) h1 & mask;
      for (; schemas[slot] != null; slot = (slot + 1) & mask) {
        if (h1s[slot] == h1 && h2s[slot] == h2) {
          schemas[slot] = schema;
          return;
        }
      }
      h1s[slot] = h1;
      h2s[slot] = h2;
      schemas[slot] = schema;
      if (++size * 3 > schemas.length * 2) {
        grow();
      }
    }

    void clear() {
      if (schemas.length > 1024) {
        h1s = new long[1024];
        h2s = new long[1024];
        schemas = new Schema[1024];
      } else {
        Arrays.fill(schemas, null);
      }
      size = 0;
    }

    private void grow() {
      long[] oldH1 = h1s;
      long[] oldH2 = h2s;
      Schema[] oldSchemas = schemas;
      h1s = new long[oldH1.length * 2];
      h2s = new long[oldH2.length * 2];
      schemas = new Schema[oldSchemas.length * 2];
      int mask = schemas.length - 1;
      for (int i = 0; i < oldSchemas.length; i++) {
        if (oldSchemas[i] != null) {
          int slot = (int) oldH1[i] & mask;
          while (schemas[slot] != null) {
            slot = (slot + 1) & mask;
          }
          h1s[slot] = oldH1[i];
          h2s[slot] = oldH2[i];
          schemas[slot] = oldSchemas[i];
        }
      }
    }
  }
}
