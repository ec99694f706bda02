package io.tcpopt.servicenode;

import io.tcpopt.servicenode.flow.FlowEntry.WanFigures;
import io.tcpopt.servicenode.session.StreamMultiplexer;
import io.tcpopt.servicenode.session.WanSockets;
import io.tcpopt.servicenode.session.WanSockets.WanStats;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * The figures (RTT, cwnd, retransmits) of one WAN connection as its flows report them, read from
 * the socket ({@code TCP_INFO}) at most every {@value #MAX_AGE_MILLIS} ms and shared by every
 * flow the connection carries: each flow takes them when it closes, and a node closing thousands
 * of flows a second would otherwise pay a system call (and an object) per flow for figures that
 * change at the pace of the connection, not of its flows. Any thread; a race costs one extra read.
 */
final class RecentWanFigures implements Supplier<WanFigures> {
  static final long MAX_AGE_MILLIS = 200;

  private final StreamMultiplexer connection;
  private final WanSockets sockets;
  private volatile WanFigures last;
  private volatile long readAtNanos;

  RecentWanFigures(StreamMultiplexer connection, WanSockets sockets) {
    this.connection = connection;
    this.sockets = sockets;
  }

  @Override
  public WanFigures get() {
    WanFigures f = last;
    long now = System.nanoTime();
    if (f != null && now - readAtNanos < TimeUnit.MILLISECONDS.toNanos(MAX_AGE_MILLIS)) {
      return f;
    }
    WanStats s = sockets.stats(connection.channel()).orElse(WanStats.UNKNOWN);
    long rtt = s.rttMicros() >= 0 ? s.rttMicros() : connection.rttNanos() < 0 ? -1 : connection.rttNanos() / 1000;
    f = new WanFigures(rtt, s.cwndSegments(), s.retransmits());
    last = f;
    readAtNanos = now;
    return f;
  }
}
