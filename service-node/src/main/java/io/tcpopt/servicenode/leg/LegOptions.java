package io.tcpopt.servicenode.leg;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.group.ChannelGroup;
import io.tcpopt.common.transport.Legs;
import java.time.Duration;

/**
 * Settings of the local (LAN) legs: ordinary sockets with TCP_NODELAY, half-closure allowed,
 * explicit write watermarks; connect and idle timeouts; the OPEN coalescing delay. {@code legs}
 * holds every open leg so that the node can reset them all when it stops.
 */
public record LegOptions(Duration connectTimeout, Duration idleTimeout, int writeBufferLow, int writeBufferHigh, Duration openCoalescing,
    ChannelGroup legs) {
  public WriteBufferWaterMark watermarks() {
    return new WriteBufferWaterMark(writeBufferLow, writeBufferHigh);
  }

  /** A bootstrap for a leg this node connects (see {@link Legs#connect}); reading starts once the leg is joined. */
  public Bootstrap bootstrap() {
    return Legs.client(watermarks(), connectTimeout);
  }
}
