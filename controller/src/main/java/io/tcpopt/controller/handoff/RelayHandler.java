package io.tcpopt.controller.handoff;

import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;

/**
 * Copies what one leg reads to the other. Both legs share an event loop, so no locking; when the
 * other leg's outbound buffer passes its high watermark this leg stops reading until it drains.
 */
final class RelayHandler extends ChannelInboundHandlerAdapter {
  private final Channel peer;

  RelayHandler(Channel peer) {
    this.peer = peer;
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (!peer.isActive()) {
      io.netty.util.ReferenceCountUtil.release(msg);
      ctx.close();
      return;
    }
    peer.writeAndFlush(msg).addListener((ChannelFutureListener) f -> {
      if (!f.isSuccess()) {
        ctx.close();
      }
    });
    if (!peer.isWritable()) {
      ctx.channel().config().setAutoRead(false);
    }
  }

  @Override
  public void channelWritabilityChanged(ChannelHandlerContext ctx) {
    if (ctx.channel().isWritable()) {
      peer.config().setAutoRead(true);
    }
    ctx.fireChannelWritabilityChanged();
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    closeOnFlush(peer);
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    ctx.close();
  }

  static void closeOnFlush(Channel ch) {
    if (ch.isActive()) {
      ch.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
    }
  }
}
