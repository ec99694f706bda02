package io.tcpopt.reduction;

import static io.tcpopt.reduction.SegmentFormat.CHUNK_OP_BYTES;
import static io.tcpopt.reduction.SegmentFormat.LITERAL_OP_BYTES;
import static io.tcpopt.reduction.SegmentFormat.MAX_HEADER;
import static io.tcpopt.reduction.SegmentFormat.MAX_OPS;
import static io.tcpopt.reduction.SegmentFormat.MAX_PREFIX;
import static io.tcpopt.reduction.SegmentFormat.REF_OP_BYTES;

import io.tcpopt.common.policy.DataReduction;
import io.tcpopt.common.policy.DataReduction.Compression;
import io.tcpopt.reduction.ControlMessage.ChunkId;
import io.tcpopt.reduction.chunk.GearChunker;
import io.tcpopt.reduction.codec.Codecs;
import io.tcpopt.reduction.codec.CompressionGuard;
import io.tcpopt.reduction.store.ChunkBytes;
import io.tcpopt.reduction.store.ChunkStore;
import io.tcpopt.reduction.store.Crc;
import io.tcpopt.reduction.store.Fingerprint;
import io.tcpopt.reduction.store.FingerprintFunction;
import java.util.ArrayDeque;
import java.util.Arrays;

/**
 * Encodes one stream's bytes for the peer: the transport {@link #write}s what it read from the LAN
 * leg, {@link #flush}es when the leg has nothing more for now, {@link #finish}es at the leg's FIN,
 * and sends every segment {@link #poll} returns, in order, as the payload of one DATA frame. The
 * decoded length of all segments equals the bytes written, so stream credit can be counted on the
 * input as it is today; the transport reports returned credit with {@link #acknowledged}.
 *
 * <p>With deduplication, bytes are cut into content-defined chunks; a chunk the peer holds goes as
 * a 25-byte reference, any other as literal bytes and a one-byte end-of-chunk mark (the peer then
 * fingerprints and stores it). A flush sends the unfinished chunk's bytes at once as literals — latency first — yet
 * the chunk goes on: when it ends, its fingerprint covers all its bytes, so chunk boundaries do not
 * depend on when the transport flushed. Literal bytes of a segment are compressed together when
 * the mode asks for it and the {@link CompressionGuard} agrees.
 *
 * <p>Confined to the stream's thread; the peer's shared state is locked inside {@link PeerReduction}.
 */
public final class StreamEncoder {
  /**
   * The most bytes one segment decodes to, below the format's 1 MiB: a segment of references
   * becomes one array of this size at the receiver, and arrays of 512 KiB and more are "humongous"
   * to the G1 collector of a 2 GiB heap (allocated and reclaimed region by region), which a
   * repeated transfer would make by the hundred. Costs 32 bytes of header per 256 KiB.
   */
  static final int MAX_SEGMENT_DECODED = 256 * 1024;

  private final PeerReduction peer;
  /** This stream among the peer's: the owner of the chunks it introduced until acknowledged. */
  private final int id;
  private final DataReduction mode;
  private final int maxSegment;
  private final FingerprintFunction fingerprints;
  private final GearChunker chunker;
  private final CompressionGuard guard = new CompressionGuard();
  private final ReductionStats stats;

  // the unfinished chunk (deduplication only): bytes since the last boundary, how many already sent
  private byte[] open;
  private int openLength;
  private int openSent;

  // the segment being built
  private final Bytes ops = new Bytes(256);
  private final Bytes literal = new Bytes(4096);
  private int opCount;
  private int decoded;
  private int lastLiteralOp = -1;
  private long segmentReferenceEpoch;
  private byte[] zstdPrefix;
  private byte[] compressed;

  private final ArrayDeque<byte[]> ready = new ArrayDeque<>();
  /** Where sealed segments go instead of {@link #ready}, or null. */
  private SegmentSink sink;
  /** The sink's head (header and ops) of the segment being sealed, reused. */
  private Bytes head;
  private long written;
  private long acknowledged;
  /** Chunks this stream sent as literals, not yet acknowledged. */
  private final ArrayDeque<Literal> pending = new ArrayDeque<>();
  /** Chunks this stream sent as references, not yet acknowledged. */
  private final ArrayDeque<Reference> references = new ArrayDeque<>();

  /**
   * Takes each segment as it is sealed, in order, instead of {@link #poll}: the segment is {@code
   * head[0, headLength)} followed by {@code body[0, bodyLength)}, both valid only during the call
   * (the encoder reuses them), so the transport copies them once, straight into the buffer it
   * sends, rather than the encoder building an array that the transport copies again.
   */
  public interface SegmentSink {
    void segment(byte[] head, int headLength, byte[] body, int bodyLength, int decodedLength);
  }

