package io.tcpopt.servicenode.wire;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.DefaultByteBufHolder;
import java.net.InetSocketAddress;

/**
 * Opens a stream: the flow's original addresses and the client's first bytes (possibly none), which
 * count against the stream window like DATA.
 */
public final class OpenFrame extends DefaultByteBufHolder implements Frame {
  /** open-flags bit 0: the far node should connect from the client's own address. */
  public static final int FLAG_TRANSPARENT_SOURCE = 0x1;

  private final int streamId;
  private final long flowId;
  private final InetSocketAddress source;
  private final InetSocketAddress destination;
  private final int openFlags;

  public OpenFrame(int streamId, long flowId, InetSocketAddress source, InetSocketAddress destination, int openFlags, ByteBuf firstBytes) {
    super(firstBytes);
    if (source.getAddress() == null || destination.getAddress() == null) {
      throw new IllegalArgumentException("OPEN needs resolved addresses");
    }
    if (source.getAddress().getAddress().length != destination.getAddress().getAddress().length) {
      throw new IllegalArgumentException("OPEN addresses must be of one family: " + source + " -> " + destination);
    }
    this.streamId = streamId;
    this.flowId = flowId;
    this.source = source;
    this.destination = destination;
    this.openFlags = openFlags;
  }

  /** Length of an OPEN payload without first bytes, for an address of {@code addressLength} bytes. */
  public static int fixedLength(int addressLength) {
    return 8 + 1 + 2 * (addressLength + 2) + 2;
  }

  @Override
  public int streamId() {
    return streamId;
  }

  public long flowId() {
    return flowId;
  }

  public InetSocketAddress source() {
    return source;
  }

  public InetSocketAddress destination() {
    return destination;
  }

  public int openFlags() {
    return openFlags;
  }

  @Override
  public String toString() {
    return "OPEN(stream " + streamId + ", flow " + flowId + ", " + source + " -> " + destination + ", " + content().readableBytes() + " bytes)";
  }
}
