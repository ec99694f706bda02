package io.tcpopt.reduction.store;

import java.util.Arrays;

/**
 * A table keyed by 128-bit fingerprints, in least-recently-used order, with a fixed number of int
 * fields per entry, held in primitive arrays: an entry is an index, not an object. Not thread-safe.
 *
 * <p>Why not a {@code LinkedHashMap}: a cache of a few hundred MB holds some 100,000 chunks, and
 * every new chunk met by a node added a map node, a key and a value object that lived until evicted.
 * The G1 collector copied each of them out of the young generation and refined the card of every
 * old object that came to point at one (a busy refinement thread per node), and each lookup
 * followed three or four pointers to as many cache lines: together about a third of a node's CPU
 * for new data with deduplication (docs/benchmarks.md, issue 11). Here a lookup probes an int array
 * and compares two longs; adding, touching and removing write ints and longs, which the collector
 * neither copies nor tracks.
 *
 * <p>Open addressing with linear probing over a power-of-two index of entry numbers (at most half
 * full), deletion by backward shift (no tombstones); entries are numbered densely and reused from a
 * free list; the LRU order is a doubly linked list of entry numbers.
 */
public final class FingerprintTable {
  private static final int NONE = -1;

  private final int width;
  /** Whether the table keeps the LRU order (else {@link #eldest} and {@link #touch} are not for use). */
  private final boolean ordered;
  private long[] keys; // high, low per entry
  private int[] fields; // width per entry
  private int[] older; // LRU list: the next older entry, or NONE
  private int[] newer; // the next newer entry, or NONE; the free list's link for free entries
  private int eldest = NONE;
  private int newest = NONE;
  private int[] index; // entry + 1, 0 empty
  private int mask;
  private int size;
  private int free = NONE;
  private int allocated; // entries [0, allocated) are in use or on the free list

  /** A table of entries with {@code width} int fields each (at least 0), sized for {@code expected} entries. */
  public FingerprintTable(int width, int expected) {
    this(width, expected, true);
  }

  /**
   * {@code ordered} false: a plain index without the LRU order, whose upkeep (the neighbours'
   * links, other cache lines) it then saves; {@link #eldest} is -1 and {@link #touch} does nothing.
   */
  public FingerprintTable(int width, int expected, boolean ordered) {
    if (width < 0) {
      throw new IllegalArgumentException("width " + width);
    }
    this.width = width;
    this.ordered = ordered;
    int capacity = Math.max(16, Integer.highestOneBit(Math.max(1, expected) - 1) << 1);
    keys = new long[2 * capacity];
    fields = new int[width * capacity];
    older = new int[capacity];
    newer = new int[capacity];
    index = new int[2 * capacity];
    mask = index.length - 1;
  }

  public int size() {
    return size;
  }

  /** The entry of this fingerprint, or -1; the LRU order is unchanged. */
  public int find(long high, long low) {
    for (int s = home(high, low); ; s = (s + 1) & mask) {
      int v = index[s];
      if (v == 0) {
        return NONE;
      }
      int e = v - 1;
      if (keys[2 * e] == high && keys[2 * e + 1] == low) {
        return e;
      }
    }
  }

  /** The entry of {@code f}, or -1; the LRU order is unchanged. */
  public int find(Fingerprint f) {
    return find(f.high(), f.low());
  }

  /**
   * Adds an entry for a fingerprint the table does not hold (check with {@link #find} first), as
   * the most recently used, its fields 0; returns it.
   */
  public int add(long high, long low) {
    if (2 * (size + 1) > index.length) {
      growIndex();
    }
    int e;
    if (free != NONE) {
      e = free;
      free = newer[e];
    } else {
      if (allocated == older.length) {
        growEntries();
      }
      e = allocated++;
    }
    keys[2 * e] = high;
    keys[2 * e + 1] = low;
    Arrays.fill(fields, width * e, width * e + width, 0);
    linkNewest(e);
    int s = home(high, low);
    while (index[s] != 0) {
      s = (s + 1) & mask;
    }
    index[s] = e + 1;
    size++;
    return e;
  }

