package io.tcpopt.servicenode.wire;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.DefaultByteBufHolder;

/**
 * Bytes of one stream starting at stream offset {@code offset} (wire format 2: the receiver puts
 * frames back in stream order by it); {@code endStream} means the sender's TCP leg half-closed after
 * them. An {@code encoded} payload is a data-reduction segment whose decoded length (a {@code u32}
 * at offset 4) is what it counts against the stream's credit, and what it advances the offset by.
 */
public final class DataFrame extends DefaultByteBufHolder implements Frame {
  /** The offset field before the payload's bytes: a {@code u64}. */
  public static final int OFFSET_LENGTH = 8;
  /** Shortest encoded payload: a segment header. */
  public static final int MIN_ENCODED = 16;

  private final int streamId;
  private final long offset;
  private final boolean endStream;
  private final boolean encoded;

  public DataFrame(int streamId, long offset, ByteBuf data, boolean endStream) {
    this(streamId, offset, data, endStream, false);
  }

  public DataFrame(int streamId, long offset, ByteBuf data, boolean endStream, boolean encoded) {
    super(data);
    if (offset < 0) {
      throw new IllegalArgumentException("negative stream offset " + offset);
    }
    this.streamId = streamId;
    this.offset = offset;
    this.endStream = endStream;
    this.encoded = encoded;
  }

  public boolean encoded() {
    return encoded;
  }

  /** The stream offset of the first byte (of the decoded bytes, when encoded). */
  public long offset() {
    return offset;
  }

  /** What the frame counts against the stream's credit, and advances its offset by: its bytes, or an encoded segment's decoded length. */
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
    return "DATA(stream " + streamId + " at " + offset + ", " + content().readableBytes() + " bytes" + (encoded ? ", ENCODED" : "")
        + (endStream ? ", END_STREAM)" : ")");
  }
}
