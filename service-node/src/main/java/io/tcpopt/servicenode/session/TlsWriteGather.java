package io.tcpopt.servicenode.session;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.AbstractCoalescingBufferQueue;
import io.netty.channel.Channel;
import io.netty.channel.ChannelException;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;

/**
 * Hands the TLS handler each flush's frames as one buffer, so that they are encrypted where they
 * lie. Netty's {@code SslHandler} (4.2) queues what is written to it and, when more than one
 * buffer makes up a chunk of its wrap size, copies them all into a new buffer before encrypting
 * (its queue's {@code composeFirst} and {@code compose}): with frames written one by one, every
 * byte a node sent in a flush of two frames or more was copied once more in Java. On the loopback
 * pair that copy was 9% of the DC node's CPU samples (cpu9c, docs/benchmarks.md).
 *
 * <p>Placed just before the TLS handler, this handler holds the frames written until the next
 * flush (counted as the channel's pending bytes, as the TLS handler's queue counts them, so the
 * channel's writability is what it was) and then writes them as one composite buffer, which the
 * TLS handler cuts into chunks of its wrap size by slicing, not copying. A close writes what is
 * held first, as it would have been queued at the TLS handler.
 */
final class TlsWriteGather extends ChannelOutboundHandlerAdapter {
  private Held held;

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) {
    held = new Held(ctx.channel());
  }

  @Override
  public void handlerRemoved(ChannelHandlerContext ctx) {
    held.releaseAndFailAll(ctx, new ChannelException("the connection's pipeline was torn down before a flush"));
  }

  @Override
  public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
    if (msg instanceof ByteBuf) {
      held.add((ByteBuf) msg, promise);
    } else {
      writeHeld(ctx);
      ctx.write(msg, promise);
    }
  }

  @Override
  public void flush(ChannelHandlerContext ctx) {
    writeHeld(ctx);
    ctx.flush();
  }

  @Override
  public void close(ChannelHandlerContext ctx, ChannelPromise promise) {
    writeHeld(ctx);
    ctx.close(promise);
  }

  private void writeHeld(ChannelHandlerContext ctx) {
    if (held.isEmpty()) {
      return;
    }
    ChannelPromise all = ctx.newPromise();
    ctx.write(held.remove(ctx.alloc(), Integer.MAX_VALUE, all), all);
  }

  /**
   * A queue that composes what it holds into one composite buffer, never copying it. Frames that are
   * composites themselves (a header and its payload) are flattened into it: the TLS handler asks
   * the buffer for its NIO buffers at every wrap, and a composite of composites answers by asking
   * each frame in turn for its own, a list and an array per frame ({@code CompositeByteBuf.nioBuffers}
   * was the DC node's top Java symbol, though only 0.65% of its samples). Waste removed, not a figure
   * won: on the loopback pair with TLS, alternating with main, 3 of 4 pairs favoured it, by less than
   * the machine's spread (cpu9f, docs/benchmarks.md).
   */
  private static final class Held extends AbstractCoalescingBufferQueue {
    Held(Channel channel) {
      super(channel, 16);
    }

    @Override
    protected ByteBuf composeFirst(ByteBufAllocator alloc, ByteBuf first, int bufferSize) {
      return alloc.compositeBuffer(Integer.MAX_VALUE).addFlattenedComponents(true, first);
    }

    @Override
    protected ByteBuf compose(ByteBufAllocator alloc, ByteBuf cumulation, ByteBuf next) {
      return ((CompositeByteBuf) cumulation).addFlattenedComponents(true, next);
    }

    @Override
    protected ByteBuf removeEmptyValue() {
      return Unpooled.EMPTY_BUFFER;
    }
  }
}
