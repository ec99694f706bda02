package io.tcpopt.servicenode.wire;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.DefaultByteBufHolder;
import io.tcpopt.common.policy.DataReduction;
import io.tcpopt.common.policy.DataReduction.Compression;
import java.net.InetSocketAddress;

/**
 * Opens a stream: the flow's original addresses and the client's first bytes (possibly none), which
 * count against the stream window like DATA.
 */
public final class OpenFrame extends DefaultByteBufHolder implements Frame {
  /** open-flags bit 0: the far node should connect from the client's own address. */
  public static final int FLAG_TRANSPARENT_SOURCE = 0x1;
  /**
   * open-flags bits 8-10: the stream's data reduction, both directions (bits 8-9 compression: 0
   * none, 1 lz4, 2 zstd; bit 10 deduplication). With any of them set, every non-empty DATA of the
   * stream is an encoded segment and the OPEN carries no first bytes.
   */
  public static final int DATA_REDUCTION_MASK = 0x0700;
  /**
   * open-flags bit 11: a server-reuse block ({@link ServerReuse}) follows the open-flags, before the
   * first bytes: the opener's policy asks for HTTP server-connection reuse with that profile.
   */
  public static final int FLAG_SERVER_REUSE = 0x0800;
  /** Every open-flags bit a peer may set. */
  public static final int KNOWN_FLAGS = FLAG_TRANSPARENT_SOURCE | DATA_REDUCTION_MASK | FLAG_SERVER_REUSE;

  private final int streamId;
  private final long flowId;
  private final InetSocketAddress source;
  private final InetSocketAddress destination;
  private final int openFlags;
  private final ServerReuse serverReuse;

  /** An OPEN without a server-reuse block ({@code openFlags} must not have {@link #FLAG_SERVER_REUSE}). */
  public OpenFrame(int streamId, long flowId, InetSocketAddress source, InetSocketAddress destination, int openFlags, ByteBuf firstBytes) {
    this(streamId, flowId, source, destination, openFlags, null, firstBytes);
  }

  /**
   * An OPEN; with {@code serverReuse} non-null its open-flags get {@link #FLAG_SERVER_REUSE} and it
   * carries the block.
   */
  public OpenFrame(int streamId, long flowId, InetSocketAddress source, InetSocketAddress destination, int openFlags, ServerReuse serverReuse,
      ByteBuf firstBytes) {
    super(firstBytes);
    if (serverReuse == null && (openFlags & FLAG_SERVER_REUSE) != 0) {
      throw new IllegalArgumentException("open-flags ask for a server-reuse block but none is given");
    }
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
    this.openFlags = serverReuse == null ? openFlags : openFlags | FLAG_SERVER_REUSE;
    this.serverReuse = serverReuse;
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

  /** The server-reuse block the opener sent, or null (open-flags bit 11 clear). */
  public ServerReuse serverReuse() {
    return serverReuse;
  }

  /** The open-flags bits for {@code mode}. */
  public static int flags(DataReduction mode) {
    int compression = switch (mode.compression()) {
      case NONE -> 0;
      case LZ4 -> 1;
      case ZSTD -> 2;
    };
    return (compression << 8) | (mode.deduplication() ? 0x400 : 0);
  }

  /** The data reduction these open-flags ask for ({@link DataReduction#OFF} when none). */
  public static DataReduction dataReduction(int openFlags) {
    int c = (openFlags >> 8) & 3;
    Compression compression = c == 1 ? Compression.LZ4 : c == 2 ? Compression.ZSTD : Compression.NONE;
    DataReduction mode = new DataReduction(compression, (openFlags & 0x400) != 0);
    return mode.isOff() ? DataReduction.OFF : mode;
  }

  @Override
  public String toString() {
    return "OPEN(stream " + streamId + ", flow " + flowId + ", " + source + " -> " + destination + ", " + content().readableBytes() + " bytes"
        + (serverReuse == null ? "" : ", server reuse " + serverReuse) + ")";
  }
}
