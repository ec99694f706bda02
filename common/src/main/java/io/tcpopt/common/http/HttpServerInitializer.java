package io.tcpopt.common.http;

import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.ssl.SslHandler;
import java.util.concurrent.Executor;
import java.util.function.Supplier;
import javax.net.ssl.SSLEngine;

/**
 * The pipeline of one {@link BoundedHttpServer} connection: connection cap, TLS (when the server has
 * it), HTTP/1.1 codec with bounded head, body aggregation with a bounded size, the request
 * deadlines, and the dispatcher (one request at a time).
 */
final class HttpServerInitializer extends ChannelInitializer<SocketChannel> {
  private final HttpLimits limits;
  private final ConnectionCap cap;
  private final Supplier<SSLEngine> tls;
  private final HttpCallHandler handler;
  private final Executor executor;

  HttpServerInitializer(HttpLimits limits, ConnectionCap cap, Supplier<SSLEngine> tls, HttpCallHandler handler, Executor executor) {
    this.limits = limits;
    this.cap = cap;
    this.tls = tls;
    this.handler = handler;
    this.executor = executor;
  }

  @Override
  protected void initChannel(SocketChannel channel) {
    ChannelPipeline p = channel.pipeline();
    p.addLast("cap", cap);
    configureTls(p);
    configureHttp(p);
    p.addLast("deadline", new RequestDeadline(limits));
    p.addLast("dispatch", new HttpCallDispatcher(handler, executor));
  }

  private void configureTls(ChannelPipeline p) {
    if (tls != null) {
      p.addLast("tls", new SslHandler(tls.get()));
    }
  }

  private void configureHttp(ChannelPipeline p) {
    p.addLast("codec", new HttpServerCodec(limits.maxHeaderBytes(), limits.maxHeaderBytes(), 8192));
    p.addLast("aggregate", new HttpObjectAggregator(limits.maxBodyBytes(), true));
  }
}
