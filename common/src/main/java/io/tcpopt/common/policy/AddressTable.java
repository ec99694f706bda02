package io.tcpopt.common.policy;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * One side (source or destination) of the compiled classifier: maps an address to the set of
 * sequences whose condition on that side holds, as a bitset row (bit i = i-th sequence in match
 * order).
 *
 * <p>At compile time the address space of each family is cut at every prefix start and end into
 * elementary intervals; every address of an interval lies in the same prefix lists, hence satisfies
 * the same sequences. Intervals with equal rows are merged and rows are shared. A lookup is a
 * binary search over the sorted interval starts, no allocation. For IPv4 a 65,536-entry index on the
 * top 16 bits (256KiB per table) first narrows the search to the intervals of that /16, usually a
 * handful, which keeps the lookup inside a few cache lines even with 10,000 prefixes.
 */
final class AddressTable {
  private static final BigInteger V4_END = BigInteger.ONE.shiftLeft(32);
  private static final BigInteger V6_END = BigInteger.ONE.shiftLeft(128);
  private static final BigInteger LONG_MASK = BigInteger.ONE.shiftLeft(64).subtract(BigInteger.ONE);

  // Interval starts with the sign bit flipped, so that signed comparison orders them as unsigned.
  private final int[] v4Starts;
  private final long[][] v4Rows;
  // v4Rows[i][0], flat: up to 64 sequences a lookup needs no second dereference.
  private final long[] v4Words;
  // v4Index[b] = the interval containing address b << 16; v4Index[65536] = the last interval.
  // Null for small tables, where a plain binary search is as fast.
  private final int[] v4Index;
  private final long[] v6StartsHigh;
  private final long[] v6StartsLow;
  private final long[][] v6Rows;
  private final long[] v6Words;

  /**
   * @param lists the prefixes of each prefix list, by list index
   * @param required for each sequence in match order, the index of the list this side must be in,
   *     or -1 when the sequence has no condition on this side
   */
  AddressTable(List<List<Cidr>> lists, int[] required) {
    int words = Math.max(1, (required.length + 63) >>> 6);
    Map<BitSet, long[]> rows = new HashMap<>();
    Intervals v4 = build(lists, required, true, words, rows);
    Intervals v6 = build(lists, required, false, words, rows);
    v4Starts = new int[v4.starts.size()];
    for (int i = 0; i < v4Starts.length; i++) {
      v4Starts[i] = v4.starts.get(i).intValue() ^ Integer.MIN_VALUE;
    }
    v4Rows = v4.rows.toArray(new long[0][]);
    v4Words = firstWords(v4Rows);
    v4Index = v4Starts.length <= SMALL ? null : v4Index(v4Starts);
    v6StartsHigh = new long[v6.starts.size()];
    v6StartsLow = new long[v6.starts.size()];
    for (int i = 0; i < v6StartsHigh.length; i++) {
      BigInteger s = v6.starts.get(i);
      v6StartsHigh[i] = s.shiftRight(64).longValue() ^ Long.MIN_VALUE;
      v6StartsLow[i] = s.and(LONG_MASK).longValue() ^ Long.MIN_VALUE;
    }
    v6Rows = v6.rows.toArray(new long[0][]);
    v6Words = firstWords(v6Rows);
  }

  private static long[] firstWords(long[][] rows) {
    long[] out = new long[rows.length];
    for (int i = 0; i < rows.length; i++) {
      out[i] = rows[i][0];
    }
    return out;
  }

  private static final int SMALL = 64;

  private static int[] v4Index(int[] starts) {
    int[] index = new int[(1 << 16) + 1];
    int interval = 0;
    for (int b = 0; b < 1 << 16; b++) {
      int blockStart = (b << 16) ^ Integer.MIN_VALUE;
      while (interval + 1 < starts.length && starts[interval + 1] <= blockStart) {
        interval++;
      }
      index[b] = interval;
    }
    index[1 << 16] = starts.length - 1;
    return index;
  }

  private static final class Intervals {
    final List<BigInteger> starts = new ArrayList<>();
    final List<long[]> rows = new ArrayList<>();
  }

