package io.tcpopt.servicenode.session;

import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.netty.buffer.Unpooled;
import io.netty.channel.DefaultEventLoop;
import io.netty.channel.EventLoop;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Which of a site's connections a new flow's stream opens on ({@link SessionRegistry#pick}): a bulk
 * connection before the express one, then one on the flow's event loop, then the least loaded; the
 * express connection only when no other is up. Connections 0 and 1 of one pool and its express
 * connection 2, on EmbeddedChannels (each its own event loop), admitted as site "dc".
 */
class SessionRegistryTest {
  private static final InetSocketAddress SRC = new InetSocketAddress("198.18.1.2", 40000);
  private static final InetSocketAddress DST = new InetSocketAddress("198.19.1.2", 80);

  private final SessionRegistry registry = new SessionRegistry(null);
  private final EventLoop elsewhere = new DefaultEventLoop();
  private EmbeddedPool wan;

  @BeforeEach
  void start() {
    SessionSettings branch = new SessionSettings("branch-1", "branch", 1 << 20, 256 * 1024, 100, Duration.ofSeconds(30), Duration.ofSeconds(10));
    SessionSettings dc = new SessionSettings("dc-1", "dc", 1 << 20, 256 * 1024, 100, Duration.ofSeconds(30), Duration.ofSeconds(10));
    int[] numbers = {PooledConnection.number(0, false), PooledConnection.number(1, false), PooledConnection.number(2, true)};
    wan = new EmbeddedPool(branch, dc, numbers, c -> (stream, open) -> open.release(), registry);
  }

  @AfterEach
  void stop() {
    wan.close();
    elsewhere.shutdownGracefully(0, 0, TimeUnit.SECONDS);
  }

  @Test
  void aBulkConnectionOnTheFlowsLoopFirstThenTheLeastLoaded() {
    assertSame(wan.branchMux[1], registry.pick("dc", wan.branch[1].eventLoop()), "the one on the flow's loop");
    assertSame(wan.branchMux[0], registry.pick("dc", wan.branch[2].eventLoop()), "never the express one while a bulk one is up, even on the flow's loop");
    wan.branchMux[0].open(1L, SRC, DST, 0, null, Unpooled.EMPTY_BUFFER, new DiscardingStreamHandler());
    wan.carry();
    assertSame(wan.branchMux[1], registry.pick("dc", elsewhere), "the least loaded, none on the flow's loop");
    assertSame(wan.branchMux[0], registry.pick("dc", wan.branch[0].eventLoop()), "the flow's loop before the load");
  }

  @Test
  void theExpressConnectionOnlyWhenNoOtherIsUp() {
    wan.lose(0);
    wan.lose(1);
    assertSame(wan.branchMux[2], registry.pick("dc", elsewhere));
    wan.lose(2);
    assertNull(registry.pick("dc", elsewhere));
    assertNull(registry.pick("elsewhere", elsewhere), "a site with no connection");
  }
}
