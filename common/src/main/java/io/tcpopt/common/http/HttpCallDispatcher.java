package io.tcpopt.common.http;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.ssl.SslHandler;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import javax.net.ssl.SSLSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Last in a connection's pipeline: hands each whole request to the handler on the server's
 * executor and writes its response back. One request per connection is in flight: reading stops
 * while it is, and requests a pipelining client sent in the same read wait in a short queue (more
 * than {@value #MAX_WAITING} close the connection). A request the codec could not parse gets 400
 * (431 for an oversized head) and the connection is closed.
 */
final class HttpCallDispatcher extends SimpleChannelInboundHandler<FullHttpRequest> {
  private static final Logger log = LoggerFactory.getLogger(HttpCallDispatcher.class);

  static final int MAX_WAITING = 16;

  private final HttpCallHandler handler;
  private final Executor executor;
  private final ArrayDeque<Runnable> waiting = new ArrayDeque<>();
  private boolean busy;

  HttpCallDispatcher(HttpCallHandler handler, Executor executor) {
    this.handler = handler;
    this.executor = executor;
  }

  @Override
  protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
    Runnable work = work(ctx, request);
    if (!busy) {
      busy = true;
      ctx.channel().config().setAutoRead(false);
      work.run();
    } else if (waiting.size() < MAX_WAITING) {
      waiting.add(work);
    } else {
      ctx.close();
    }
  }

  /** What to do with {@code request}, copied off its buffers: refuse it or hand it to the handler. */
  private Runnable work(ChannelHandlerContext ctx, FullHttpRequest request) {
    if (!request.decoderResult().isSuccess()) {
      Throwable cause = request.decoderResult().cause();
      HttpResponseStatus status = cause instanceof TooLongFrameException
          ? HttpResponseStatus.REQUEST_HEADER_FIELDS_TOO_LARGE : HttpResponseStatus.BAD_REQUEST;
      return () -> refuse(ctx, status, "malformed request");
    }
    HttpCall call;
    try {
      call = HttpCall.of(request, sslSession(ctx), (InetSocketAddress) ctx.channel().remoteAddress());
    } catch (IllegalArgumentException e) {
      return () -> refuse(ctx, HttpResponseStatus.BAD_REQUEST, e.getMessage());
    }
    boolean keepAlive = HttpUtil.isKeepAlive(request);
    return () -> {
      try {
        executor.execute(() -> answer(ctx, call, keepAlive));
      } catch (RejectedExecutionException e) {
        refuse(ctx, HttpResponseStatus.SERVICE_UNAVAILABLE, "server stopping");
      }
    };
  }

  /** On the event loop, once a response is written: the next waiting request, or reading again. */
  private void next(ChannelHandlerContext ctx) {
    Runnable work = waiting.poll();
    if (work != null) {
      work.run();
    } else {
      busy = false;
      ctx.channel().config().setAutoRead(true);
    }
  }

  /** On the executor: runs the handler, then writes its response (or a 500) from here; Netty hands the write to the loop. */
  private void answer(ChannelHandlerContext ctx, HttpCall call, boolean keepAlive) {
    try {
      handler.handle(call);
    } catch (Exception | Error e) {
      log.warn("http: {} {} from {} failed", call.method(), call.path(), call.remoteAddress(), e);
      if (!call.responded()) {
        call.respond(500, "text/plain; charset=utf-8", "internal error\n");
      }
    }
    if (!call.responded()) {
      log.warn("http: {} {}: the handler gave no response", call.method(), call.path());
      call.respond(500, "text/plain; charset=utf-8", "internal error: no response\n");
    }
    ctx.writeAndFlush(call.response(keepAlive)).addListener((ChannelFutureListener) f -> {
      if (!keepAlive || !f.isSuccess()) {
        ctx.close();
      } else {
        next(ctx);
      }
    });
  }

  private static void refuse(ChannelHandlerContext ctx, HttpResponseStatus status, String reason) {
    FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status,
        Unpooled.copiedBuffer(reason + "\n", StandardCharsets.UTF_8));
    response.headers().set(HttpHeaderNames.CONTENT_TYPE, "text/plain; charset=utf-8");
    response.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, response.content().readableBytes());
    response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
    ctx.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE);
  }

  private static SSLSession sslSession(ChannelHandlerContext ctx) {
    SslHandler ssl = ctx.pipeline().get(SslHandler.class);
    return ssl == null ? null : ssl.engine().getSession();
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    log.debug("http: connection from {} closed: {}", ctx.channel().remoteAddress(), cause.toString());
    ctx.close();
  }
}
