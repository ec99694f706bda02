package io.tcpopt.reduction.store;

import java.util.Arrays;
import java.util.List;

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
 *
 * <p>The index is a {@link FingerprintTable}: no object per chunk either (a map node, key and
 * value per chunk cost as much collector work as the arrays did, and a pointer chase per lookup).
 * A page is numbered in allocation order and held in a slot while any of its chunks is.
 */
final class MemoryTier {
  /** Bookkeeping bytes counted per entry: the table's arrays (and their growth). */
  static final int ENTRY_OVERHEAD = 112;
  /** The largest page: 4 MiB less room for the array header, so it fills whole 1 MiB G1 regions. */
  static final int MAX_PAGE = (4 << 20) - 64;
  static final int MIN_PAGE = 64 << 10;

  // an entry's fields
  private static final int SLOT = 0;
  private static final int OFFSET = 1;
  private static final int LENGTH = 2;
  private static final int CRC = 3;
  private static final int PAGE_NUMBER = 4; // low 32 bits: only differences are used

  private final long capacity;
  private final int pageSize;
  /** Pages older than this many pages behind the newest: a chunk met there moves to the newest. */
  private final long pagesPerCapacity;
  private final FingerprintTable entries;
  /**
   * The entry of a held chunk by its CRC-32C and length (the key's high half; field 0 the entry): a
   * sender that meets a chunk again finds it without SHA-256 (and compares the bytes). One per key,
   * the latest stored; another chunk with the same CRC and length is simply not found this way.
   */
  private final FingerprintTable byContent;
  private long bytes;

  // pages by slot, with the number of held chunks in each; free slots are reused
  private byte[][] pages = new byte[16][];
  private int[] live = new int[16];
  private int[] freeSlots = new int[16];
  private int freeCount;
  private int slotsUsed;

  // the page being filled
  private int pageSlot = -1;
  private int pageUsed;
  private long pageNumber;

  MemoryTier(long capacity) {
    this.capacity = capacity;
    this.pageSize = (int) Math.max(MIN_PAGE, Math.min(MAX_PAGE, capacity / 16));
    this.pagesPerCapacity = Math.max(2, capacity / pageSize);
    int expected = (int) Math.min(1 << 20, Math.max(16, capacity / 4096));
    this.entries = new FingerprintTable(5, expected);
    this.byContent = new FingerprintTable(1, expected, false);
  }

  /** The entry, made most recently used; null when absent. */
  ChunkBytes get(Fingerprint f) {
    int e = entries.find(f);
    if (e < 0) {
      return null;
    }
    entries.touch(e);
    return bytesOf(e);
  }

  /** The fingerprint under which a chunk of this CRC and length was last stored, or null. */
  Fingerprint fingerprintOf(int crc, int length) {
    int c = byContent.find(contentKey(crc, length), 0);
    return c < 0 ? null : entries.fingerprint(byContent.field(c, 0));
  }

  private static long contentKey(int crc, int length) {
    return ((long) crc << 32) | (length & 0xffffffffL);
  }

  /** Drops the content index's entry for entry {@code e} if it names {@code e}. */
  private void forget(int e) {
    int c = byContent.find(contentKey(entries.field(e, CRC), entries.field(e, LENGTH)), 0);
    if (c >= 0 && byContent.field(c, 0) == e) {
      byContent.remove(c);
    }
  }

  /** Makes {@code e} the chunk this CRC and length lead to. */
  private void index(int e, int crc, int length) {
    long key = contentKey(crc, length);
    int c = byContent.find(key, 0);
    if (c < 0) {
      c = byContent.add(key, 0);
    }
    byContent.field(c, 0, e);
  }

  /**
   * {@code e}, the entry of {@code f} just used, or its copy in the newest page when its own page is
   * old: so that a few chunks in use do not keep many old pages in memory.
   */
  ChunkBytes touch(Fingerprint f, ChunkBytes e) {
    if (pageNumber - e.pageNumber < pagesPerCapacity) {
      return e;
    }
    int entry = entries.find(f);
    if (entry < 0) {
      return e;
    }
    release(entries.field(entry, SLOT));
    place(entry, e.page(), e.offset(), e.length());
    return bytesOf(entry);
  }

