package io.tcpopt.servicenode;

import org.junit.jupiter.api.BeforeAll;

/**
 * {@link WanSchedulingTest}'s fairness and interactive-latency cases with the branch's pool of two
 * WAN connections, each limited to the same rate (wire format 2, issue 9): a stream's DATA go on
 * whichever connection of the pool has room, so the bulk streams share both connections whichever
 * one each lives on, and the 1 KB echo is not queued behind their bytes on either.
 */
class WanSchedulingSpreadTest extends WanSchedulingTest {
  @BeforeAll
  static void start() throws Exception {
    pair = ProxiedWanPair.start(WanSchedulingTest::serve, 2, "    stream-window: 4MiB\n", RATE);
    server = pair.server;
    link = pair.link;
    nodes = pair.nodes;
  }
}