  private static Intervals build(
      List<List<Cidr>> lists, int[] required, boolean ipv4, int words, Map<BitSet, long[]> rowCache) {
    BitSet referenced = new BitSet();
    for (int r : required) {
      if (r >= 0) {
        referenced.set(r);
      }
    }
    BigInteger end = ipv4 ? V4_END : V6_END;
    int bits = ipv4 ? 32 : 128;
    // position -> events, each (list index << 1) | (1 = enter, 0 = leave)
    TreeMap<BigInteger, List<Integer>> events = new TreeMap<>();
    events.put(BigInteger.ZERO, new ArrayList<>());
    for (int list = referenced.nextSetBit(0); list >= 0; list = referenced.nextSetBit(list + 1)) {
      for (Cidr c : lists.get(list)) {
        if (c.isIpv4() != ipv4) {
          continue;
        }
        BigInteger start = new BigInteger(1, c.network().getAddress());
        BigInteger stop = start.add(BigInteger.ONE.shiftLeft(bits - c.prefixLength()));
        events.computeIfAbsent(start, k -> new ArrayList<>()).add((list << 1) | 1);
        if (stop.compareTo(end) < 0) {
          events.computeIfAbsent(stop, k -> new ArrayList<>()).add(list << 1);
        }
      }
    }
    int[] depth = new int[lists.size()];
    BitSet active = new BitSet();
    Intervals out = new Intervals();
    for (Map.Entry<BigInteger, List<Integer>> e : events.entrySet()) {
      for (int ev : e.getValue()) {
        int list = ev >>> 1;
        depth[list] += (ev & 1) == 1 ? 1 : -1;
        active.set(list, depth[list] > 0);
      }
      long[] row = rowCache.computeIfAbsent((BitSet) active.clone(), a -> row(a, required, words));
      if (out.rows.isEmpty() || out.rows.get(out.rows.size() - 1) != row) {
        out.starts.add(e.getKey());
        out.rows.add(row);
      }
    }
    return out;
  }

  private static long[] row(BitSet activeLists, int[] required, int words) {
    long[] row = new long[words];
    for (int s = 0; s < required.length; s++) {
      if (required[s] < 0 || activeLists.get(required[s])) {
        row[s >>> 6] |= 1L << s;
      }
    }
    return row;
  }

  /** The row for an IPv4 address given as a 32-bit int (network order value). */
  long[] lookupV4(int address) {
    return v4Rows[intervalV4(address)];
  }

  /** The first 64 bits of {@link #lookupV4}: the whole row when there are at most 64 sequences. */
  long lookupV4Word(int address) {
    return v4Words[intervalV4(address)];
  }

  private int intervalV4(int address) {
    int key = address ^ Integer.MIN_VALUE;
    int from = 0;
    int to = v4Starts.length - 1;
    if (v4Index != null) {
      int block = address >>> 16;
      from = v4Index[block];
      to = v4Index[block + 1];
      if (from == to) {
        return from;
      }
    }
    // The answer lies in [from, to]: the last interval start <= address.
    int i = Arrays.binarySearch(v4Starts, from, to + 1, key);
    return i >= 0 ? i : -i - 2;
  }

  /** The row for an IPv6 address given as its high and low 64 bits. */
  long[] lookupV6(long high, long low) {
    return v6Rows[intervalV6(high, low)];
  }

  long lookupV6Word(long high, long low) {
    return v6Words[intervalV6(high, low)];
  }

  private int intervalV6(long high, long low) {
    long h = high ^ Long.MIN_VALUE;
    long l = low ^ Long.MIN_VALUE;
    int lo = 0;
    int hi = v6StartsHigh.length - 1;
    // Find the last start <= address; v6Starts[0] is 0 so the answer exists.
    while (lo < hi) {
      int mid = (lo + hi + 1) >>> 1;
      long mh = v6StartsHigh[mid];
      if (mh < h || (mh == h && v6StartsLow[mid] <= l)) {
        lo = mid;
      } else {
        hi = mid - 1;
      }
    }
    return lo;
  }

  int intervalCount() {
    return v4Starts.length + v6StartsHigh.length;
  }
}
