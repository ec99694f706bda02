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
  /** The home field of a frame travelling on another connection than its stream's: a {@code u32}. */
  public static final int HOME_LENGTH = 4;
  /** Shortest encoded payload: a segment header. */
  public static final int MIN_ENCODED = 16;

  private final int streamId;
  private final long offset;
  private final boolean endStream;
  private final boolean encoded;
  /** The connection the stream lives on when this frame travels on another one ({@link #NO_HOME}: it travels on it). */
  private final int home;
  /** {@link #home()} of a frame on its stream's own connection. */
  public static final int NO_HOME = -1;

  public DataFrame(int streamId, long offset, ByteBuf data, boolean endStream) {
    this(streamId, offset, data, endStream, false);
  }

  public DataFrame(int streamId, long offset, ByteBuf data, boolean endStream, boolean encoded) {
    this(streamId, offset, data, endStream, encoded, NO_HOME);
  }

  /** {@code home}: the index of the stream's connection in its dialler's pool, when the frame travels on another one; else {@link #NO_HOME}. */
  public DataFrame(int streamId, long offset, ByteBuf data, boolean endStream, boolean encoded, int home) {
    super(data);
    if (offset < 0) {
      throw new IllegalArgumentException("negative stream offset " + offset);
    }
    if (home < NO_HOME) {
      throw new IllegalArgumentException("bad home connection " + home);
    }
    this.streamId = streamId;
    this.offset = offset;
    this.endStream = endStream;
    this.encoded = encoded;
    this.home = home;
  }

  /** The same frame (sharing its bytes, ownership passes) travelling on another connection than its stream's {@code home}. */
  public DataFrame awayFrom(int home) {
    return new DataFrame(streamId, offset, content(), endStream, encoded, home);
  }

  /** The index of the stream's own connection when this frame travels on another one, else {@link #NO_HOME}. */
  public int home() {
    return home;
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
    return "DATA(stream " + streamId + (home == NO_HOME ? "" : " of connection " + home) + " at " + offset + ", " + content().readableBytes() + " bytes" + (encoded ? ", ENCODED" : "")
        + (endStream ? ", END_STREAM)" : ")");
  }
}
