package io.tcpopt.servicenode.session;

import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.flush.FlushConsolidationHandler;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslHandler;
import io.tcpopt.servicenode.trust.HelloAdmission;
import io.tcpopt.servicenode.wire.FrameCodec;
import java.net.InetSocketAddress;

/**
 * Pipeline of one WAN connection, dialled or accepted: optional mutual TLS (with its {@link
 * TlsWriteGather}), flush consolidation,
 * the frame codec, the multiplexer. An accepted connection beyond the node's {@link
 * PendingHandshakes} bound gets no pipeline: it is reset at once. WAN socket tuning (congestion control, pacing) is applied as the
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
  /**
   * Plaintext the TLS handler hands BoringSSL per call (Netty's default: one 16 KiB record). Each
   * flush reaches the TLS handler as one composite buffer ({@link TlsWriteGather}), which it cuts
   * into chunks of this size by slicing; each buffer in a chunk is encrypted where it is, in full
   * records but for the frame header's own. Larger chunks mean fewer calls and fewer encrypted
   * buffers per flush.
   */
  static final int TLS_WRAP_BYTES = 128 * 1024;

  private final SslContext ssl;
  private final SessionSettings settings;
  private final boolean dialler;
  private PooledConnection pooledAs;
  private final StreamAcceptor acceptor;
  private final SessionListener listener;
  private final WanSockets sockets;
  private final InetSocketAddress peerAddress;
  private final HelloAdmission admission;
  private final PendingHandshakes pending;

  /**
   * @param peerAddress the dialled address (TLS server name), null for accepted connections
   * @param admission admits the peer at its HELLO (for a dialled connection: the dialled peer only)
   */
  public WanChannelInitializer(SslContext ssl, SessionSettings settings, boolean dialler, StreamAcceptor acceptor, SessionListener listener,
      WanSockets sockets, InetSocketAddress peerAddress, HelloAdmission admission) {
    this(ssl, settings, dialler, acceptor, listener, sockets, peerAddress, admission, null);
  }

  /**
   * An accepting pipeline whose connections count against {@code pending} until their HELLO is
   * admitted (null: not bounded).
   */
  public WanChannelInitializer(SslContext ssl, SessionSettings settings, boolean dialler, StreamAcceptor acceptor, SessionListener listener,
      WanSockets sockets, InetSocketAddress peerAddress, HelloAdmission admission, PendingHandshakes pending) {
    this.pending = pending;
    this.peerAddress = peerAddress;
    this.admission = admission;
    this.ssl = ssl;
    this.settings = settings;
    this.dialler = dialler;
    this.acceptor = acceptor;
    this.listener = listener;
    this.sockets = sockets;
  }

  /** A dialled connection's name in its pool, for its HELLO. */
  WanChannelInitializer pooledAs(PooledConnection pooledAs) {
    this.pooledAs = pooledAs;
    return this;
  }

  @Override
  protected void initChannel(SocketChannel ch) {
    if (pending != null && !pending.enter(ch)) {
      return; // reset at once: too many connections have not finished TLS + HELLO
    }
    ChannelPipeline p = ch.pipeline();
    configureTls(ch, p);
    p.addLast("flush-consolidation", new FlushConsolidationHandler(FLUSHES_BEFORE_FORCED, true));
    p.addLast("frames", new FrameCodec(settings.maxFrameSize()));
    StreamMultiplexer mux = new StreamMultiplexer(settings, dialler, acceptor, pending == null ? listener : admitted(ch), admission);
    if (pooledAs != null) {
      mux.pooledAs(pooledAs);
    }
    p.addLast("mux", mux);
    sockets.applyWhenActive(ch);
  }

  /** The listener, told first that {@code ch} is no longer pending once its peer is admitted. */
  private SessionListener admitted(SocketChannel ch) {
    return new SessionListener() {
      @Override
      public void sessionUp(StreamMultiplexer connection) {
        pending.leave(ch);
        listener.sessionUp(connection);
      }

      @Override
      public void sessionDown(StreamMultiplexer connection, String reason) {
        listener.sessionDown(connection, reason);
      }

      @Override
      public void sessionRetiring(StreamMultiplexer connection) {
        listener.sessionRetiring(connection);
      }
    };
  }

  private void configureTls(SocketChannel ch, ChannelPipeline p) {
    if (ssl == null) {
      return;
    }
    SslHandler tls;
    if (dialler) {
      InetSocketAddress remote = peerAddress;
      tls = remote == null ? ssl.newHandler(ch.alloc()) : ssl.newHandler(ch.alloc(), remote.getHostString(), remote.getPort());
    } else {
      tls = ssl.newHandler(ch.alloc());
    }
    tls.setHandshakeTimeoutMillis(settings.handshakeTimeout().toMillis()); // TLS alone; the HELLO must arrive within the same time
    tls.setWrapDataSize(TLS_WRAP_BYTES);
    p.addLast("tls", tls);
    p.addLast("tls-gather", new TlsWriteGather());
  }
}
