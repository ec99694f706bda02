package io.tcpopt.reduction;

import static io.tcpopt.reduction.SegmentFormat.MAX_CHUNK;

import io.tcpopt.reduction.ControlMessage.ChunkId;
import io.tcpopt.reduction.codec.CodecException;
import io.tcpopt.reduction.codec.Codecs;
import io.tcpopt.reduction.store.ChunkBytes;
import io.tcpopt.reduction.store.ChunkStore;
import io.tcpopt.reduction.store.Crc;
import io.tcpopt.reduction.store.Fingerprint;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Decodes one stream's segments, in the stream's order, back into the bytes the peer's leg read.
 * The transport reads a segment's {@link #decodedLength} (for credit) before it {@link #offer}s it,
 * then writes whatever {@link #poll} returns to the LAN leg, in order.
 *
 * <p>A reference this node cannot resolve — the chunk is missing, its length or CRC differ (a
 * fingerprint collision), or it names another cache epoch — leaves a hole in the segment's output:
 * the chunk is requested from the peer (a NACK), and {@link #poll} returns nothing past the hole
 * until the peer's RESUPPLY fills it (the decoder's wakeup runs then). The bytes before the hole,
 * and other streams, are not held up. A chunk the peer can no longer supply fails the stream with
 * {@link ReductionException}: never a corrupt or truncated byte.
 *
 * <p>Confined to the stream's thread, except the wakeup.
 */
public final class StreamDecoder {
  private final PeerReduction peer;
  private final Runnable wakeup;
  private final ReductionStats stats;
  private final io.tcpopt.reduction.store.FingerprintFunction fingerprints;
  private final ArrayDeque<Decoded> output = new ArrayDeque<>();
  private byte[] open;
  private int openLength;
  private byte[] zstdPrefix;
  private boolean closed;

  /** A reference waiting for the peer's bytes: where its output goes and the chunk prefix already seen. */
  private static final class Hole {
    final ChunkId id;
    final int at;
    final byte[] prefix;

    Hole(ChunkId id, int at, byte[] prefix) {
      this.id = id;
      this.at = at;
      this.prefix = prefix;
    }
  }

  /** One segment's output, complete when it has no holes left. */
  private static final class Decoded {
    final byte[] bytes;
    final List<Hole> holes;

    Decoded(byte[] bytes, List<Hole> holes) {
      this.bytes = bytes;
      this.holes = holes;
    }
  }

  StreamDecoder(PeerReduction peer, Runnable wakeup) {
    this.peer = peer;
    this.wakeup = wakeup == null ? () -> {} : wakeup;
    this.stats = peer.stats();
    this.fingerprints = peer.engine().settings().fingerprints();
  }

  Runnable wakeup() {
    return wakeup;
  }

  /**
   * The decoded length a segment states (to count against stream credit before decoding it).
   *
   * @throws ReductionException when the segment is too short, of another version, or states more
   *     than 1 MiB
   */
  public static int decodedLength(byte[] segment) {
    return decodedLength(segment, segment.length);
  }

  private static int decodedLength(byte[] segment, int length) {
    if (length < SegmentFormat.HEADER) {
      throw bad("shorter than its 16-byte header");
    }
    if ((segment[0] & 0xff) != SegmentFormat.VERSION) {
      throw bad("version " + (segment[0] & 0xff) + ", this node speaks " + SegmentFormat.VERSION);
    }
    int n = Bytes.intAt(segment, 4);
    if (n < 0 || n > SegmentFormat.MAX_DECODED) {
      throw bad("decoded length " + (n & 0xffffffffL) + " above " + SegmentFormat.MAX_DECODED);
    }
    return n;
  }

  /** Decodes the next segment of the stream. Malformed: {@link ReductionException} (reset the stream). */
  public void offer(byte[] segment) {
    offer(segment, segment.length);
  }

  /**
   * Decodes the segment in {@code segment[0, length)}. The decoder keeps nothing of the array, so
   * the caller may reuse it at once (one receive buffer per thread rather than an array per frame).
   */
  public void offer(byte[] segment, int length) {
    if (closed) {
      throw new IllegalStateException("stream decoder is closed");
    }
    if (length < 0 || length > segment.length) {
      throw new IllegalArgumentException("length " + length + " of a " + segment.length + "-byte array");
    }
    stats.wanBytesIn.add(length);
    Decoded d = decode(segment, length);
    output.add(d);
  }

  /**
   * The next decoded bytes in stream order, or null when there are none yet (nothing offered, or
   * the next segment waits for chunks requested from the peer).
   *
   * @throws ReductionException when the peer could not supply a chunk this stream needs
   */
  public byte[] poll() {
    while (true) {
      Decoded d = output.peek();
      if (d == null) {
        return null;
      }
      if (!d.holes.isEmpty() && !fill(d)) {
        return null;
      }
      output.poll();
      if (d.bytes.length > 0) { // a segment may only end a chunk
        stats.lanBytesIn.add(d.bytes.length);
        return d.bytes;
      }
    }
  }

  /** Whether the next output waits for chunks requested from the peer. */
  public boolean waiting() {
    Decoded d = output.peek();
    return d != null && !d.holes.isEmpty();
  }

  /** Bytes decoded and not yet polled (including those behind a hole). */
  public long buffered() {
    long n = 0;
    for (Decoded d : output) {
      n += d.bytes.length;
    }
    return n;
  }

  /** The stream is done (or reset): stops waiting for anything. */
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    for (Decoded d : output) {
      for (Hole h : d.holes) {
        peer.unwant(h.id, this);
      }
    }
    output.clear();
    open = null;
    zstdPrefix = null;
  }

  /** Fills the holes of {@code d} that can be filled; true when none is left. */
  private boolean fill(Decoded d) {
    ChunkStore store = peer.store();
    byte[][] supplied = new byte[1][];
    for (int i = d.holes.size() - 1; i >= 0; i--) {
      Hole h = d.holes.get(i);
      byte[] data = null;
      PeerReduction.Supply s = peer.takeSupplied(h.id, this, supplied);
      switch (s) {
        case READY:
          data = supplied[0];
          break;
        case UNAVAILABLE:
          throw new ReductionException("chunk " + h.id.fingerprint() + " (" + h.id.length()
              + " bytes) is no longer held by peer " + peer.name());
        case UNREGISTERED:
          data = store.get(h.id.fingerprint(), h.id.length(), h.id.crc());
          if (data == null) {
            peer.want(h.id, this);
          }
          break;
        default:
          // The literal may have come on another stream meanwhile (its frames travel other connections).
          data = store.get(h.id.fingerprint(), h.id.length(), h.id.crc());
          if (data != null) {
            peer.unwant(h.id, this);
          }
          break;
      }
      if (data == null) {
        continue;
      }
      if (!startsWith(data, h.prefix)) {
        throw new ReductionException("chunk " + h.id.fingerprint() + " does not start with the bytes this stream"
            + " already has for it");
      }
      System.arraycopy(data, h.prefix.length, d.bytes, h.at, data.length - h.prefix.length);
      d.holes.remove(i);
    }
    return d.holes.isEmpty();
  }

  private static boolean startsWith(byte[] data, byte[] prefix) {
    return Arrays.equals(data, 0, prefix.length, prefix, 0, prefix.length);
  }

  // ---- one segment ----------------------------------------------------------------------------

  /** {@code s[0, end)} is the segment. */
  private Decoded decode(byte[] s, int end) {
    int decodedLength = decodedLength(s, end);
    int flags = s[1] & 0xff;
    if ((flags & ~SegmentFormat.FLAGS_KNOWN) != 0) {
      throw bad("unknown flags 0x" + Integer.toHexString(flags));
    }
    boolean dedup = (flags & SegmentFormat.FLAG_DEDUP) != 0;
    boolean prefixed = (flags & SegmentFormat.FLAG_PREFIX) != 0;
    int codec = (flags & SegmentFormat.CODEC_MASK) >>> SegmentFormat.CODEC_SHIFT;
    int opCount = Bytes.u16At(s, 2);
    int rawLength = Bytes.intAt(s, 8);
    int encodedLength = Bytes.intAt(s, 12);
    if (codec > SegmentFormat.CODEC_ZSTD) {
      throw bad("unknown codec " + codec);
    }
    if (prefixed && (codec != SegmentFormat.CODEC_ZSTD || zstdPrefix == null)) {
      throw bad("PREFIX without a zstd block and a previous zstd literal block");
    }
    if (opCount == 0) {
      throw bad("no ops");
    }
    if (rawLength < 0 || rawLength > SegmentFormat.MAX_LITERAL || encodedLength < 0
        || (codec == SegmentFormat.CODEC_NONE ? encodedLength != rawLength : (encodedLength == 0) != (rawLength == 0))) {
      throw bad("literal lengths raw " + rawLength + ", encoded " + encodedLength + " for codec " + codec);
    }
    int at = SegmentFormat.HEADER;
    long senderEpoch = 0;
    long receiverEpoch = 0;
    if (dedup) {
      if (end < at + SegmentFormat.EPOCHS) {
        throw bad("truncated epochs");
      }
      senderEpoch = Bytes.longAt(s, at);
      receiverEpoch = Bytes.longAt(s, at + 8);
      at += SegmentFormat.EPOCHS;
    }
    int opsStart = at;
    // Pass 1: check the ops and their lengths before decompressing anything.
    long literalUse = 0;
    for (int i = 0; i < opCount; i++) {
      if (at >= end) {
        throw bad("truncated op " + i);
      }
      int op = s[at] & 0xff;
      int size = opSize(op, dedup, i);
      if (at + size > end) {
        throw bad("truncated op " + i);
      }
      if (op == SegmentFormat.OP_LITERAL) {
        int n = Bytes.intAt(s, at + 1);
        if (n <= 0) {
          throw bad("LITERAL of " + (n & 0xffffffffL) + " bytes");
        }
        literalUse += n;
      }
      at += size;
    }
    if (literalUse != rawLength) {
      throw bad("LITERAL ops use " + literalUse + " bytes of a " + rawLength + "-byte literal block");
    }
    if (end - at != encodedLength) {
      throw bad((end - at) + " bytes after the ops, the header says " + encodedLength);
    }
    // An uncompressed literal block is read where it lies in the segment, not copied out first.
    byte[] literal = codec == SegmentFormat.CODEC_NONE ? s : literalBlock(s, at, encodedLength, rawLength, codec, prefixed);
    if (rawLength > 0) {
      zstdPrefix = codec == SegmentFormat.CODEC_ZSTD
          ? Arrays.copyOfRange(literal, Math.max(0, rawLength - SegmentFormat.MAX_PREFIX), rawLength)
          : null;
    }
    // Pass 2: run the ops. The open chunk's bytes that came in this segment are out[pendingFrom,
    // outAt): a chunk that begins and ends here is copied once, from there, into the cache.
    byte[] out = new byte[decodedLength];
    int outAt = 0;
    int pendingFrom = -1;
    int literalAt = codec == SegmentFormat.CODEC_NONE ? at : 0;
    List<Hole> holes = new ArrayList<>(0);
    ChunkStore store = peer.store();
    long ownEpoch = store.epoch();
    at = opsStart;
    for (int i = 0; i < opCount; i++) {
      int op = s[at] & 0xff;
      switch (op) {
        case SegmentFormat.OP_LITERAL: {
          int n = Bytes.intAt(s, at + 1);
          if (outAt + n > decodedLength) {
            throw bad("ops decode to more than the stated " + decodedLength + " bytes");
          }
          System.arraycopy(literal, literalAt, out, outAt, n);
          if (dedup) {
            if (pendingFrom < 0) {
              pendingFrom = outAt;
            }
            if (openLength + (outAt + n - pendingFrom) > MAX_CHUNK) {
              throw bad("a chunk grows past " + MAX_CHUNK + " bytes");
            }
          }
          literalAt += n;
          outAt += n;
          at += SegmentFormat.LITERAL_OP_BYTES;
          break;
        }
        case SegmentFormat.OP_CHUNK: {
          int here = pendingFrom < 0 ? 0 : outAt - pendingFrom;
          if (openLength + here == 0) {
            throw bad("CHUNK without chunk bytes");
          }
          // A chunk all in this segment is hashed where it lies and copied once, into the cache.
          byte[] chunk = out;
          int from = pendingFrom;
          int length = here;
          if (openLength > 0) {
            appendOpen(out, pendingFrom < 0 ? 0 : pendingFrom, here);
            chunk = open;
            from = 0;
            length = openLength;
          }
          pendingFrom = -1;
          Fingerprint f = fingerprints.of(chunk, from, length);
          int crc = Crc.of(chunk, from, length);
          store.put(f, chunk, from, length, crc);
          peer.peerHolds(f, length, crc, senderEpoch);
          openLength = 0;
          at += SegmentFormat.CHUNK_OP_BYTES;
          break;
        }
        case SegmentFormat.OP_REF: {
          if (pendingFrom >= 0) { // the reference completes a chunk whose first bytes came as literals
            appendOpen(out, pendingFrom, outAt - pendingFrom);
            pendingFrom = -1;
          }
          Fingerprint f = Fingerprint.read(s, at + 1);
          int length = Bytes.intAt(s, at + 17);
          int crc = Bytes.intAt(s, at + 21);
          if (length <= openLength || length > MAX_CHUNK) {
            throw bad("REF of " + length + " bytes after " + openLength + " bytes of its chunk");
          }
          int n = length - openLength;
          if (outAt + n > decodedLength) {
            throw bad("ops decode to more than the stated " + decodedLength + " bytes");
          }
          ChunkBytes data = receiverEpoch == ownEpoch ? store.find(f, length, crc) : null;
          if (data != null && (openLength == 0 || data.startsWith(open, openLength))) {
            data.copyTo(openLength, out, outAt);
          } else {
            holes.add(new Hole(new ChunkId(f, length, crc), outAt, Arrays.copyOf(open == null ? new byte[0] : open, openLength)));
          }
          peer.peerHolds(f, length, crc, senderEpoch);
          openLength = 0;
          outAt += n;
          at += SegmentFormat.REF_OP_BYTES;
          break;
        }
        default: // CUT
          openLength = 0;
          pendingFrom = -1;
          at += SegmentFormat.CUT_OP_BYTES;
          break;
      }
    }
    if (outAt != decodedLength) {
      throw bad("ops decode to " + outAt + " bytes, the header says " + decodedLength);
    }
    if (pendingFrom >= 0) { // the chunk goes on in the next segment
      appendOpen(out, pendingFrom, outAt - pendingFrom);
    }
    if (!dedup) {
      openLength = 0;
    }
    for (Hole h : holes) {
      peer.want(h.id, this); // only once the whole segment checked out
    }
    return new Decoded(out, holes);
  }

  private static int opSize(int op, boolean dedup, int index) {
    switch (op) {
      case SegmentFormat.OP_LITERAL:
        return SegmentFormat.LITERAL_OP_BYTES;
      case SegmentFormat.OP_CHUNK:
      case SegmentFormat.OP_REF:
      case SegmentFormat.OP_CUT:
        if (!dedup) {
          throw bad("op " + index + " (" + op + ") needs the DEDUP flag");
        }
        return op == SegmentFormat.OP_CHUNK ? SegmentFormat.CHUNK_OP_BYTES
            : op == SegmentFormat.OP_REF ? SegmentFormat.REF_OP_BYTES : SegmentFormat.CUT_OP_BYTES;
      default:
        throw bad("unknown op " + op + " at op " + index);
    }
  }

  private void appendOpen(byte[] b, int offset, int n) {
    if (openLength + n > MAX_CHUNK) {
      throw bad("a chunk grows past " + MAX_CHUNK + " bytes");
    }
    if (open == null) {
      open = new byte[Math.min(MAX_CHUNK, Math.max(16384, openLength + n))];
    } else if (openLength + n > open.length) {
      open = Arrays.copyOf(open, Math.min(MAX_CHUNK, Math.max(open.length * 2, openLength + n)));
    }
    System.arraycopy(b, offset, open, openLength, n);
    openLength += n;
  }

  /** The decompressed literal block of a compressed segment. */
  private byte[] literalBlock(byte[] s, int at, int encodedLength, int rawLength, int codec, boolean prefixed) {
    try {
      switch (codec) {
        case SegmentFormat.CODEC_LZ4:
          return Codecs.lz4Decompress(s, at, encodedLength, rawLength);
        default:
          return Codecs.zstdDecompress(s, at, encodedLength, prefixed ? zstdPrefix : null, rawLength);
      }
    } catch (CodecException e) {
      throw bad(e.getMessage());
    }
  }

  private static ReductionException bad(String why) {
    return new ReductionException("malformed data-reduction segment: " + why);
  }
}
