package io.tcpopt.servicenode.session;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.AdaptiveRecvByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.epoll.EpollChannelOption;
import io.tcpopt.common.transport.NettyTransport;
import java.util.Optional;

/**
 * WAN socket settings of this node: options set before connect (buffers sized to the link's
 * bandwidth-delay product, write watermarks) and those applied once connected (congestion control,
 * pacing). TCP_INFO of a connection is read here for flow records and session status.
 */
public final class WanSockets {
  /**
   * Reads on WAN connections grow up to 256 KiB (Netty's default stops at 64 KiB): a busy
   * connection carries many streams, and each read batch is decrypted and dispatched in one pass.
   */
  static final int MAX_READ_BYTES = 256 * 1024;

  /**
   * Unsent bytes the kernel may hold per WAN socket (TCP_NOTSENT_LOWAT): the socket reports
   * writable only below it, so sent-but-unacknowledged bytes still fill the window while the queue
   * of bytes not yet sent stays a few milliseconds deep and the node's scheduler decides the order.
   * The socket tuning may set a larger value once connected; {@link UnsentLimit} then keeps the
   * limit between this and that, as small as the node can keep the socket fed.
   */
  static final long NOTSENT_LOWAT = 128 * 1024;
  /**
   * The connection's own write queue (Netty's outbound buffer, TLS input): one frame or two. Bytes
   * there are no slack for a late event loop (only the loop moves them into the kernel) but a 1 KB
   * echo the scheduler puts first waits behind them all: with 64/192 KiB, up to 6 ms at 250 Mbit/s
   * (issue 9, 9.3). The multiplexer refills it whenever it drops below {@link #QUEUE_LOW}.
   */
  static final int QUEUE_LOW = 32 * 1024;
  static final int QUEUE_HIGH = 64 * 1024;

  private final WriteBufferWaterMark watermarks;
  private final Tuning tuning;

  /** Socket statistics of a WAN connection; fields are -1 when unknown. */
  public record WanStats(long rttMicros, long cwndSegments, long retransmits, String congestionControl) {
    public static final WanStats UNKNOWN = new WanStats(-1, -1, -1, "unknown");
  }

  /** The socket tuning seam: how options are applied to WAN channels. */
  public interface Tuning {
    void configure(Bootstrap b);

    void configure(ServerBootstrap b);

    void apply(Channel connected);

    WanStats stats(Channel ch);
  }

  /** No tuning at all: kernel defaults, no TCP_INFO. */
  public static final Tuning NONE = new Tuning() {
    @Override
    public void configure(Bootstrap b) {}

    @Override
    public void configure(ServerBootstrap b) {}

    @Override
    public void apply(Channel connected) {}

    @Override
    public WanStats stats(Channel ch) {
      return WanStats.UNKNOWN;
    }
  };

  /** Shallow queues: {@link #QUEUE_LOW}/{@link #QUEUE_HIGH} watermarks and {@link #NOTSENT_LOWAT} on epoll. */
  public static WanSockets shallow(Tuning tuning) {
    return new WanSockets(QUEUE_LOW, QUEUE_HIGH, tuning);
  }

  public WanSockets(int writeBufferLow, int writeBufferHigh, Tuning tuning) {
    this.watermarks = new WriteBufferWaterMark(writeBufferLow, writeBufferHigh);
    this.tuning = tuning;
  }

  public void configure(Bootstrap b) {
    b.option(ChannelOption.WRITE_BUFFER_WATER_MARK, watermarks).option(ChannelOption.TCP_NODELAY, true)
        .option(ChannelOption.RCVBUF_ALLOCATOR, readAllocator());
    if (NettyTransport.isEpoll()) {
      b.option(EpollChannelOption.TCP_NOTSENT_LOWAT, NOTSENT_LOWAT);
    }
    tuning.configure(b);
  }

  public void configure(ServerBootstrap b) {
    b.childOption(ChannelOption.WRITE_BUFFER_WATER_MARK, watermarks).childOption(ChannelOption.TCP_NODELAY, true)
        .childOption(ChannelOption.RCVBUF_ALLOCATOR, readAllocator());
    if (NettyTransport.isEpoll()) {
      b.childOption(EpollChannelOption.TCP_NOTSENT_LOWAT, NOTSENT_LOWAT);
    }
    tuning.configure(b);
  }

  private static AdaptiveRecvByteBufAllocator readAllocator() {
    return new AdaptiveRecvByteBufAllocator(2048, 16 * 1024, MAX_READ_BYTES);
  }

  public Optional<WanStats> stats(Channel ch) {
    return Optional.ofNullable(tuning.stats(ch));
  }

  void applyWhenActive(Channel ch) {
    if (ch.isActive()) {
      tuning.apply(ch);
      return;
    }
    ch.pipeline().addFirst("wan-tuning", new ChannelInboundHandlerAdapter() {
      @Override
      public void channelActive(ChannelHandlerContext ctx) throws Exception {
        tuning.apply(ctx.channel());
        ctx.pipeline().remove(this);
        super.channelActive(ctx);
      }
    });
  }
}
