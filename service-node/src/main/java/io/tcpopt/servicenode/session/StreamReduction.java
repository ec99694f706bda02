package io.tcpopt.servicenode.session;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.util.concurrent.FastThreadLocal;
import io.tcpopt.common.policy.DataReduction;
import io.tcpopt.reduction.PeerReduction;
import io.tcpopt.reduction.StreamDecoder;
import io.tcpopt.reduction.StreamEncoder;
import java.util.ArrayDeque;

/**
 * One stream's data reduction, a byte transform beside the stream's framing: the LAN bytes the
 * bridge writes go through a {@link StreamEncoder} and leave as encoded DATA (one segment per
 * frame, counted against the window by its decoded length); encoded DATA from the peer, in the
 * stream's order, goes through a {@link StreamDecoder} back to LAN bytes. Confined to the stream's
 * event loop except for the decoder's wakeup.
 */
final class StreamReduction {
  private static final int SCRATCH_BYTES = 64 * 1024;
  /** Where bytes of direct buffers are copied for the encoder: one array per event loop, not per flow. */
  private static final FastThreadLocal<byte[]> SCRATCH = new FastThreadLocal<>() {
    @Override
    protected byte[] initialValue() {
      return new byte[SCRATCH_BYTES];
    }
  };

  /**
   * Where encoded payloads from the peer are copied for the decoder, which keeps nothing of them:
   * one array per event loop (grown to the largest payload seen), not one per frame.
   */
  private static final FastThreadLocal<byte[]> RECEIVED = new FastThreadLocal<>() {
    @Override
    protected byte[] initialValue() {
      return new byte[SCRATCH_BYTES];
    }
  };

  private final DataReduction mode;
  private final StreamEncoder encoder;
  /**
   * Segments the encoder sealed, not yet sent: each copied once, as it is sealed, into a pooled
   * direct buffer, which the TLS engine (and the socket) read as they are. (A segment array from
   * the encoder cost a fresh array per segment and a copy into a direct buffer in the SSL handler.)
   */
  private final ArrayDeque<Sealed> sealed = new ArrayDeque<>();

  private record Sealed(ByteBuf segment, int decodedLength) {}

  private final StreamDecoder decoder;
  /** LAN bytes written to the encoder and not yet in a segment that left: they still hold credit. */
  private long unsent;
  private boolean encoderDone;

  StreamReduction(PeerReduction peer, DataReduction mode, int maxSegmentBytes, Runnable decoderWakeup) {
    this.mode = mode;
    this.encoder = peer.openEncoder(mode, maxSegmentBytes);
    this.encoder.sink(this::sealed);
    this.decoder = peer.openDecoder(decoderWakeup);
  }

  DataReduction mode() {
    return mode;
  }

  /** LAN bytes the encoder holds that no segment carries yet. */
  long unsent() {
    return unsent;
  }

  // ---- towards the peer -----------------------------------------------------------------------

  /**
   * Takes the bridge's bytes (released here). The encoder copies what it keeps, so bytes of a
   * direct buffer pass through the loop's one scratch array rather than a new array per read.
   */
  void write(ByteBuf lan) {
    try {
      int n = lan.readableBytes();
      if (lan.hasArray()) {
        encoder.write(lan.array(), lan.arrayOffset() + lan.readerIndex(), n);
      } else {
        byte[] scratch = SCRATCH.get();
        for (int at = lan.readerIndex(), left = n; left > 0; ) {
          int k = Math.min(left, SCRATCH_BYTES);
          lan.getBytes(at, scratch, 0, k);
          encoder.write(scratch, 0, k);
          at += k;
          left -= k;
        }
      }
      unsent += n;
    } finally {
      lan.release();
    }
  }

  void flush() {
    if (!encoderDone) {
      encoder.flush();
    }
  }

  /** Seals the chunks that ended; the open chunk's bytes stay held (see {@link StreamEncoder#flushEnded}). */
  void flushEnded() {
    if (!encoderDone) {
      encoder.flushEnded();
    }
  }

  /** Whether bytes of the open chunk wait for {@link #flush}. */
  boolean holdsOpenBytes() {
    return !encoderDone && encoder.holdsOpenBytes();
  }

  /** The leg's FIN: the last chunk ends; after {@link #send} the encoder is done (its chunks taken as delivered). */
  void finish() {
    if (!encoderDone) {
      encoder.finish();
    }
  }

  private void sealed(byte[] head, int headLength, byte[] body, int bodyLength, int decodedLength) {
    ByteBuf b = ByteBufAllocator.DEFAULT.directBuffer(headLength + bodyLength);
    b.writeBytes(head, 0, headLength).writeBytes(body, 0, bodyLength);
    sealed.add(new Sealed(b, decodedLength));
  }

  /** Sends every ready segment on {@code stream}; returns the WAN bytes sent. */
  long send(MuxStream stream) {
    long wan = 0;
    for (Sealed s; (s = sealed.poll()) != null; ) {
      unsent -= s.decodedLength();
      wan += s.segment().readableBytes();
      stream.writeEncoded(s.segment(), s.decodedLength());
    }
    return wan;
  }

  /** The peer returned credit: it decoded that many more bytes of this stream. */
  void acknowledged(int increment) {
    if (!encoderDone) {
      encoder.acknowledged(increment);
    }
  }

  /** The stream's sending side is over: {@code clean} after an END_STREAM, false on a reset. */
  void closeEncoder(boolean clean) {
    if (!encoderDone) {
      encoderDone = true;
      encoder.close(clean);
    }
    for (Sealed s; (s = sealed.poll()) != null; ) {
      s.segment().release();
    }
  }

  // ---- from the peer --------------------------------------------------------------------------

  /** An encoded DATA payload (released here). Malformed: {@link io.tcpopt.reduction.ReductionException}. */
  void offer(ByteBuf segment) {
    try {
      int n = segment.readableBytes();
      byte[] in = RECEIVED.get();
      if (in.length < n) {
        in = new byte[Math.max(n, 2 * in.length)];
        RECEIVED.set(in);
      }
      segment.getBytes(segment.readerIndex(), in, 0, n);
      decoder.offer(in, n);
    } finally {
      segment.release();
    }
  }

  /**
   * The next decoded bytes in order, or null (none yet, or waiting for chunks requested from the
   * peer). In a pooled direct buffer, as the LAN leg's socket (or TLS engine) needs them: the
   * channel copied a heap buffer into one anyway, and its write path then saw two kinds of buffer
   * where a flow without reduction gives it one (a reason for the JIT to throw away and recompile
   * the pipeline's code).
   */
  ByteBuf poll() {
    byte[] b = decoder.poll();
    return b == null ? null : ByteBufAllocator.DEFAULT.directBuffer(b.length).writeBytes(b);
  }

  /** Whether decoded bytes wait behind a chunk requested from the peer. */
  boolean waiting() {
    return decoder.waiting();
  }

  /** The stream is over (or reset): nothing more is decoded or sent. */
  void close(boolean clean) {
    closeEncoder(clean);
    decoder.close();
  }
}
