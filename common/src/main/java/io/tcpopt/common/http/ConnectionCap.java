package io.tcpopt.common.http;

import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * First in every connection's pipeline of one {@link BoundedHttpServer}: counts the open
 * connections and closes a new one at once when the count is over the cap, before any TLS or HTTP
 * work is spent on it. Trade-off: while a flood holds the cap, a real scrape or operator is refused
 * too; the deadlines ({@link RequestDeadline}) free the cap within a request timeout.
 */
@ChannelHandler.Sharable
final class ConnectionCap extends ChannelInboundHandlerAdapter {
  private final int max;
  private final AtomicInteger open = new AtomicInteger();
  private final AtomicLong refused = new AtomicLong();

  ConnectionCap(int max) {
    this.max = max;
  }

  @Override
  public void channelActive(ChannelHandlerContext ctx) {
    if (open.incrementAndGet() > max) {
      refused.incrementAndGet();
      ctx.close();
      return;
    }
    ctx.fireChannelActive();
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    open.decrementAndGet();
    ctx.fireChannelInactive();
  }

  int open() {
    return open.get();
  }

  long refused() {
    return refused.get();
  }
}
