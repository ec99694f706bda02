package io.tcpopt.servicenode.session;

import io.netty.buffer.ByteBuf;
import io.netty.channel.embedded.EmbeddedChannel;
import io.tcpopt.servicenode.wire.Frame;
import io.tcpopt.servicenode.wire.FrameCodec;

/** Feeds frames to an embedded multiplexer as a peer would: encoded to bytes first, then read by its decoder. */
final class WireFeed {
  private WireFeed() {}

  static void feed(EmbeddedChannel ch, Iterable<? extends Frame> frames) {
    EmbeddedChannel enc = new EmbeddedChannel(new FrameCodec(1 << 20));
    for (Frame f : frames) {
      enc.writeOutbound(f);
    }
    ByteBuf b;
    while ((b = enc.readOutbound()) != null) {
      ch.writeInbound(b);
    }
    enc.finishAndReleaseAll();
  }
}
