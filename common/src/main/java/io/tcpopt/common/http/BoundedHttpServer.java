package io.tcpopt.common.http;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.tcpopt.common.transport.NettyTransport;
import java.net.InetSocketAddress;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import javax.net.ssl.SSLEngine;

/**
 * An HTTP/1.1 server (HTTPS with a TLS engine supplier) on one event-loop thread of its own, within
 * the {@link HttpLimits} it is given. Serves the metrics endpoint and the controller's console.
 */
public final class BoundedHttpServer implements AutoCloseable {
  private final EventLoopGroup group;
  private final Channel channel;
  private final ConnectionCap cap;

  private BoundedHttpServer(EventLoopGroup group, Channel channel, ConnectionCap cap) {
    this.group = group;
    this.channel = channel;
    this.cap = cap;
  }

  /**
   * Listens on {@code listen} (port 0 picks a free port).
   *
   * @param name the event-loop thread's name
   * @param tls a new server-mode engine per connection, or null for plain HTTP
   * @param executor where {@code handler} runs; rejected work is answered 503
   * @throws IllegalStateException naming {@code listen} when it cannot bind
   */
  public static BoundedHttpServer start(String name, InetSocketAddress listen, HttpLimits limits, Supplier<SSLEngine> tls,
      HttpCallHandler handler, Executor executor) {
    EventLoopGroup group = NettyTransport.group(1, name);
    ConnectionCap cap = new ConnectionCap(limits.maxConnections());
    try {
      Channel channel = new ServerBootstrap()
          .group(group)
          .channel(NettyTransport.serverChannel())
          .option(ChannelOption.SO_BACKLOG, 1024)
          .option(ChannelOption.SO_REUSEADDR, true)
          .childHandler(new HttpServerInitializer(limits, cap, tls, handler, executor))
          .bind(listen).syncUninterruptibly().channel();
      return new BoundedHttpServer(group, channel, cap);
    } catch (RuntimeException e) {
      group.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS);
      throw new IllegalStateException("cannot listen on " + listen + ": " + e.getMessage(), e);
    }
  }

  public InetSocketAddress address() {
    return (InetSocketAddress) channel.localAddress();
  }

  /** Connections open now. */
  public int openConnections() {
    return cap.open();
  }

  /** Connections closed at accept because the cap was reached, since the start. */
  public long refusedConnections() {
    return cap.refused();
  }

  /** Stops listening and closes every connection. */
  @Override
  public void close() {
    channel.close().syncUninterruptibly();
    group.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
  }
}
