package io.tcpopt.reduction.store;

import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The memory tier: chunks by fingerprint in least-recently-used order, bounded in bytes (chunk bytes
 * plus {@link #ENTRY_OVERHEAD} per entry). Not thread-safe: {@link ChunkStore} holds the lock.
 *
 * <p>Chunk bytes are copied into large pages, filled one after the other and never written again,
 * rather than into an array each: a page of 4 MiB is a "humongous" object to the G1 collector of
 * a heap up to 16 GiB, allocated outside the young generation and never copied, where a cache of
 * 2 KiB arrays had every new chunk copied by young collections (from eden to a survivor space,
 * then to the old generation) and compacted again by mixed ones: 4-5 CPU-s of GC per GB of new
 * data per node (docs/benchmarks.md, issue 11). The trade-off: a page stays in memory while any
 * of its chunks is held, so a chunk met again whose page is older than one cache's worth of pages
 * is copied to the newest page ({@link #touch}); what the pages take stays below about twice the
 * bound (the bound counts chunk bytes, as before).
 */
final class MemoryTier {
  /** Bookkeeping bytes counted per entry: map node, fingerprint and entry objects. */
  static final int ENTRY_OVERHEAD = 112;
  /** The largest page: 4 MiB less room for the array header, so it fills whole 1 MiB G1 regions. */
  static final int MAX_PAGE = (4 << 20) - 64;
  static final int MIN_PAGE = 64 << 10;

  private final long capacity;
  private final int pageSize;
  /** Pages older than this many pages behind the newest: a chunk met there moves to the newest. */
  private final long pagesPerCapacity;
  private final LinkedHashMap<Fingerprint, ChunkBytes> entries = new LinkedHashMap<>(1024, 0.75f, true);
  /**
   * The fingerprint of a held chunk by its CRC-32C and length: a sender that meets a chunk again
   * finds it without SHA-256 (and compares the bytes). One per key, the latest stored; another chunk
   * with the same CRC and length is simply not found this way.
   */
  private final HashMap<Long, Fingerprint> byContent = new HashMap<>(1024);
  private long bytes;
  private byte[] page;
  private int pageUsed;
  private long pageNumber;

  MemoryTier(long capacity) {
    this.capacity = capacity;
    this.pageSize = (int) Math.max(MIN_PAGE, Math.min(MAX_PAGE, capacity / 16));
    this.pagesPerCapacity = Math.max(2, capacity / pageSize);
  }

  /** The entry, made most recently used; null when absent. */
  ChunkBytes get(Fingerprint f) {
    return entries.get(f);
  }

  /** The fingerprint under which a chunk of this CRC and length was last stored, or null. */
  Fingerprint fingerprintOf(int crc, int length) {
    return byContent.get(contentKey(crc, length));
  }

  private static long contentKey(int crc, int length) {
    return ((long) crc << 32) | (length & 0xffffffffL);
  }

  private void forget(Fingerprint f, ChunkBytes e) {
    byContent.remove(contentKey(e.crc(), e.length()), f);
  }

  /**
   * {@code e}, the entry of {@code f} just used, or its copy in the newest page when its own page is
   * old: so that a few chunks in use do not keep many old pages in memory.
   */
  ChunkBytes touch(Fingerprint f, ChunkBytes e) {
    if (pageNumber - e.pageNumber < pagesPerCapacity) {
      return e;
    }
    ChunkBytes moved = copy(e.page(), e.offset(), e.length(), e.crc());
    entries.put(f, moved);
    return moved;
  }

  /**
   * Stores (or replaces) an entry with a copy of {@code data[offset, offset + length)}; appends the
   * fingerprints it pushed out to {@code evicted}.
   */
  ChunkBytes put(Fingerprint f, byte[] data, int offset, int length, int crc, List<Fingerprint> evicted) {
    ChunkBytes e = copy(data, offset, length, crc);
    ChunkBytes old = entries.put(f, e);
    if (old != null) {
      bytes -= old.length() + ENTRY_OVERHEAD;
      forget(f, old);
    }
    byContent.put(contentKey(crc, length), f);
    bytes += length + ENTRY_OVERHEAD;
    Iterator<Map.Entry<Fingerprint, ChunkBytes>> it = entries.entrySet().iterator();
    while (bytes > capacity && it.hasNext()) {
      Map.Entry<Fingerprint, ChunkBytes> eldest = it.next();
      if (eldest.getKey().equals(f) && entries.size() == 1) {
        break; // a single chunk larger than the tier stays until the next put
      }
      bytes -= eldest.getValue().length() + ENTRY_OVERHEAD;
      forget(eldest.getKey(), eldest.getValue());
      it.remove();
      evicted.add(eldest.getKey());
    }
    return e;
  }

  private ChunkBytes copy(byte[] data, int offset, int length, int crc) {
    if (length > pageSize) { // not from the chunker (whose chunks are at most 64 KiB): a page of its own
      byte[] own = java.util.Arrays.copyOfRange(data, offset, offset + length);
      return new ChunkBytes(own, 0, length, crc, ++pageNumber);
    }
    if (page == null || pageUsed + length > page.length) {
      page = new byte[pageSize];
      pageUsed = 0;
      pageNumber++;
    }
    System.arraycopy(data, offset, page, pageUsed, length);
    ChunkBytes e = new ChunkBytes(page, pageUsed, length, crc, pageNumber);
    pageUsed += length;
    return e;
  }

  /** Whether an entry exists, without making it recently used. */
  boolean contains(Fingerprint f) {
    return entries.containsKey(f);
  }

  boolean remove(Fingerprint f) {
    ChunkBytes e = entries.remove(f);
    if (e != null) {
      bytes -= e.length() + ENTRY_OVERHEAD;
      forget(f, e);
    }
    return e != null;
  }

  /** Empties the tier; the pages go with their last holders. */
  void clear() {
    entries.clear();
    byContent.clear();
    bytes = 0;
    page = null;
    pageUsed = 0;
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

  int pageSize() {
    return pageSize;
  }
}
