package io.tcpopt.reduction.store;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The memory tier: chunks by fingerprint in least-recently-used order, bounded in bytes (chunk bytes
 * plus {@link #ENTRY_OVERHEAD} per entry). Not thread-safe: {@link ChunkStore} holds the lock.
 */
final class MemoryTier {
  /** Bookkeeping bytes counted per entry: map node, fingerprint and entry objects. */
  static final int ENTRY_OVERHEAD = 112;

  record Entry(byte[] data, int crc) {
    boolean matches(int length, int crc) {
      return data.length == length && this.crc == crc;
    }
  }

  private final long capacity;
  private final LinkedHashMap<Fingerprint, Entry> entries = new LinkedHashMap<>(1024, 0.75f, true);
  private long bytes;

  MemoryTier(long capacity) {
    this.capacity = capacity;
  }

  /** The entry, made most recently used; null when absent. */
  Entry get(Fingerprint f) {
    return entries.get(f);
  }

  /** Stores (or replaces) an entry; appends the fingerprints it pushed out to {@code evicted}. */
  void put(Fingerprint f, byte[] data, int crc, List<Fingerprint> evicted) {
    Entry old = entries.put(f, new Entry(data, crc));
    if (old != null) {
      bytes -= old.data.length + ENTRY_OVERHEAD;
    }
    bytes += data.length + ENTRY_OVERHEAD;
    Iterator<Map.Entry<Fingerprint, Entry>> it = entries.entrySet().iterator();
    while (bytes > capacity && it.hasNext()) {
      Map.Entry<Fingerprint, Entry> eldest = it.next();
      if (eldest.getKey().equals(f) && entries.size() == 1) {
        break; // a single chunk larger than the tier stays until the next put
      }
      bytes -= eldest.getValue().data.length + ENTRY_OVERHEAD;
      it.remove();
      evicted.add(eldest.getKey());
    }
  }

  /** Whether an entry exists, without making it recently used. */
  boolean contains(Fingerprint f) {
    return entries.containsKey(f);
  }

  boolean remove(Fingerprint f) {
    Entry e = entries.remove(f);
    if (e != null) {
      bytes -= e.data.length + ENTRY_OVERHEAD;
    }
    return e != null;
  }

  void clear() {
    entries.clear();
    bytes = 0;
  }

  long bytes() {
    return bytes;
  }

  int size() {
    return entries.size();
  }

  long capacity() {
    return capacity;
  }
}