  /** A chunk sent as literal bytes, ending at stream offset {@code end}. */
  private record Literal(long end, Fingerprint fingerprint) {}

  /** A chunk sent as a reference, ending at stream offset {@code end}; its bytes kept to answer a NACK. */
  private record Reference(long end, ChunkId id) {}
  private boolean finished;
  private boolean closed;

  StreamEncoder(PeerReduction peer, DataReduction mode, int maxSegmentBytes, int id) {
    if (maxSegmentBytes < 1024) {
      throw new IllegalArgumentException("segments need at least 1 KiB, got " + maxSegmentBytes);
    }
    this.peer = peer;
    this.id = id;
    this.mode = mode;
    this.maxSegment = maxSegmentBytes;
    this.fingerprints = peer.engine().settings().fingerprints();
    this.chunker = mode.deduplication() ? new GearChunker(peer.engine().settings().chunker()) : null;
    this.stats = peer.stats();
  }

  public DataReduction mode() {
    return mode;
  }

  int id() {
    return id;
  }

  /** Takes {@code data[offset, offset + length)} (copied; the caller keeps its buffer). */
  public void write(byte[] data, int offset, int length) {
    checkOpen();
    stats.lanBytesOut.add(length);
    if (chunker == null) {
      written += length;
      addLiteral(data, offset, length, false);
      return;
    }
    while (length > 0) {
      int n = chunker.next(data, offset, length);
      if (n >= 0 && openLength == 0) {
        // The whole chunk lies in the caller's bytes: hashed, compared and sent from there.
        written += n;
        endChunk(data, offset, n);
        offset += n;
        length -= n;
        continue;
      }
      int take = n < 0 ? length : n;
      if (open == null) {
        open = new byte[peer.engine().settings().chunker().max()];
      }
      System.arraycopy(data, offset, open, openLength, take);
      openLength += take;
      written += take;
      offset += take;
      length -= take;
      if (n >= 0) {
        endChunk(open, 0, openLength);
      }
    }
  }

  /**
   * The leg has nothing more for now: every byte written so far goes into segments ready to
   * {@link #poll}. Call it when a read burst ends, or interactive traffic waits for a boundary.
   */
  public void flush() {
    checkOpen();
    if (openLength > openSent) {
      addLiteral(open, openSent, openLength - openSent, false);
      openSent = openLength;
    }
    seal();
  }

  /**
   * Seals every chunk that ended into segments ready to send, but keeps the bytes of the open chunk:
   * sent now, they would cross as a literal even when the chunk, once it ends, is one the peer holds
   * (a repeated transfer read in small pieces would cost a partial chunk per read). The caller
   * {@link #flush}es them once the leg has been quiet a moment.
   */
  public void flushEnded() {
    checkOpen();
    seal();
  }

  /** Whether bytes of the open chunk wait for {@link #flush} (or for the chunk to end). */
  public boolean holdsOpenBytes() {
    return openLength > openSent;
  }

  /** The leg sent FIN after the bytes written: the last chunk ends here, then everything is flushed. */
  public void finish() {
    checkOpen();
    if (openLength > 0) {
      endChunk(open, 0, openLength);
    }
    if (chunker != null) {
      chunker.reset();
    }
    seal();
    finished = true;
    open = null;
  }

  /** From now on sealed segments go to {@code s} (see {@link SegmentSink}); {@link #poll} returns nothing more. */
  public void sink(SegmentSink s) {
    if (!ready.isEmpty()) {
      throw new IllegalStateException("segments wait to be polled");
    }
    sink = s;
    head = s == null ? null : new Bytes(256);
  }

  /** The next encoded segment to send, or null (always null with a {@link #sink}). */
  public byte[] poll() {
    return ready.poll();
  }

  /**
   * The peer returned {@code increment} bytes of credit: it has decoded (and written to its leg)
   * that many more bytes of this stream. Chunks this stream introduced up to there become
   * referenceable by every stream; references up to there no longer need their bytes kept.
   */
  public void acknowledged(long increment) {
    acknowledged += increment;
    while (!pending.isEmpty() && pending.peek().end() <= acknowledged) {
      peer.confirm(pending.poll().fingerprint(), this);
    }
    while (!references.isEmpty() && references.peek().end() <= acknowledged) {
      Reference r = references.poll();
      peer.release(r.id());
    }
  }

