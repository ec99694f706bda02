package io.tcpopt.servicenode.wire;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.DefaultByteBufHolder;

/**
 * Bytes of one stream; {@code endStream} means the sender's TCP leg half-closed after them. An
 * {@code encoded} payload is a data-reduction segment whose decoded length (a {@code u32} at offset
 * 4) is what it counts against the stream's credit.
 */
public final class DataFrame extends DefaultByteBufHolder implements Frame {
  /** Shortest encoded payload: a segment header. */
  public static final int MIN_ENCODED = 16;

  private final int streamId;
  private final boolean endStream;
  private final boolean encoded;

  public DataFrame(int streamId, ByteBuf data, boolean endStream) {
    this(streamId, data, endStream, false);
  }

  public DataFrame(int streamId, ByteBuf data, boolean endStream, boolean encoded) {
    super(data);
    this.streamId = streamId;
    this.endStream = endStream;
    this.encoded = encoded;
  }

  public boolean encoded() {
    return encoded;
  }

  /** What the frame counts against the stream's credit: its bytes, or an encoded segment's decoded length. */
  public long creditLength() {
    return encoded ? content().getUnsignedInt(content().readerIndex() + 4) : content().readableBytes();
  }

  @Override
  public int streamId() {
    return streamId;
  }

  public boolean endStream() {
    return endStream;
  }

  @Override
  public String toString() {
    return "DATA(stream " + streamId + ", " + content().readableBytes() + " bytes" + (encoded ? ", ENCODED" : "") + (endStream ? ", END_STREAM)" : ")");
  }
}
