package io.tcpopt.servicenode.reuse;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.epoll.EpollChannelOption;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.Promise;
import io.tcpopt.common.transport.EpollHalfCloseWorkaround;
import io.tcpopt.common.transport.Legs;
import io.tcpopt.common.transport.NettyTransport;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.function.BiConsumer;

/**
 * Opens pooled server connections as TCP sockets (Nagle off, half closure allowed, explicit write
 * watermarks, a connect timeout), from the node's own address or, for a key with a {@link
 * PoolKey#bindSource}, from the client's address (IP_TRANSPARENT). An optional {@code pipelineHook}
 * adds handlers first — e.g. an {@link SslHandler} for a server-SSL profile, in which case the
 * connection is ready once its handshake completed.
 */
public final class TcpServerConnector implements ServerConnector {
  private final Duration connectTimeout;
  private final WriteBufferWaterMark watermarks;
  private final BiConsumer<PoolKey, Channel> pipelineHook;

  public TcpServerConnector(Duration connectTimeout, WriteBufferWaterMark watermarks, BiConsumer<PoolKey, Channel> pipelineHook) {
    this.connectTimeout = connectTimeout;
    this.watermarks = watermarks;
    this.pipelineHook = pipelineHook;
  }

  /** Plain TCP to the server. */
  public TcpServerConnector(Duration connectTimeout, WriteBufferWaterMark watermarks) {
    this(connectTimeout, watermarks, null);
  }

  @Override
  public Future<Channel> connect(PoolKey key, EventLoop loop, ChannelHandler handler) {
    Promise<Channel> ready = loop.newPromise();
    // A leg's options (Legs.client), but reading from the start: the pool turns reading off and on
    // itself (ServerConnectionPool, HttpReuseUpstream), and a TLS handshake to the server
    // (pipelineHook) reads before either does.
    Bootstrap b = Legs.client(watermarks, connectTimeout)
        .group(loop)
        .option(ChannelOption.AUTO_READ, true)
        .handler(new ChannelInitializer<Channel>() {
          @Override
          protected void initChannel(Channel ch) {
            EpollHalfCloseWorkaround.install(ch);
            if (pipelineHook != null) {
              pipelineHook.accept(key, ch);
            }
            ch.pipeline().addLast(handler);
          }
        });
    ChannelFuture f;
    if (key.bindSource() == null) {
      f = b.connect(key.server());
    } else {
      // The client's own address: not one of this node's, so the socket needs IP_TRANSPARENT (root,
      // the epoll transport) and the node's return path routes the server's answers back to it.
      if (NettyTransport.isEpoll()) {
        b.option(EpollChannelOption.IP_TRANSPARENT, true);
      }
      f = b.connect(key.server(), new InetSocketAddress(key.bindSource(), 0));
    }
    f.addListener(done -> {
      if (!done.isSuccess()) {
        ready.tryFailure(done.cause());
        return;
      }
      SslHandler tls = f.channel().pipeline().get(SslHandler.class);
      if (tls == null && !PoolKey.PLAIN.equals(key.transport())) {
        f.channel().close(); // TLS was asked for and could not be set up: never plaintext instead
        ready.tryFailure(new IllegalStateException("no TLS for " + key.transport()));
        return;
      }
      if (tls == null) {
        ready.trySuccess(f.channel());
        return;
      }
      tls.handshakeFuture().addListener(h -> {
        if (h.isSuccess()) {
          ready.trySuccess(f.channel());
        } else {
          f.channel().close();
          ready.tryFailure(h.cause());
        }
      });
    });
    return ready;
  }
}
