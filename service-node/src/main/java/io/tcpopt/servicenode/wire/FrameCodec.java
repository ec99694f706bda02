package io.tcpopt.servicenode.wire;

import io.netty.channel.CombinedChannelDuplexHandler;

/**
 * The wire format v1 codec for one inter-node connection: decodes bytes into {@link Frame}s
 * (accepting payloads up to {@code maxFrameSize}, this side's announced maximum) and encodes frames.
 */
public final class FrameCodec extends CombinedChannelDuplexHandler<FrameDecoder, FrameEncoder> {
  public FrameCodec(int maxFrameSize) {
    super(new FrameDecoder(maxFrameSize), new FrameEncoder());
  }
}
