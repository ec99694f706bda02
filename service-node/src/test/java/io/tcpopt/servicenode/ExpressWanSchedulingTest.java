package io.tcpopt.servicenode;

import org.junit.jupiter.api.BeforeAll;

/**
 * {@link WanSchedulingTest}'s two cases with an express connection beside the bulk's ({@code
 * express-connection: true}): the bulk streams still share theirs equally, and the 1 KB
 * request/echo (every echo compared byte for byte) crosses the express connection, so it waits
 * behind none of the bulk's bytes in either node. Timings are logged.
 */
class ExpressWanSchedulingTest extends WanSchedulingTest {
  /** Hides {@link WanSchedulingTest#start()}: the same pair, with an express connection. */
  @BeforeAll
  static void start() throws Exception {
    startPair("    stream-window: 4MiB\n    initial-stream-window: 512KiB\n    express-connection: true\n");
  }
}
