package io.tcpopt.servicenode.intercept;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.util.concurrent.EventExecutor;
import io.tcpopt.common.transport.Legs;
import io.tcpopt.common.transport.NettyTransport;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The explicit listener on real loopback sockets: with epoll, every worker loop accepts on its own
 * socket (SO_REUSEPORT) and keeps its flows, and a port something else listens on fails the bind.
 */
class InterceptListenerTest {
  private static final WriteBufferWaterMark WATERMARKS = new WriteBufferWaterMark(32 << 10, 64 << 10);
  private EventLoopGroup boss;
  private EventLoopGroup workers;

  @BeforeEach
  void start() {
    boss = NettyTransport.group(1, "listener-test-accept");
    workers = NettyTransport.group(2, "listener-test-io");
  }

  @AfterEach
  void stop() throws Exception {
    boss.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
    workers.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
  }

  /** Many connections from many source ports: each is handed over on a worker loop; with epoll both loops accept. */
  @Test
  void everyWorkerLoopAcceptsItsOwnFlows() throws Exception {
    int flows = 64;
    CountDownLatch intercepted = new CountDownLatch(flows);
    Set<EventLoop> loops = ConcurrentHashMap.newKeySet();
    Set<Boolean> onItsLoop = ConcurrentHashMap.newKeySet();
    FlowInterceptor interceptor = (client, source, destination, site) -> {
      loops.add(client.eventLoop());
      onItsLoop.add(client.eventLoop().inEventLoop());
      Legs.reset(client);
      intercepted.countDown();
    };
    InetSocketAddress target = new InetSocketAddress(InetAddress.getLoopbackAddress(), 9);
    try (InterceptListener listener = InterceptListener.explicit(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), target, null,
        boss, workers, WATERMARKS, interceptor)) {
      for (int i = 0; i < flows; i++) {
        try (Socket s = new Socket()) {
          s.connect(listener.localAddress(), 5_000);
        } catch (SocketException resetByTheInterceptor) {
          // the interceptor resets each flow at once: its RST can beat the connect's return
        }
      }
      assertTrue(intercepted.await(10, TimeUnit.SECONDS), "every flow intercepted");
    }
    Set<EventLoop> workerLoops = new HashSet<>();
    for (EventExecutor e : workers) {
      workerLoops.add((EventLoop) e);
    }
    assertTrue(workerLoops.containsAll(loops), "flows only on the worker loops");
    assertEquals(Set.of(true), onItsLoop, "the interceptor runs on the flow's loop");
    if (NettyTransport.isEpoll()) {
      // 64 source ports hashed over two sockets: both get some (all on one: about 2^-63)
      assertEquals(workerLoops, loops, "both worker loops accepted flows");
    }
  }

  @Test
  void aPortSomethingElseListensOnFailsTheBind() throws Exception {
    Assumptions.assumeTrue(NettyTransport.isEpoll(), "the reuse-port listeners are epoll's");
    FlowInterceptor interceptor = (client, source, destination, site) -> Legs.reset(client);
    InetSocketAddress target = new InetSocketAddress(InetAddress.getLoopbackAddress(), 9);
    try (InterceptListener first = InterceptListener.explicit(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), target, null,
        boss, workers, WATERMARKS, interceptor)) {
      IllegalStateException e = assertThrows(IllegalStateException.class, () -> InterceptListener.explicit(first.localAddress(), target, null,
          boss, workers, WATERMARKS, interceptor));
      assertTrue(e.getMessage().startsWith("cannot listen on " + first.localAddress()), e.getMessage());
    }
  }
}