  /**
   * Stores (or replaces) an entry with a copy of {@code data[offset, offset + length)}; appends the
   * fingerprints it pushed out to {@code evicted}.
   */
  ChunkBytes put(Fingerprint f, byte[] data, int offset, int length, int crc, List<Fingerprint> evicted) {
    int e = entries.find(f);
    if (e >= 0) {
      bytes -= entries.field(e, LENGTH) + ENTRY_OVERHEAD;
      forget(e);
      release(entries.field(e, SLOT));
      entries.touch(e);
    } else {
      e = entries.add(f.high(), f.low());
    }
    place(e, data, offset, length);
    entries.field(e, CRC, crc);
    index(e, crc, length);
    bytes += length + ENTRY_OVERHEAD;
    while (bytes > capacity) {
      int eldest = entries.eldest();
      if (eldest == e) {
        break; // a single chunk larger than the tier stays until the next put
      }
      evicted.add(entries.fingerprint(eldest));
      removeEntry(eldest);
    }
    return bytesOf(e);
  }

  /** Copies the chunk into the newest page (or a page of its own) and points entry {@code e} there. */
  private void place(int e, byte[] data, int offset, int length) {
    int slot;
    int at;
    int number;
    if (length > pageSize) { // not from the chunker (whose chunks are at most 64 KiB): a page of its own
      slot = newSlot(Arrays.copyOfRange(data, offset, offset + length));
      at = 0;
      number = (int) ++pageNumber;
    } else {
      if (pageSlot < 0 || pageUsed + length > pages[pageSlot].length) {
        int previous = pageSlot;
        pageSlot = newSlot(new byte[pageSize]);
        pageUsed = 0;
        pageNumber++;
        if (previous >= 0 && live[previous] == 0) {
          freeSlot(previous);
        }
      }
      System.arraycopy(data, offset, pages[pageSlot], pageUsed, length);
      slot = pageSlot;
      at = pageUsed;
      pageUsed += length;
      number = (int) pageNumber;
    }
    live[slot]++;
    entries.field(e, SLOT, slot);
    entries.field(e, OFFSET, at);
    entries.field(e, LENGTH, length);
    entries.field(e, PAGE_NUMBER, number);
  }

  private ChunkBytes bytesOf(int e) {
    // page numbers are kept as their low 32 bits: the full number is the newest's less the difference
    long number = pageNumber - ((int) pageNumber - entries.field(e, PAGE_NUMBER));
    return new ChunkBytes(pages[entries.field(e, SLOT)], entries.field(e, OFFSET), entries.field(e, LENGTH),
        entries.field(e, CRC), number);
  }

  private int newSlot(byte[] page) {
    int slot;
    if (freeCount > 0) {
      slot = freeSlots[--freeCount];
    } else {
      if (slotsUsed == pages.length) {
        pages = Arrays.copyOf(pages, 2 * pages.length);
        live = Arrays.copyOf(live, 2 * live.length);
        freeSlots = Arrays.copyOf(freeSlots, 2 * freeSlots.length);
      }
      slot = slotsUsed++;
    }
    pages[slot] = page;
    live[slot] = 0;
    return slot;
  }

  /** One chunk of the page in {@code slot} is no longer held here; the page goes with its last. */
  private void release(int slot) {
    if (--live[slot] == 0 && slot != pageSlot) {
      freeSlot(slot);
    }
  }

  private void freeSlot(int slot) {
    pages[slot] = null; // the page itself stays with whoever still holds a ChunkBytes of it
    freeSlots[freeCount++] = slot;
  }

  private void removeEntry(int e) {
    bytes -= entries.field(e, LENGTH) + ENTRY_OVERHEAD;
    forget(e);
    release(entries.field(e, SLOT));
    entries.remove(e);
  }

  /** Whether an entry exists, without making it recently used. */
  boolean contains(Fingerprint f) {
    return entries.find(f) >= 0;
  }

  boolean remove(Fingerprint f) {
    int e = entries.find(f);
    if (e >= 0) {
      removeEntry(e);
    }
    return e >= 0;
  }

  /** Empties the tier; the pages go with their last holders. */
  void clear() {
    entries.clear();
    byContent.clear();
    bytes = 0;
    Arrays.fill(pages, null);
    freeCount = 0;
    slotsUsed = 0;
    pageSlot = -1;
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
