package io.tcpopt.reduction.store;

import io.tcpopt.common.config.ConfigException;
import io.tcpopt.common.config.ConfigTree;
import java.nio.file.Path;

/**
 * Sizes of a node's chunk cache: the memory tier and the optional disk tier.
 *
 * <pre>
 * service-node:
 *   data-reduction:
 *     memory-cache: 256MiB                                  # default 256MiB
 *     disk-cache: { dir: /var/lib/tcpopt/cache, size: 4GiB } # optional; size default 4GiB
 * </pre>
 *
 * @param memoryBytes the memory tier's bound, chunk bytes plus about 100 bytes of bookkeeping each
 * @param diskDir the disk tier's directory, or null for memory only
 * @param diskBytes the disk tier's bound (segment files); ignored without {@code diskDir}
 * @param segmentBytes size at which a disk segment is sealed and a new one started; 0 for the
 *     default, {@code diskBytes / 16} within 1 MiB .. 256 MiB (the unit of disk eviction)
 */
public record StoreSettings(long memoryBytes, Path diskDir, long diskBytes, long segmentBytes) {
  public static final long DEFAULT_MEMORY = 256L << 20;
  public static final long DEFAULT_DISK = 4L << 30;
  static final long MIN_MEMORY = 64L << 10;
  static final long MIN_SEGMENT = 64L << 10;

  public StoreSettings {
    if (memoryBytes < MIN_MEMORY) {
      throw new IllegalArgumentException("memory cache must be at least 64KiB, got " + memoryBytes);
    }
    if (diskDir != null) {
      if (segmentBytes == 0) {
        segmentBytes = Math.max(1L << 20, Math.min(256L << 20, diskBytes / 16));
      }
      if (segmentBytes < MIN_SEGMENT || segmentBytes > Integer.MAX_VALUE) {
        throw new IllegalArgumentException("disk segment size must be between 64KiB and 2GiB, got " + segmentBytes);
      }
      if (diskBytes < 2 * segmentBytes) {
        throw new IllegalArgumentException("disk cache must hold at least two segments (" + 2 * segmentBytes + " bytes), got " + diskBytes);
      }
    }
  }

  public static StoreSettings memory(long bytes) {
    return new StoreSettings(bytes, null, 0, 0);
  }

  public static StoreSettings defaults() {
    return memory(DEFAULT_MEMORY);
  }

  public StoreSettings withDisk(Path dir, long bytes) {
    return new StoreSettings(memoryBytes, dir, bytes, 0);
  }

  /** Reads the node config's {@code data-reduction} section; a missing section gives the defaults. */
  public static StoreSettings from(ConfigTree section) {
    section.requireOnly("memory-cache", "disk-cache");
    long memory = section.bytes("memory-cache", DEFAULT_MEMORY); // default 256MiB
    if (memory < (1L << 20) || memory > (1L << 40)) {
      throw new ConfigException(section.path() + ".memory-cache", "must be between 1MiB and 1TiB, got " + memory);
    }
    if (!section.has("disk-cache")) {
      return memory(memory);
    }
    ConfigTree d = section.get("disk-cache").requireOnly("dir", "size");
    String dir = d.string("dir").trim();
    if (dir.isEmpty()) {
      throw new ConfigException(d.path() + ".dir", "must name a directory");
    }
    long size = d.bytes("size", DEFAULT_DISK); // default 4GiB
    if (size < (16L << 20) || size > (1L << 44)) {
      throw new ConfigException(d.path() + ".size", "must be between 16MiB and 16TiB, got " + size);
    }
    return memory(memory).withDisk(Path.of(dir), size);
  }
}
