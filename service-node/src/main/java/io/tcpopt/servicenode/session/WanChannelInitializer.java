package io.tcpopt.servicenode.session;

import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.flush.FlushConsolidationHandler;
import io.netty.handler.ssl.SslContext;
import io.tcpopt.servicenode.trust.HelloAdmission;
import io.tcpopt.servicenode.wire.FrameCodec;
import java.net.InetSocketAddress;

/**
 * Pipeline of one WAN connection, dialled or accepted: optional mutual TLS, flush consolidation,
 * the frame codec, the multiplexer. WAN socket tuning (congestion control, pacing) is applied as the
 * channel starts.
 *
 * <p>Streams flush on their own schedule (each leg at the end of its read batch, WINDOW_UPDATEs,
 * PING answers). Every flush that reaches the TLS handler costs a TLS record boundary and a
 * syscall, so flushes are consolidated: while the connection itself is reading they wait for its
 * read batch to end, otherwise they are merged into one flush later in the same event-loop cycle
 * (at most {@value #FLUSHES_BEFORE_FORCED} are held back).
 */
public final class WanChannelInitializer extends ChannelInitializer<SocketChannel> {
  static final int FLUSHES_BEFORE_FORCED = 64;

  private final SslContext ssl;
  private final SessionSettings settings;
  private final boolean dialler;
  private final StreamAcceptor acceptor;
  private final SessionListener listener;
  private final WanSockets sockets;
  private final InetSocketAddress peerAddress;
  private final HelloAdmission admission;

  /**
   * @param peerAddress the dialled address (TLS server name), null for accepted connections
   * @param admission admits the peer at its HELLO (for a dialled connection: the dialled peer only)
   */
  public WanChannelInitializer(SslContext ssl, SessionSettings settings, boolean dialler, StreamAcceptor acceptor, SessionListener listener,
      WanSockets sockets, InetSocketAddress peerAddress, HelloAdmission admission) {
    this.peerAddress = peerAddress;
    this.admission = admission;
    this.ssl = ssl;
    this.settings = settings;
    this.dialler = dialler;
    this.acceptor = acceptor;
    this.listener = listener;
    this.sockets = sockets;
  }

  @Override
  protected void initChannel(SocketChannel ch) {
    ChannelPipeline p = ch.pipeline();
    configureTls(ch, p);
    p.addLast("flush-consolidation", new FlushConsolidationHandler(FLUSHES_BEFORE_FORCED, true));
    p.addLast("frames", new FrameCodec(settings.maxFrameSize()));
    p.addLast("mux", new StreamMultiplexer(settings, dialler, acceptor, listener, admission));
    sockets.applyWhenActive(ch);
  }

  private void configureTls(SocketChannel ch, ChannelPipeline p) {
    if (ssl == null) {
      return;
    }
    if (dialler) {
      InetSocketAddress remote = peerAddress;
      p.addLast("tls", remote == null ? ssl.newHandler(ch.alloc()) : ssl.newHandler(ch.alloc(), remote.getHostString(), remote.getPort()));
    } else {
      p.addLast("tls", ssl.newHandler(ch.alloc()));
    }
  }
}