  /**
   * The stream is done. {@code clean}: it ended normally, and its unacknowledged literals are taken
   * as delivered (a later reference to one that was not is repaired by a NACK); its unacknowledged
   * references stay retained a while ({@link PeerReduction#linger}), since no credit comes back
   * after the end and the peer may still need their bytes. Otherwise (reset) both are forgotten.
   */
  public void close(boolean clean) {
    if (closed) {
      return;
    }
    closed = true;
    for (Literal p : pending) {
      if (clean) {
        peer.confirm(p.fingerprint(), this);
      } else {
        peer.abandon(p.fingerprint(), this);
      }
    }
    pending.clear();
    for (Reference r : references) {
      if (clean) {
        peer.linger(r.id()); // the peer may still decode the tail
      } else {
        peer.release(r.id());
      }
    }
    references.clear();
    ready.clear();
    open = null;
  }

  private void checkOpen() {
    if (closed || finished) {
      throw new IllegalStateException("stream encoder is " + (closed ? "closed" : "finished"));
    }
  }

  // ---- chunks ---------------------------------------------------------------------------------

  /**
   * The chunk {@code buf[from, from + length)} ended (its first {@link #openSent} bytes already
   * went as literals); {@code buf} is the open-chunk buffer or, for a chunk that began and ended
   * within one write, the caller's.
   */
  private void endChunk(byte[] buf, int from, int length) {
    int crc = Crc.of(buf, from, length);
    // The cache's own bytes: a chunk met again costs no copy (and no garbage), nor SHA-256 (found
    // by CRC and length, compared byte for byte); a new one is fingerprinted and copied into the
    // cache once, and references retain those same bytes.
    ChunkStore.Held held = peer.store().shareKnown(buf, from, length, crc);
    Fingerprint f;
    ChunkBytes data;
    if (held != null) {
      f = held.fingerprint();
      data = held.bytes();
    } else {
      f = fingerprints.of(buf, from, length);
      data = peer.store().share(f, buf, from, length, crc);
    }
    long end = written;
    long epoch = openSent < length ? peer.referenceEpoch(f, length, crc, this) : 0;
    if (epoch != 0) {
      addReference(f, length, crc, length - openSent, epoch);
      ChunkId id = new ChunkId(f, length, crc); // one key for retain and release
      peer.retain(id, data);
      references.add(new Reference(end, id));
      stats.referencesOut.increment();
      stats.referencedBytesOut.add(length - openSent);
    } else {
      if (openSent < length) {
        addLiteral(buf, from + openSent, length - openSent, true);
      }
      addChunkOp();
      peer.sentLiteral(f, length, crc, this);
      pending.add(new Literal(end, f));
      stats.chunksOut.increment();
    }
    openLength = 0;
    openSent = 0;
  }

  // ---- segment building -----------------------------------------------------------------------

  /** Bytes still free in the segment for one more op of {@code opBytes} and its literal bytes. */
  private int room(int opBytes) {
    return maxSegment - MAX_HEADER - ops.length() - literal.length() - opBytes;
  }

  /**
   * Adds literal bytes, sealing segments as they fill. {@code chunkFollows}: the last piece must
   * leave room for the CHUNK op that follows it in the same segment.
   */
  private void addLiteral(byte[] data, int offset, int length, boolean chunkFollows) {
    while (length > 0) {
      int reserve = LITERAL_OP_BYTES + (chunkFollows ? CHUNK_OP_BYTES : 0);
      int take = Math.min(length, Math.min(room(reserve), MAX_SEGMENT_DECODED - decoded));
      take = Math.min(take, SegmentFormat.MAX_LITERAL - literal.length());
      if (take <= 0 || opCount >= MAX_OPS - 2) {
        seal();
        continue;
      }
      if (lastLiteralOp >= 0) {
        byte[] a = ops.array();
        Bytes.putInt(a, lastLiteralOp + 1, Bytes.intAt(a, lastLiteralOp + 1) + take);
      } else {
        lastLiteralOp = ops.length();
        ops.u8(SegmentFormat.OP_LITERAL);
        ops.u32(take);
        opCount++;
      }
      literal.put(data, offset, take);
      decoded += take;
      offset += take;
      length -= take;
    }
  }

  /** Ends the chunk: the peer fingerprints the bytes itself and stores them. */
  private void addChunkOp() {
    if (room(CHUNK_OP_BYTES) < 0 || opCount >= MAX_OPS) {
      seal();
    }
    ops.u8(SegmentFormat.OP_CHUNK);
    opCount++;
    lastLiteralOp = -1;
  }

