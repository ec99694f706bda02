package io.tcpopt.servicenode.tls;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.handler.ssl.SslHandler;
import io.tcpopt.common.profile.ClientSslProfile;

/**
 * Dynamic TLS record sizing (F5's "allow dynamic record sizing", Ilya Grigorik's recipe): while a
 * connection is new, or again after it sent nothing for the idle time, each TLS record carries
 * at most one TCP segment's worth of plaintext, so the client can decrypt and use the first bytes
 * as soon as their segment arrives instead of waiting for a 16 KB record spread over a dozen
 * segments of a still small congestion window. After {@code threshold} plaintext bytes went out
 * in small records, records grow to {@code maximum-record-size}, which costs fewer bytes and
 * fewer encryptions per byte.
 *
 * <p>Sits on the application side of the {@link SslHandler} and steers its {@link
 * SslHandler#setWrapDataSize wrap size}, which is how much plaintext goes into one record. The
 * SslHandler wraps at flush time, so a write that crosses the threshold is split there and the
 * first part flushed while records are still small; likewise pending bytes are flushed before
 * the size drops back after an idle pause. Confined to the leg's event loop.
 */
final class RecordSizer extends ChannelOutboundHandlerAdapter {
  private final SslHandler ssl;
  private final boolean dynamic;
  private final int small;
  private final int large;
  private final long threshold;
  private final long idleNanos;
  private boolean smallMode;
  private long sentSmall;
  private long lastWrite = System.nanoTime();
  private volatile int current;

  RecordSizer(SslHandler ssl, ClientSslProfile profile) {
    this.ssl = ssl;
    this.dynamic = profile.dynamicRecordSizing() && profile.threshold() > 0;
    this.small = profile.smallRecordPlaintext();
    this.large = profile.maximumRecordSize();
    this.threshold = profile.threshold();
    this.idleNanos = profile.idleReset().toNanos();
    this.smallMode = dynamic;
    size(dynamic ? small : large);
  }

  private void size(int plaintext) {
    ssl.setWrapDataSize(plaintext);
    current = plaintext;
  }

  /** The plaintext bytes per record now; any thread. */
  int recordSize() {
    return current;
  }

  boolean dynamic() {
    return dynamic;
  }

  @Override
  public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
    if (!dynamic || !(msg instanceof ByteBuf buf)) {
      ctx.write(msg, promise);
      return;
    }
    long now = System.nanoTime();
    if (!smallMode && idleNanos > 0 && now - lastWrite >= idleNanos) {
      ctx.flush(); // anything pending still goes out in large records
      smallMode = true;
      sentSmall = 0;
      size(small);
    }
    lastWrite = now;
    if (!smallMode) {
      ctx.write(buf, promise);
      return;
    }
    int n = buf.readableBytes();
    long room = threshold - sentSmall;
    if (n < room) {
      sentSmall += n;
      ctx.write(buf, promise);
      return;
    }
    ctx.write(buf.readRetainedSlice((int) room), ctx.newPromise());
    ctx.flush(); // the first part is wrapped now, in small records
    sentSmall = threshold;
    smallMode = false;
    size(large);
    ctx.write(buf, promise);
  }
}
