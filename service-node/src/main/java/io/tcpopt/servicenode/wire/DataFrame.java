package io.tcpopt.servicenode.wire;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.DefaultByteBufHolder;

/** Bytes of one stream; {@code endStream} means the sender's TCP leg half-closed after them. */
public final class DataFrame extends DefaultByteBufHolder implements Frame {
  private final int streamId;
  private final boolean endStream;

  public DataFrame(int streamId, ByteBuf data, boolean endStream) {
    super(data);
    this.streamId = streamId;
    this.endStream = endStream;
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
    return "DATA(stream " + streamId + ", " + content().readableBytes() + " bytes" + (endStream ? ", END_STREAM)" : ")");
  }
}
