package io.tcpopt.reduction.store;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A node's chunk cache: chunks by fingerprint, in a bounded LRU memory tier and, when configured,
 * a bounded disk tier that survives restarts ({@link DiskTier}). Every stream of every peer, in
 * both directions, reads and fills the same cache, so data seen in any flow can be sent as a
 * reference later.
 *
 * <p>The cache has an <em>epoch</em>: a random non-zero id drawn when the cache starts empty (at
 * every start without a disk tier, when the disk tier is new or unreadable, or on {@link
 * #reset()}). A peer's knowledge of this cache is valid for one epoch only. Chunks leaving the
 * cache (from both tiers) and epoch changes are reported to {@link Listener}s, outside the lock.
 *
 * <p>A chunk is identified by fingerprint, length and CRC-32C together: a lookup with a length or
 * CRC other than the stored one is a miss, and storing a different chunk under a fingerprint
 * already held replaces it. Thread-safe (one lock).
 */
public final class ChunkStore implements AutoCloseable {
  /** Told about chunks that left the cache and about a new epoch. Called without the store's lock. */
  public interface Listener {
    void evicted(List<Fingerprint> fingerprints);

    void epochChanged(long epoch);
  }

  /** Counters and sizes at one moment. */
  public record Stats(long epoch, int memoryChunks, long memoryBytes, int diskChunks, long diskBytes, long hits,
      long misses) {}

  private final StoreSettings settings;
  private final MemoryTier memory;
  private final DiskTier disk;
  private final List<Listener> listeners = new CopyOnWriteArrayList<>();
  private long epoch;
  private long hits;
  private long misses;

  private ChunkStore(StoreSettings settings) {
    this.settings = settings;
    this.memory = new MemoryTier(settings.memoryBytes());
    this.disk = settings.diskDir() == null ? null
        : new DiskTier(settings.diskDir(), settings.diskBytes(), settings.segmentBytes());
    this.epoch = disk != null ? disk.epoch() : DiskTier.newEpoch();
  }

  /** Opens the cache; with a disk tier, what the directory holds is checked and kept. */
  public static ChunkStore open(StoreSettings settings) {
    return new ChunkStore(settings);
  }

  public void addListener(Listener l) {
    listeners.add(l);
  }

  public void removeListener(Listener l) {
    listeners.remove(l);
  }

  public synchronized long epoch() {
    return epoch;
  }

  /** The most chunk bytes this cache holds: its larger tier. */
  public long capacityBytes() {
    return disk != null ? Math.max(settings.memoryBytes(), settings.diskBytes()) : settings.memoryBytes();
  }

  public StoreSettings settings() {
    return settings;
  }

  /** A copy of the chunk's bytes if this exact chunk is held, else null. */
  public byte[] get(Fingerprint f, int length, int crc) {
    ChunkBytes c = find(f, length, crc);
    return c == null ? null : c.toArray();
  }

  /**
   * The chunk's bytes where the cache holds them (never changing, see {@link ChunkBytes}) if this
   * exact chunk is held, else null; a chunk found on disk is brought into memory.
   */
  public ChunkBytes find(Fingerprint f, int length, int crc) {
    List<Fingerprint> evicted = new ArrayList<>(0);
    ChunkBytes found = null;
    synchronized (this) {
      ChunkBytes e = memory.get(f);
      if (e != null && e.matches(length, crc)) {
        hits++;
        return memory.touch(f, e);
      }
      byte[] data = disk == null ? null : disk.read(f, length, crc, evicted);
      if (data != null) {
        found = memory.put(f, data, 0, data.length, crc, evicted);
        hits++;
      } else {
        misses++;
      }
      if (disk != null && !evicted.isEmpty()) { // without a disk tier, what memory let go is gone
        evicted.removeIf(this::holds);
      }
    }
    notifyEvicted(evicted);
    return found;
  }

  /** Whether this exact chunk is held (a memory hit counts as a use). */
  public synchronized boolean contains(Fingerprint f, int length, int crc) {
    ChunkBytes e = memory.get(f);
    return (e != null && e.matches(length, crc)) || (disk != null && disk.contains(f, length, crc));
  }

  /** Stores a copy of the chunk, or makes it most recently used if this exact chunk is already held. */
  public void put(Fingerprint f, byte[] data, int crc) {
    put(f, data, 0, data.length, crc);
  }

  /** {@link #put(Fingerprint, byte[], int)} for the chunk {@code data[offset, offset + length)}. */
  public void put(Fingerprint f, byte[] data, int offset, int length, int crc) {
    List<Fingerprint> evicted = new ArrayList<>(0);
    synchronized (this) {
      ChunkBytes e = memory.get(f);
      boolean onDisk = disk != null && disk.contains(f, length, crc);
      if (e == null || !e.matches(length, crc)) {
        memory.put(f, data, offset, length, crc, evicted);
      }
      if (disk != null && !onDisk) {
        disk.append(f, data, offset, length, crc, evicted);
      }
      if (disk != null && !evicted.isEmpty()) { // without a disk tier, what memory let go is gone
        evicted.removeIf(this::holds);
      }
    }
    notifyEvicted(evicted);
  }

  /**
   * The cache's bytes for the chunk {@code data[offset, offset + length)}: those it holds when it
   * holds these exact bytes (compared byte for byte, so a colliding chunk is never taken for them;
   * made most recently used), else a copy that it stores as {@link #put} does. A sender that meets
   * a chunk again so copies nothing, and the caller's buffer may be reused at once.
   */
  public ChunkBytes share(Fingerprint f, byte[] data, int offset, int length, int crc) {
    List<Fingerprint> evicted = new ArrayList<>(0);
    ChunkBytes stored;
    synchronized (this) {
      // One lookup for both outcomes (a sender meets a new chunk as often as an old one).
      ChunkBytes e = memory.get(f);
      boolean matches = e != null && e.matches(length, crc);
      boolean onDisk = disk != null && disk.contains(f, length, crc);
      if (matches && (disk == null || onDisk) && e.sameAs(data, offset, length)) {
        return memory.touch(f, e);
      }
      stored = memory.put(f, data, offset, length, crc, evicted);
      if (disk != null && !onDisk) {
        disk.append(f, data, offset, length, crc, evicted);
      }
      if (disk != null && !evicted.isEmpty()) { // without a disk tier, what memory let go is gone
        evicted.removeIf(this::holds);
      }
    }
    notifyEvicted(evicted);
    return stored;
  }

  /** A chunk the cache holds and its fingerprint. */
  public record Held(Fingerprint fingerprint, ChunkBytes bytes) {}

  /**
   * The chunk {@code data[offset, offset + length)} if the memory tier holds these exact bytes
   * (found by CRC-32C and length, then compared byte for byte; made most recently used), with the
   * fingerprint it was stored under, else null. A sender meeting a chunk again so skips SHA-256:
   * the fingerprint was computed from the same bytes when they were stored. A chunk only on disk,
   * or whose CRC and length another held chunk shares, is not found: the caller fingerprints it
   * and calls {@link #share}.
   */
  public Held shareKnown(byte[] data, int offset, int length, int crc) {
    synchronized (this) {
      Fingerprint f = memory.fingerprintOf(crc, length);
      if (f == null) {
        return null;
      }
      ChunkBytes e = memory.get(f);
      if (e == null || !e.matches(length, crc) || !e.sameAs(data, offset, length)
          || (disk != null && !disk.contains(f, length, crc))) {
        return null;
      }
      return new Held(f, memory.touch(f, e));
    }
  }

  /** Whether either tier still holds a chunk under {@code f}: a chunk pushed out of memory may still be on disk. */
  private boolean holds(Fingerprint f) {
    return memory.contains(f) || (disk != null && disk.contains(f));
  }

  /** Empties the cache under a new epoch (listeners hear it); returns the new epoch. */
  public long reset() {
    long e = DiskTier.newEpoch();
    synchronized (this) {
      memory.clear();
      if (disk != null) {
        try {
          disk.wipe(e);
        } catch (IOException x) {
          throw new UncheckedIOException("cannot reset the disk cache", x);
        }
      }
      epoch = e;
    }
    for (Listener l : listeners) {
      l.epochChanged(e);
    }
    return e;
  }

  public synchronized Stats stats() {
    return new Stats(epoch, memory.size(), memory.bytes(), disk == null ? 0 : disk.size(),
        disk == null ? 0 : disk.bytes(), hits, misses);
  }

  private void notifyEvicted(List<Fingerprint> evicted) {
    if (!evicted.isEmpty()) {
      for (Listener l : listeners) {
        l.evicted(evicted);
      }
    }
  }

  @Override
  public synchronized void close() {
    if (disk != null) {
      disk.close();
    }
  }
}