  /** Makes the entry the most recently used. */
  public void touch(int e) {
    if (ordered && e != newest) {
      unlink(e);
      linkNewest(e);
    }
  }

  /** Removes the entry (its number may be reused by the next {@link #add}). */
  public void remove(int e) {
    long high = keys[2 * e];
    long low = keys[2 * e + 1];
    int s = home(high, low);
    while (index[s] != e + 1) {
      if (index[s] == 0) {
        throw new IllegalStateException("entry " + e + " is not in the table");
      }
      s = (s + 1) & mask;
    }
    deleteSlot(s);
    unlink(e);
    newer[e] = free;
    older[e] = NONE;
    free = e;
    size--;
  }

  /** The least recently used entry, or -1 when empty. */
  public int eldest() {
    return eldest;
  }

  /** The next more recently used entry after {@code e}, or -1: for walking the table from {@link #eldest}. */
  public int newerThan(int e) {
    return newer[e];
  }

  public long high(int e) {
    return keys[2 * e];
  }

  public long low(int e) {
    return keys[2 * e + 1];
  }

  /** The entry's key as a {@link Fingerprint} (a new object). */
  public Fingerprint fingerprint(int e) {
    return new Fingerprint(keys[2 * e], keys[2 * e + 1]);
  }

  public int field(int e, int k) {
    return fields[width * e + k];
  }

  public void field(int e, int k, int value) {
    fields[width * e + k] = value;
  }

  /** Removes every entry (keeps the arrays). */
  public void clear() {
    Arrays.fill(index, 0);
    eldest = NONE;
    newest = NONE;
    size = 0;
    free = NONE;
    allocated = 0;
  }

  // ---- internals ------------------------------------------------------------------------------

  private int home(long high, long low) {
    long x = high * 0x9E3779B97F4A7C15L ^ low;
    x ^= x >>> 33;
    x *= 0xFF51AFD7ED558CCDL;
    x ^= x >>> 33;
    return (int) x & mask;
  }

  /** Empties index slot {@code s}, moving later slots of the same probe run back (no tombstones). */
  private void deleteSlot(int s) {
    int hole = s;
    for (int j = (s + 1) & mask; index[j] != 0; j = (j + 1) & mask) {
      int e = index[j] - 1;
      int h = home(keys[2 * e], keys[2 * e + 1]);
      // The entry at j may fill the hole if its home is not cyclically within (hole, j].
      if (((j - h) & mask) >= ((j - hole) & mask)) {
        index[hole] = index[j];
        hole = j;
      }
    }
    index[hole] = 0;
  }

  private void linkNewest(int e) {
    if (!ordered) {
      return;
    }
    older[e] = newest;
    newer[e] = NONE;
    if (newest != NONE) {
      newer[newest] = e;
    } else {
      eldest = e;
    }
    newest = e;
  }

  private void unlink(int e) {
    if (!ordered) {
      return;
    }
    int o = older[e];
    int n = newer[e];
    if (o != NONE) {
      newer[o] = n;
    } else {
      eldest = n;
    }
    if (n != NONE) {
      older[n] = o;
    } else {
      newest = o;
    }
  }

  private void growEntries() {
    int capacity = older.length * 2;
    keys = Arrays.copyOf(keys, 2 * capacity);
    fields = Arrays.copyOf(fields, width * capacity);
    older = Arrays.copyOf(older, capacity);
    newer = Arrays.copyOf(newer, capacity);
  }

  private void growIndex() {
    int[] old = index;
    index = new int[old.length * 2];
    mask = index.length - 1;
    for (int v : old) {
      if (v != 0) {
        int e = v - 1;
        int s = home(keys[2 * e], keys[2 * e + 1]);
        while (index[s] != 0) {
          s = (s + 1) & mask;
        }
        index[s] = v;
      }
    }
  }
}
