package io.tcpopt.servicenode.reuse;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.channel.DefaultEventLoop;
import io.netty.channel.EventLoop;
import io.tcpopt.common.profile.HttpReuseProfile;
import io.tcpopt.servicenode.wire.ServerReuse;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What the far node makes of the server-reuse block of a peer's OPEN ({@link PeerReuse}): used
 * within its maxima, its own policy's profile otherwise, and a bounded number of peer profiles.
 */
class PeerReuseChoiceTest {
  private static final ServerReuse ASKED = new ServerReuse(1, 24, 64, 3_600_000, 1000, 4000);
  private static final HttpReuseProfile OWN = new HttpReuseProfile("own", "oneconnect", 0, 10, Duration.ofMinutes(1), 5, Duration.ofSeconds(2));

  private final EventLoop loop = new DefaultEventLoop();
  private final ReusePools pools = new ReusePools(new TcpServerConnector(Duration.ofSeconds(1), new io.netty.channel.WriteBufferWaterMark(32 << 10, 64 << 10)),
      new ReuseMetrics(new SimpleMeterRegistry()));

  @AfterEach
  void close() throws Exception {
    pools.close();
    loop.shutdownGracefully(0, 0, java.util.concurrent.TimeUnit.SECONDS).sync();
  }

  @Test
  void aPeersProfileWithinTheMaximaIsUsedAsAsked() {
    PeerReuse.Choice c = PeerReuse.DEFAULTS.choose(ASKED, "branch-1", OWN, pools);
    assertTrue(c.fromPeer());
    assertEquals(new HttpReuseProfile("peer:branch-1", null, 24, 64, Duration.ofHours(1), 1000, Duration.ofSeconds(4)), c.profile());
    assertEquals("http-reuse from peer's OPEN", c.note());
  }

  @Test
  void everySettingIsClampedToTheNodesMaximum() {
    PeerReuse limits = new PeerReuse(true, 8, Duration.ofSeconds(30), 10, Duration.ofSeconds(1), 4);
    PeerReuse.Choice c = limits.choose(new ServerReuse(1, 0, 1_000_000, ServerReuse.MAX_MILLIS, 1_000_000_000, ServerReuse.MAX_MILLIS), "b", null,
        pools);
    assertEquals(new HttpReuseProfile("peer:b", null, 0, 8, Duration.ofSeconds(30), 10, Duration.ofSeconds(1)), c.profile());
    assertEquals("http-reuse from peer's OPEN (clamped: max-size 1000000 -> 8, max-age 4294967295ms -> 30000ms, max-reuse 1000000000 -> 10, "
        + "idle-timeout 4294967295ms -> 1000ms)", c.note());
  }

  @Test
  void withoutABlockTheNodesOwnPolicyDecidesSilently() {
    PeerReuse.Choice c = PeerReuse.DEFAULTS.choose(null, "b", OWN, pools);
    assertSame(OWN, c.profile());
    assertFalse(c.fromPeer());
    assertNull(c.note());
    assertNull(PeerReuse.DEFAULTS.choose(null, "b", null, pools).profile());
  }

  @Test
  void aRefusedOrUnreadableBlockFallsBackToTheNodesOwnPolicyAndSaysWhy() {
    PeerReuse refusing = new PeerReuse(false, 10, Duration.ofDays(1), 10, Duration.ofSeconds(60), 64);
    PeerReuse.Choice c = refusing.choose(ASKED, "b", null, pools);
    assertNull(c.profile());
    assertEquals("peer's http-reuse not honoured (peer-http-reuse.allow is false): one server connection per flow", c.note());
    c = refusing.choose(ASKED, "b", OWN, pools);
    assertSame(OWN, c.profile());
    assertEquals("peer's http-reuse not honoured (peer-http-reuse.allow is false): this node's http-reuse own", c.note());
    c = PeerReuse.DEFAULTS.choose(ServerReuse.notUnderstood(7), "b", null, pools);
    assertNull(c.profile());
    assertEquals("peer's server-reuse block of version 7 not understood: one server connection per flow", c.note());
  }

  @Test
  void peerProfilesAreBoundedAndOnlyProfilesWithIdleConnectionsAreKept() {
    PeerReuse limits = new PeerReuse(true, 100, Duration.ofDays(1), 1000, Duration.ofSeconds(60), 2);
    for (int size = 1; size <= 2; size++) {
      PeerReuse.Choice c = limits.choose(new ServerReuse(1, 0, size, 60_000, 10, 1000), "b", null, pools);
      assertTrue(c.fromPeer());
      pools.pool(c.profile(), loop);
    }
    assertEquals(2, pools.profileCount());
    // Neither pool holds an idle connection: a third profile replaces one of them.
    PeerReuse.Choice third = limits.choose(new ServerReuse(1, 0, 3, 60_000, 10, 1000), "b", null, pools);
    assertTrue(third.fromPeer());
    pools.pool(third.profile(), loop);
    assertEquals(2, pools.profileCount());
  }
}
