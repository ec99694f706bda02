package io.tcpopt.common.http;

import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import java.time.Duration;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Closes a connection that does not keep pace, whatever it sends: one deadline is always armed,
 * on the channel's executor. From the connect, a whole request (TLS handshake, head and body) must
 * arrive within the request timeout; from a whole request, its response must be written within the
 * response timeout; from a response, the next whole request must arrive within the idle timeout. A
 * client trickling one byte at a time gains nothing, unlike a read timeout.
 */
final class RequestDeadline extends ChannelDuplexHandler {
  private final HttpLimits limits;
  private ScheduledFuture<?> deadline;

  RequestDeadline(HttpLimits limits) {
    this.limits = limits;
  }

  @Override
  public void channelActive(ChannelHandlerContext ctx) {
    arm(ctx, limits.requestTimeout());
    ctx.fireChannelActive();
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (msg instanceof FullHttpRequest) {
      arm(ctx, limits.responseTimeout());
    }
    ctx.fireChannelRead(msg);
  }

  @Override
  public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
    if (msg instanceof FullHttpResponse) {
      promise.addListener(f -> {
        if (f.isSuccess() && ctx.channel().isActive()) {
          arm(ctx, limits.idleTimeout());
        }
      });
    }
    ctx.write(msg, promise);
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    cancel();
    ctx.fireChannelInactive();
  }

  @Override
  public void handlerRemoved(ChannelHandlerContext ctx) {
    cancel();
  }

  private void arm(ChannelHandlerContext ctx, Duration timeout) {
    cancel();
    deadline = ctx.executor().schedule(() -> {
      ctx.close();
    }, timeout.toNanos(), TimeUnit.NANOSECONDS);
  }

  private void cancel() {
    if (deadline != null) {
      deadline.cancel(false);
      deadline = null;
    }
  }
}
