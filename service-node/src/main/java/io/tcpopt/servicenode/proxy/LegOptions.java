package io.tcpopt.servicenode.proxy;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.ChannelOption;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.group.ChannelGroup;
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

  /** Applies the options to a bootstrap connecting a leg (reading starts once the leg is joined). */
  public Bootstrap configure(Bootstrap b) {
    return b.option(ChannelOption.TCP_NODELAY, true)
        .option(ChannelOption.ALLOW_HALF_CLOSURE, true)
        .option(ChannelOption.AUTO_READ, false)
        .option(ChannelOption.WRITE_BUFFER_WATER_MARK, watermarks())
        .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) Math.min(Integer.MAX_VALUE, connectTimeout.toMillis()));
  }
}
