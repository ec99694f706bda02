package io.tcpopt.reduction.store;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.security.SecureRandom;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The disk tier: chunks appended to segment files, an index in memory, bounded in bytes by
 * deleting the oldest segment (a chunk read from the oldest quarter is copied forward to the
 * active segment, so segment eviction approximates LRU). Survives a restart: the epoch is kept in
 * {@code cache.meta}, a sealed segment's index in its {@code .idx} file, and the active segment is
 * scanned. Whatever fails a check (a bad magic, CRC, length or epoch, a truncated record) is
 * discarded, never served: a chunk's data CRC is checked again on every read. File formats are in
 * docs/data-reduction.md ("Disk cache"). Not thread-safe: {@link ChunkStore} holds the lock.
 *
 * <p>Trade-off: reads and appends are plain positional file I/O on the caller's thread, served by
 * the page cache in the common case.
 */
final class DiskTier implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(DiskTier.class);

  static final String META = "cache.meta";
  static final int META_MAGIC = 0x54435043; // "TCPC"
  static final int SEGMENT_MAGIC = 0x54435053; // "TCPS"
  static final int INDEX_MAGIC = 0x54435049; // "TCPI"
  static final int VERSION = 1;
  static final int META_BYTES = 20;
  static final int SEGMENT_HEADER = 28;
  static final int RECORD_HEADER = 28;
  static final int INDEX_HEADER = 28;
  static final int INDEX_ENTRY = 28;
  static final int MAX_CHUNK = 1 << 16;

  /** Where a chunk is: segment, offset of its record header, length and data CRC. */
  record Location(Segment segment, int offset, int length, int crc) {
    boolean matches(int length, int crc) {
      return this.length == length && this.crc == crc;
    }
  }

  static final class Segment {
    final long id;
    final Path path;
    FileChannel channel;
    long size;
    boolean sealed;

    Segment(long id, Path path, FileChannel channel, long size) {
      this.id = id;
      this.path = path;
      this.channel = channel;
      this.size = size;
    }
  }

  private final Path dir;
  private final long capacity;
  private final long segmentBytes;
  private final Deque<Segment> segments = new ArrayDeque<>(); // oldest first; the last is active
  private final Map<Fingerprint, Location> index = new HashMap<>();
  private long epoch;
  private long totalBytes;
  private long nextId;
  private long appendFailures;

  DiskTier(Path dir, long capacity, long segmentBytes) {
    this.dir = dir;
    this.capacity = capacity;
    this.segmentBytes = segmentBytes;
    try {
      Files.createDirectories(dir);
      Long kept = readMeta();
      if (kept == null) {
        wipe(newEpoch());
      } else {
        epoch = kept;
        load();
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot open the disk cache in " + dir, e);
    }
  }

  long epoch() {
    return epoch;
  }

  long bytes() {
    return totalBytes;
  }

  int size() {
    return index.size();
  }

  boolean contains(Fingerprint f, int length, int crc) {
    Location l = index.get(f);
    return l != null && l.matches(length, crc);
  }

  boolean contains(Fingerprint f) {
    return index.containsKey(f);
  }

  /**
   * The chunk's bytes if this tier holds exactly that chunk and its data is intact; a corrupt
   * record is dropped from the index ({@code evicted} gets it) and reads as a miss.
   */
  byte[] read(Fingerprint f, int length, int crc, List<Fingerprint> evicted) {
    Location l = index.get(f);
    if (l == null || !l.matches(length, crc)) {
      return null;
    }
    byte[] data = new byte[length];
    try {
      ByteBuffer b = ByteBuffer.wrap(data);
      long at = l.offset + (long) RECORD_HEADER;
      while (b.hasRemaining()) {
        int n = l.segment.channel.read(b, at + b.position());
        if (n < 0) {
          break;
        }
      }
      if (b.hasRemaining() || Crc.of(data) != crc) {
        log.warn("disk cache: chunk {} in {} fails its check; dropped", f, l.segment.path.getFileName());
        index.remove(f);
        evicted.add(f);
        return null;
      }
    } catch (IOException e) {
      log.warn("disk cache: cannot read {}: {}", l.segment.path.getFileName(), e.toString());
      return null;
    }
    if (segments.size() >= 4 && l.segment.id < oldestQuarterBound()) {
      append(f, data, crc, evicted); // copy forward: a chunk in use survives its segment's eviction
    }
    return data;
  }

  private long oldestQuarterBound() {
    int skip = segments.size() / 4;
    int i = 0;
    for (Segment s : segments) {
      if (i++ == skip) {
        return s.id;
      }
    }
    return Long.MIN_VALUE;
  }

  /** Appends a chunk; appends the fingerprints that left the tier (segment eviction) to {@code evicted}. */
  void append(Fingerprint f, byte[] data, int crc, List<Fingerprint> evicted) {
    append(f, data, 0, data.length, crc, evicted);
  }

  /** {@link #append(Fingerprint, byte[], int, List)} for the chunk {@code data[from, from + length)}. */
  void append(Fingerprint f, byte[] data, int from, int length, int crc, List<Fingerprint> evicted) {
    try {
      Segment active = segments.peekLast();
      if (active == null || active.size + RECORD_HEADER + length > segmentBytes) {
        if (active != null) {
          seal(active);
        }
        active = createSegment();
        evictOldest(evicted);
      }
      byte[] header = new byte[RECORD_HEADER];
      f.write(header, 0);
      putInt(header, 16, length);
      putInt(header, 20, crc);
      putInt(header, 24, Crc.of(header, 0, 24));
      int offset = (int) active.size;
      writeFully(active.channel, ByteBuffer.wrap(header), offset);
      writeFully(active.channel, ByteBuffer.wrap(data, from, length).slice(), offset + (long) RECORD_HEADER);
      active.size += RECORD_HEADER + length;
      totalBytes += RECORD_HEADER + length;
      index.put(f, new Location(active, offset, length, crc));
    } catch (IOException e) {
      if (appendFailures++ % 10_000 == 0) { // a full disk fails every append: say so, not 10,000 times
        log.warn("disk cache: cannot append to {} ({} failures so far): {}", dir, appendFailures, e.toString());
      }
    }
  }

  private void evictOldest(List<Fingerprint> evicted) throws IOException {
    while (totalBytes > capacity - segmentBytes && segments.size() > 1) {
      Segment oldest = segments.pollFirst();
      index.entrySet().removeIf(e -> {
        if (e.getValue().segment == oldest) {
          evicted.add(e.getKey());
          return true;
        }
        return false;
      });
      totalBytes -= oldest.size;
      oldest.channel.close();
      Files.deleteIfExists(oldest.path);
      Files.deleteIfExists(indexPath(oldest.id));
    }
  }

  /** Deletes every segment and starts again under {@code newEpoch}. */
  void wipe(long newEpoch) throws IOException {
    closeSegments();
    index.clear();
    totalBytes = 0;
    try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, "*.{seg,idx}")) {
      for (Path p : files) {
        Files.deleteIfExists(p);
      }
    }
    epoch = newEpoch;
    writeMeta();
    nextId = 1;
  }

  @Override
  public void close() {
    Segment active = segments.peekLast();
    try {
      if (active != null && !active.sealed) {
        active.channel.force(false);
      }
    } catch (IOException e) {
      log.warn("disk cache: cannot sync {}: {}", active.path.getFileName(), e.toString());
    }
    closeSegments();
  }

  private void closeSegments() {
    for (Segment s : segments) {
      try {
        s.channel.close();
      } catch (IOException e) {
        log.debug("closing {}: {}", s.path, e.toString());
      }
    }
    segments.clear();
  }

  static long newEpoch() {
    long e;
    do {
      e = new SecureRandom().nextLong();
    } while (e == 0);
    return e;
  }

  // ---- files ---------------------------------------------------------------------------------

  private Path segmentPath(long id) {
    return dir.resolve(String.format("%016x.seg", id));
  }

  private Path indexPath(long id) {
    return dir.resolve(String.format("%016x.idx", id));
  }

  private Long readMeta() throws IOException {
    Path p = dir.resolve(META);
    if (!Files.exists(p)) {
      return null;
    }
    byte[] b = Files.readAllBytes(p);
    if (b.length != META_BYTES || intAt(b, 0) != META_MAGIC || shortAt(b, 4) != VERSION
        || intAt(b, 16) != Crc.of(b, 0, 16) || Fingerprint.longAt(b, 8) == 0) {
      log.warn("disk cache: {} is not a valid cache header; starting an empty cache", p);
      return null;
    }
    return Fingerprint.longAt(b, 8);
  }

  private void writeMeta() throws IOException {
    byte[] b = new byte[META_BYTES];
    putInt(b, 0, META_MAGIC);
    b[4] = 0;
    b[5] = VERSION;
    Fingerprint.putLong(b, 8, epoch);
    putInt(b, 16, Crc.of(b, 0, 16));
    Path tmp = dir.resolve(META + ".tmp");
    Files.write(tmp, b);
    Files.move(tmp, dir.resolve(META), StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
  }

  private Segment createSegment() throws IOException {
    long id = nextId++;
    Path p = segmentPath(id);
    FileChannel ch = FileChannel.open(p, StandardOpenOption.CREATE_NEW, StandardOpenOption.READ, StandardOpenOption.WRITE);
    byte[] h = segmentHeader(id);
    writeFully(ch, ByteBuffer.wrap(h), 0);
    Segment s = new Segment(id, p, ch, SEGMENT_HEADER);
    segments.addLast(s);
    totalBytes += SEGMENT_HEADER;
    return s;
  }

  private byte[] segmentHeader(long id) {
    byte[] h = new byte[SEGMENT_HEADER];
    putInt(h, 0, SEGMENT_MAGIC);
    h[5] = VERSION;
    Fingerprint.putLong(h, 8, epoch);
    Fingerprint.putLong(h, 16, id);
    putInt(h, 24, Crc.of(h, 0, 24));
    return h;
  }

  /** Seals a full segment: writes its index file (entries still pointing into it) for a fast restart. */
  private void seal(Segment s) throws IOException {
    s.sealed = true;
    List<Map.Entry<Fingerprint, Location>> in = new ArrayList<>();
    for (Map.Entry<Fingerprint, Location> e : index.entrySet()) {
      if (e.getValue().segment == s) {
        in.add(e);
      }
    }
    byte[] b = new byte[INDEX_HEADER + in.size() * INDEX_ENTRY + 4];
    putInt(b, 0, INDEX_MAGIC);
    b[5] = VERSION;
    Fingerprint.putLong(b, 8, epoch);
    Fingerprint.putLong(b, 16, s.id);
    putInt(b, 24, in.size());
    int at = INDEX_HEADER;
    for (Map.Entry<Fingerprint, Location> e : in) {
      e.getKey().write(b, at);
      putInt(b, at + 16, e.getValue().offset);
      putInt(b, at + 20, e.getValue().length);
      putInt(b, at + 24, e.getValue().crc);
      at += INDEX_ENTRY;
    }
    putInt(b, at, Crc.of(b, 0, at));
    Path tmp = dir.resolve(indexPath(s.id).getFileName() + ".tmp");
    Files.write(tmp, b);
    Files.move(tmp, indexPath(s.id), StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
  }

  /** Opens the segments of the kept epoch, oldest first; drops what fails a check. */
  private void load() throws IOException {
    TreeMap<Long, Path> found = new TreeMap<>();
    try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, "*.seg")) {
      for (Path p : files) {
        String name = p.getFileName().toString();
        Long id = parseId(name.substring(0, name.length() - 4));
        if (id == null || id <= 0) {
          log.warn("disk cache: {} is not a segment name; deleted", name);
          Files.deleteIfExists(p);
        } else {
          found.put(id, p);
        }
      }
    }
    nextId = found.isEmpty() ? 1 : found.lastKey() + 1;
    for (Map.Entry<Long, Path> e : found.entrySet()) {
      boolean last = e.getKey().equals(found.lastKey());
      openSegment(e.getKey(), e.getValue(), last);
    }
    try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, "*.idx")) {
      for (Path p : files) {
        String name = p.getFileName().toString();
        Long id = parseId(name.substring(0, name.length() - 4));
        if (id == null || !found.containsKey(id)) {
          Files.deleteIfExists(p); // an index without its segment
        }
      }
    }
    Segment active = segments.peekLast();
    if (active != null && active.sealed) {
      createSegment();
    }
    evictOldest(new ArrayList<>()); // the bound may have shrunk since the last run
    log.info("disk cache {}: epoch {}, {} chunks in {} segments, {} bytes", dir, Long.toHexString(epoch), index.size(),
        segments.size(), totalBytes);
  }

  private static Long parseId(String hex) {
    if (hex.length() != 16) {
      return null;
    }
    try {
      return Long.parseUnsignedLong(hex, 16);
    } catch (NumberFormatException e) {
      return null;
    }
  }

  private void openSegment(long id, Path p, boolean last) throws IOException {
    FileChannel ch = FileChannel.open(p, StandardOpenOption.READ, StandardOpenOption.WRITE);
    long fileSize = ch.size();
    byte[] h = new byte[SEGMENT_HEADER];
    if (fileSize < SEGMENT_HEADER || readFully(ch, h, 0) < SEGMENT_HEADER || intAt(h, 0) != SEGMENT_MAGIC
        || shortAt(h, 4) != VERSION || intAt(h, 24) != Crc.of(h, 0, 24) || Fingerprint.longAt(h, 8) != epoch
        || Fingerprint.longAt(h, 16) != id) {
      log.warn("disk cache: segment {} has a bad header or another epoch; deleted", p.getFileName());
      ch.close();
      Files.deleteIfExists(p);
      Files.deleteIfExists(indexPath(id));
      return;
    }
    Segment s = new Segment(id, p, ch, fileSize);
    boolean indexed = !last && loadIndex(s);
    if (!indexed) {
      long end = scan(s);
      if (end < fileSize) {
        log.warn("disk cache: segment {} has {} bytes past its last intact record; truncated", p.getFileName(),
            fileSize - end);
        ch.truncate(end);
        s.size = end;
      }
    }
    s.sealed = !last || s.size >= segmentBytes;
    if (s.sealed && !indexed) {
      seal(s);
    }
    segments.addLast(s);
    totalBytes += s.size;
  }

  /** Loads a sealed segment's index file; false when it is missing or fails a check. */
  private boolean loadIndex(Segment s) throws IOException {
    Path p = indexPath(s.id);
    if (!Files.exists(p)) {
      return false;
    }
    byte[] b = Files.readAllBytes(p);
    if (b.length < INDEX_HEADER + 4 || intAt(b, 0) != INDEX_MAGIC || shortAt(b, 4) != VERSION
        || Fingerprint.longAt(b, 8) != epoch || Fingerprint.longAt(b, 16) != s.id) {
      log.warn("disk cache: index {} is not valid; scanning its segment", p.getFileName());
      return false;
    }
    long count = intAt(b, 24) & 0xffffffffL;
    if (b.length != INDEX_HEADER + count * INDEX_ENTRY + 4 || intAt(b, b.length - 4) != Crc.of(b, 0, b.length - 4)) {
      log.warn("disk cache: index {} fails its check; scanning its segment", p.getFileName());
      return false;
    }
    List<Map.Entry<Fingerprint, Location>> entries = new ArrayList<>();
    for (int at = INDEX_HEADER; at < b.length - 4; at += INDEX_ENTRY) {
      int offset = intAt(b, at + 16);
      int length = intAt(b, at + 20);
      if (offset < SEGMENT_HEADER || length <= 0 || length > MAX_CHUNK
          || (long) offset + RECORD_HEADER + length > s.size) {
        log.warn("disk cache: index {} points outside its segment; scanning the segment", p.getFileName());
        return false;
      }
      entries.add(Map.entry(Fingerprint.read(b, at), new Location(s, offset, length, intAt(b, at + 24))));
    }
    for (Map.Entry<Fingerprint, Location> e : entries) {
      index.put(e.getKey(), e.getValue());
    }
    return true;
  }

  /** Indexes the records of a segment up to the first one that fails a check; returns where that is. */
  private long scan(Segment s) throws IOException {
    long at = SEGMENT_HEADER;
    byte[] h = new byte[RECORD_HEADER];
    ByteBuffer buffer = ByteBuffer.allocate(1 << 16);
    long bufferStart = at;
    buffer.limit(0);
    while (true) {
      if (buffer.remaining() < RECORD_HEADER) {
        bufferStart = at;
        buffer.clear();
        while (buffer.hasRemaining()) {
          int n = s.channel.read(buffer, bufferStart + buffer.position());
          if (n <= 0) {
            break;
          }
        }
        buffer.flip();
        if (buffer.remaining() < RECORD_HEADER) {
          return at;
        }
      }
      buffer.get(h);
      int length = intAt(h, 16);
      if (intAt(h, 24) != Crc.of(h, 0, 24) || length <= 0 || length > MAX_CHUNK
          || at + RECORD_HEADER + length > s.size) {
        return at;
      }
      index.put(Fingerprint.read(h, 0), new Location(s, (int) at, length, intAt(h, 20)));
      at += RECORD_HEADER + length;
      long inBuffer = at - bufferStart;
      if (inBuffer <= buffer.limit()) {
        buffer.position((int) inBuffer);
      } else {
        buffer.limit(0);
      }
    }
  }

  private static void writeFully(FileChannel ch, ByteBuffer b, long position) throws IOException {
    while (b.hasRemaining()) {
      ch.write(b, position + b.position());
    }
  }

  private static int readFully(FileChannel ch, byte[] into, long position) throws IOException {
    ByteBuffer b = ByteBuffer.wrap(into);
    while (b.hasRemaining()) {
      if (ch.read(b, position + b.position()) < 0) {
        break;
      }
    }
    return b.position();
  }

  static int intAt(byte[] b, int offset) {
    return ((b[offset] & 0xff) << 24) | ((b[offset + 1] & 0xff) << 16) | ((b[offset + 2] & 0xff) << 8) | (b[offset + 3] & 0xff);
  }

  static int shortAt(byte[] b, int offset) {
    return ((b[offset] & 0xff) << 8) | (b[offset + 1] & 0xff);
  }

  static void putInt(byte[] b, int offset, int v) {
    b[offset] = (byte) (v >>> 24);
    b[offset + 1] = (byte) (v >>> 16);
    b[offset + 2] = (byte) (v >>> 8);
    b[offset + 3] = (byte) v;
  }
}