  private void addReference(Fingerprint f, int length, int crc, int outputBytes, long epoch) {
    if (room(REF_OP_BYTES) < 0 || opCount >= MAX_OPS || decoded + outputBytes > MAX_SEGMENT_DECODED
        || (segmentReferenceEpoch != 0 && segmentReferenceEpoch != epoch)) {
      seal();
    }
    segmentReferenceEpoch = epoch;
    ops.u8(SegmentFormat.OP_REF);
    int at = ops.reserve(Fingerprint.BYTES);
    f.write(ops.array(), at);
    ops.u32(length);
    ops.u32(crc);
    opCount++;
    decoded += outputBytes;
    lastLiteralOp = -1;
  }

  /** Finishes the segment being built (if any) and queues it. */
  private void seal() {
    if (opCount == 0) {
      return;
    }
    int rawLength = literal.length();
    int codec = SegmentFormat.CODEC_NONE;
    boolean prefixed = false;
    byte[] encoded = null;
    int encodedLength = rawLength;
    if (mode.compression() != Compression.NONE && guard.shouldTry(literal.array(), 0, rawLength)) {
      int budget = rawLength - 1;
      if (mode.compression() == Compression.LZ4) {
        encoded = compressionBuffer(Codecs.lz4Bound(rawLength));
        encodedLength = Codecs.lz4Compress(literal.array(), 0, rawLength, encoded, 0, encoded.length);
        codec = SegmentFormat.CODEC_LZ4;
      } else {
        encoded = compressionBuffer(Codecs.zstdBound(rawLength));
        encodedLength = Codecs.zstdCompress(literal.array(), 0, rawLength, zstdPrefix, encoded, 0, encoded.length);
        codec = SegmentFormat.CODEC_ZSTD;
        prefixed = zstdPrefix != null;
      }
      boolean worth = encodedLength <= budget && CompressionGuard.worthIt(rawLength, encodedLength);
      guard.result(worth, rawLength);
      if (!worth) {
        codec = SegmentFormat.CODEC_NONE;
        prefixed = false;
        encoded = null;
        encodedLength = rawLength;
      }
    }
    if (rawLength > 0) {
      zstdPrefix = codec == SegmentFormat.CODEC_ZSTD
          ? Arrays.copyOfRange(literal.array(), Math.max(0, rawLength - MAX_PREFIX), rawLength)
          : null;
    }
    boolean dedup = chunker != null;
    int flags = (dedup ? SegmentFormat.FLAG_DEDUP : 0) | (prefixed ? SegmentFormat.FLAG_PREFIX : 0)
        | (codec << SegmentFormat.CODEC_SHIFT);
    // Without a sink, sized exactly, so the array built is the segment sent (no copy of every
    // literal byte); with one, only the head is built here and the sink copies the rest.
    Bytes out;
    if (sink != null) {
      out = head;
      out.clear();
    } else {
      out = new Bytes(SegmentFormat.HEADER + (dedup ? SegmentFormat.EPOCHS : 0) + ops.length() + encodedLength, true);
    }
    out.u8(SegmentFormat.VERSION);
    out.u8(flags);
    out.u16(opCount);
    out.u32(decoded);
    out.u32(rawLength);
    out.u32(encodedLength);
    if (dedup) {
      out.u64(peer.store().epoch());
      out.u64(segmentReferenceEpoch);
    }
    out.put(ops.array(), 0, ops.length());
    byte[] body = codec == SegmentFormat.CODEC_NONE ? literal.array() : encoded;
    if (codec == SegmentFormat.CODEC_NONE) {
      stats.rawSegments.increment();
    } else {
      stats.compressedSegments.increment();
    }
    stats.wanBytesOut.add(out.length() + encodedLength);
    if (sink != null) {
      sink.segment(out.array(), out.length(), body, encodedLength, decoded);
    } else {
      out.put(body, 0, encodedLength);
      ready.add(out.length() == out.array().length ? out.array() : out.toArray());
    }
    ops.clear();
    literal.clear();
    opCount = 0;
    decoded = 0;
    lastLiteralOp = -1;
    segmentReferenceEpoch = 0;
  }

  /** The stream's one output array for compression attempts, at least {@code n} bytes. */
  private byte[] compressionBuffer(int n) {
    if (compressed == null || compressed.length < n) {
      compressed = new byte[n];
    }
    return compressed;
  }

  /** Segments that {@link CompressionGuard} let through to a compression attempt / sent as is without one. */
  public long[] guardCounts() {
    return new long[] {guard.tried(), guard.skipped()};
  }
}
