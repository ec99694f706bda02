package io.tcpopt.servicenode;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tcpopt.common.config.ConfigException;
import io.tcpopt.servicenode.reuse.PeerReuse;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Valid configs get their documented defaults; each invalid value is one line naming the field. */
class ServiceNodeConfigTest {
  private static final String BASE = "service-node:\n  wan:\n    listen: 127.0.0.1:0\n    plaintext: true\n";

  @Test
  void defaults() {
    ServiceNodeConfig c = TestNodes.config(BASE + "    link: { bandwidth: 250Mbit, rtt: 200ms, pacing: true }\n"
        + "  peers: [ { name: dc-1, site: dc, address: '127.0.0.1:7800', prefixes: [198.19.1.0/24] } ]\n", "b", "branch");
    assertEquals(1, c.wan().connections());
    assertTrue(c.wan().expressConnection(), "an express connection beside the one");
    assertFalse(TestNodes.config(BASE + "    express-connection: false\n", "b", "branch").wan().expressConnection());
    assertEquals("bbr", c.wan().congestionControl());
    assertEquals(Duration.ofSeconds(5), c.wan().keepalive());
    assertEquals(fitted(c, 4 * (250_000_000L / 8 / 5)), c.wan().streamWindow(), "default window = 4 x bandwidth x rtt");
    assertEquals(64 * 1024, c.wan().maxFrameSize());
    assertEquals(4096, c.wan().maxStreams());
    assertEquals(Duration.ofMillis(2), c.wan().openCoalescing());
    assertEquals(Duration.ofSeconds(10), c.lan().connectTimeout());
    assertEquals(Duration.ofHours(1), c.lan().idleTimeout());
    assertEquals(10_000, c.flows().maxActive());
    assertEquals(1_000, c.flows().closedHistory());
    assertEquals(1_000, c.flows().maxPerClient());
    assertEquals(io.tcpopt.servicenode.admission.MemoryLimits.current().defaultBudget(), c.flows().bufferBudget(), "auto: half the buffers' memory");
    assertNull(c.interception().transparent());
    assertNull(c.interception().handoff());
    ServiceNodeConfig.Handoff h = TestNodes.config(BASE + "  interception: { handoff: { listen: 127.0.0.1:7950 } }\n", "b", "branch")
        .interception().handoff();
    assertEquals(7950, h.listen().getPort());
    assertEquals(java.util.List.of("127.0.0.0/8", "::1/128"), h.allowed(), "handoffs from loopback only by default");
    assertTrue(c.wan().link().pacing());
    assertEquals(256L << 20, c.dataReduction().memoryBytes(), "data-reduction cache: 256MiB of memory");
    assertNull(c.dataReduction().diskDir(), "no disk cache unless configured");
    io.tcpopt.reduction.store.StoreSettings cache = TestNodes.config(
        BASE + "  data-reduction: { memory-cache: 64MiB, disk-cache: { dir: /var/lib/tcpopt/cache } }\n", "b", "branch")
        .dataReduction();
    assertEquals(64L << 20, cache.memoryBytes());
    assertEquals(java.nio.file.Path.of("/var/lib/tcpopt/cache"), cache.diskDir());
    assertEquals(4L << 30, cache.diskBytes(), "disk cache default 4GiB");
    assertFalse(c.clientAddress().requests("dc"), "without transparent interception no site is asked for the client's address");
    assertFalse(c.clientAddress().allows("branch"), "no site's ask is honoured unless allowed");
    ServiceNodeConfig transparent = TestNodes.config(BASE + "  interception: { transparent: { port: 7900 } }\n", "b", "branch");
    assertTrue(transparent.clientAddress().requests("dc"), "transparent mode asks every site for the client's address");
    ServiceNodeConfig chosen = TestNodes.config(BASE + "  interception: { transparent: { port: 7900 } }\n"
        + "  client-address: { request: [dc-east], allow: [branch-1, branch-2] }\n", "b", "branch");
    assertTrue(chosen.clientAddress().requests("dc-east"));
    assertFalse(chosen.clientAddress().requests("dc-west"));
    assertTrue(chosen.clientAddress().allows("branch-2"));
    assertFalse(chosen.clientAddress().allows("branch-3"));
    assertTrue(TestNodes.config(BASE + "  client-address: { allow: ['*'] }\n", "b", "branch").clientAddress().allows("anywhere"));
    ServiceNodeConfig noLink = TestNodes.config(BASE, "b", "branch");
    assertEquals(fitted(noLink, 4 * 6_250_000), noLink.wan().streamWindow(), "default link 1Gbit x 50ms");
    assertEquals(1 << 20, TestNodes.config(BASE + "    link: { bandwidth: 10Mbit, rtt: 10ms }\n", "b", "branch").wan().streamWindow(),
        "window at least 1MiB");
  }

  /** The link block caps the whole peer: the pacing rate is shared by its connections; buffers fit the whole link. */
  @Test
  void peerHttpReuseDefaultsAndLimits() {
    assertEquals(PeerReuse.DEFAULTS, TestNodes.config(BASE, "d", "dc").peerHttpReuse());
    ServiceNodeConfig c = TestNodes.config(BASE + "  peer-http-reuse: { allow: false, max-size: 5, max-age: 10m, max-reuse: 7, idle-timeout: 2s, "
        + "max-profiles: 3 }\n", "d", "dc");
    assertEquals(new PeerReuse(false, 5, Duration.ofMinutes(10), 7, Duration.ofSeconds(2), 3),
        c.peerHttpReuse());
    ConfigException e = assertThrows(ConfigException.class,
        () -> TestNodes.config(BASE + "  peer-http-reuse: { idle-timeout: 10ms }\n", "d", "dc"));
    assertTrue(e.getMessage().contains("peer-http-reuse.idle-timeout"), e.getMessage());
  }

  @Test
  void pacingSharesTheLinkRateBetweenAPeersConnections() {
    String link = "    link: { bandwidth: 600Mbit, rtt: 100ms, pacing: true }\n";
    io.tcpopt.common.net.WanSocketSettings one = WanTuning.settings(TestNodes.config(BASE + link, "b", "branch").wan());
    io.tcpopt.common.net.WanSocketSettings four = WanTuning.settings(TestNodes.config(BASE + link + "    connections: 4\n", "b", "branch").wan());
    assertEquals(72_000_000, one.pacingRateBytesPerSecond(), "one connection: the link rate's payload share");
    assertEquals(18_000_000, four.pacingRateBytesPerSecond(), "four: a quarter each");
    assertEquals(one.sendBufferBytes(), four.sendBufferBytes(), "each connection's buffers still fit the whole link");
    assertEquals(0, WanTuning.settings(TestNodes.config(BASE + "    link: { bandwidth: 600Mbit, rtt: 100ms }\n    connections: 4\n", "b", "branch")
        .wan()).pacingRateBytesPerSecond(), "no pacing cap without pacing: true");
  }

  /**
   * {@code window} as the derived default leaves it in the budget of {@code c} (this JVM's memory
   * sets the default budget): room for 8 flows at their full window, send queue and leg read.
   */
  private static long fitted(ServiceNodeConfig c, long window) {
    long perFlow = io.tcpopt.servicenode.admission.BufferBudget.optimizedShare(c.flows().bufferBudget()) / ServiceNodeConfig.MIN_FULL_WINDOW_FLOWS
        - io.tcpopt.servicenode.admission.BufferBudget.optimizedFlowBytes(io.tcpopt.servicenode.session.MuxStream.SEND_QUEUE_LIMIT);
    return Math.max(64 * 1024, Math.min(window, perFlow));
  }

  @Test
  void streamWindowDerivedFromTheBufferBudget() {
    // 16MiB budget, 12MiB for optimized flows: at least 8 flows at their full window + a 256KiB send
    // queue + a 64KiB leg read leaves 1.5MiB - 320KiB each.
    ServiceNodeConfig c = TestNodes.config(BASE + "  flows: { buffer-budget: 16MiB }\n", "b", "branch");
    assertEquals(16L << 20, c.flows().bufferBudget());
    assertEquals((3 << 19) - 320 * 1024, c.wan().streamWindow(), "1Gbit x 50ms would be 6.25MB: capped by the budget");
    assertEquals(64 * 1024, c.wan().initialStreamWindow(), "windows start at 64KiB and grow to the stream window");
    assertEquals(64 * 1024, TestNodes.config(BASE + "  flows: { buffer-budget: 4MiB }\n", "b", "branch").wan().streamWindow(), "never below 64KiB");
    assertEquals(io.tcpopt.servicenode.admission.MemoryLimits.current().defaultBudget(),
        TestNodes.config(BASE + "  flows: { buffer-budget: auto }\n", "b", "branch").flows().bufferBudget());
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "service-node: { wan: { plaintext: true } }|service-node.wan.listen: is required",
      "service-node: { wan: { listen: '127.0.0.1:0' } }|service-node.wan.tls: is required (mutual TLS), unless plaintext: true is set explicitly",
      "service-node: { wan: { listen: '127.0.0.1:0', plaintext: true, connections: 0 } }|service-node.wan.connections: must be between 1 and 64, got 0",
      "service-node: { wan: { listen: '127.0.0.1:0', plaintext: true, listn: x } }|service-node.wan.listn: unknown setting",
      "service-node: { wan: { listen: '127.0.0.1:0', plaintext: true, max-frame-size: 1KiB } }|service-node.wan.max-frame-size: must be between 16KiB and 16MiB, got 1024",
      "service-node: { wan: { listen: '127.0.0.1:0', plaintext: true, stream-window: lots } }|service-node.wan.stream-window: expected a size",
      "service-node: { wan: { listen: '127.0.0.1:0', plaintext: true, stream-window: 1MiB, initial-stream-window: 2MiB } }|service-node.wan.initial-stream-window: must be between 16KiB and stream-window (1048576), got 2097152",
      "service-node: { wan: { listen: '127.0.0.1:0', plaintext: true, keepalive: 5 } }|service-node.wan.keepalive: expected a duration",
      "service-node: { wan: { listen: '127.0.0.1:0', plaintext: true, link: { bandwidth: fast } } }|service-node.wan.link.bandwidth: expected a rate",
      "service-node: { wan: { listen: '127.0.0.1:0', plaintext: true, congestion-control: 'BBR!' } }|service-node.wan.congestion-control: expected a kernel congestion control name",
      "service-node: { wan: { listen: 'nowhere', plaintext: true } }|service-node.wan.listen: expected HOST:PORT",
      "service-node: { wan: { listen: '127.0.0.1:0', plaintext: true }, peers: [ { name: a, site: dc, address: '127.0.0.1:1', prefixes: [10.0.0.0/33] } ] }|service-node.peers[0].prefixes[0]: bad CIDR \"10.0.0.0/33\": prefix length must be between 0 and 32",
      "service-node: { wan: { listen: '127.0.0.1:0', plaintext: true }, peers: [ { name: a, site: dc, address: '127.0.0.1:1' }, { name: a, site: dc, address: '127.0.0.1:2' } ] }|service-node.peers[1].name: duplicate peer name",
      "service-node: { wan: { listen: '127.0.0.1:0', plaintext: true }, peers: [ { name: a, address: '127.0.0.1:1' } ] }|service-node.peers[0].site: is required",
      "service-node: { wan: { listen: '127.0.0.1:0', plaintext: true }, interception: { transparent: { port: 70000 } } }|service-node.interception.transparent.port: must be between 1 and 65535, got 70000",
      "service-node: { wan: { listen: '127.0.0.1:0', plaintext: true }, interception: { listeners: [ { listen: '127.0.0.1:0' } ] } }|service-node.interception.listeners[0].target: is required",
      "service-node: { wan: { listen: '127.0.0.1:0', plaintext: true }, interception: { handoff: { } } }|service-node.interception.handoff.listen: is required",
      "service-node: { wan: { listen: '127.0.0.1:0', plaintext: true }, interception: { handoff: { listen: '127.0.0.1:0', allowed: [ 'ctl-1' ] } } }|service-node.interception.handoff.allowed[0]: bad CIDR \"ctl-1\": not an IPv4 or IPv6 address",
      "service-node: { wan: { listen: '127.0.0.1:0', plaintext: true }, interception: { handoff: { listen: '127.0.0.1:0', allow: [ 10.0.0.1 ] } } }|service-node.interception.handoff.allow: unknown setting",
      "service-node: { wan: { listen: '127.0.0.1:0', plaintext: true }, lan: { connect-timeout: soon } }|service-node.lan.connect-timeout: expected a duration",
      "service-node: { wan: { listen: '127.0.0.1:0', plaintext: true }, lan: { proxy-buffer-high: 4KiB, proxy-buffer-low: 8KiB } }|service-node.lan.proxy-buffer-low: must be between 0 and proxy-buffer-high",
      "service-node: { wan: { listen: '127.0.0.1:0', plaintext: true }, flows: { max-active: -1 } }|service-node.flows.max-active: must be between 1 and 10000000, got -1",
      "service-node: { wan: { listen: '127.0.0.1:0', plaintext: true }, flows: { buffer-budget: 512GiB } }|service-node.flows.buffer-budget: 524288MiB does not fit this JVM: at most 75% of the ",
      "service-node: { wan: { listen: '127.0.0.1:0', plaintext: true }, flows: { buffer-budget: 1MiB } }|service-node.flows.buffer-budget: must be at least 4MiB, got 1048576",
      "service-node: { wan: { listen: '127.0.0.1:0', plaintext: true }, flows: { max-active: 10, max-per-client: 11 } }|service-node.flows.max-per-client: must be between 1 and 10, got 11",
      "service-node: { wan: { listen: '127.0.0.1:0', plaintext: true, stream-window: 8MiB }, flows: { buffer-budget: 16MiB } }|service-node.wan.stream-window: 8MiB leaves room for fewer than 8 optimized flows in service-node.flows.buffer-budget 16MiB",
      "service-node: { wan: { listen: '127.0.0.1:0', plaintext: true }, data-reduction: { memory-cache: 1KiB } }|service-node.data-reduction.memory-cache: must be between 1MiB and 1TiB, got 1024",
      "service-node: { wan: { listen: '127.0.0.1:0', plaintext: true }, data-reduction: { disk-cache: { size: 1GiB } } }|service-node.data-reduction.disk-cache.dir: is required",
      "service-node: { wan: { listen: '127.0.0.1:0', plaintext: true }, data-reduction: { disk-cache: { dir: /tmp/x, size: 1MiB } } }|service-node.data-reduction.disk-cache.size: must be between 16MiB and 16TiB, got 1048576",
      "service-node: { wan: { listen: '127.0.0.1:0', plaintext: true }, data-reduction: { memory: 1GiB } }|service-node.data-reduction.memory: unknown setting",
      "service-node: { wan: { listen: '127.0.0.1:0', plaintext: true }, client-address: { allow: [ '' ] } }|service-node.client-address.allow[0]: expected a site name",
      "service-node: { wan: { listen: '127.0.0.1:0', plaintext: true }, client-address: { allowed: [ dc ] } }|service-node.client-address.allowed: unknown setting",
      "service-node: { wan: { listen: '127.0.0.1:0', tls: { certificate: /nonexistent.crt, private-key: /nonexistent.key, trusted: /nonexistent.ca } } }|service-node.wan.tls.certificate: /nonexistent.crt",
  })
  void invalidValueIsOneLineNamingTheField(String yaml, String expectedStart) {
    ConfigException e = assertThrows(ConfigException.class, () -> TestNodes.config(yaml, "b", "branch"));
    assertTrue(e.getMessage().startsWith(expectedStart), e.getMessage());
    assertFalse(e.getMessage().contains("\n"), "one line: " + e.getMessage());
  }

  @Test
  void portInUseIsOneClearLine() throws Exception {
    try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      ServiceNodeConfig c = TestNodes.config("service-node:\n  wan: { listen: '127.0.0.1:" + taken.getLocalPort() + "', plaintext: true }\n",
          "b", "branch");
      ServiceNodeException e = assertThrows(ServiceNodeException.class, () -> ServiceNode.start(c, null, new SimpleMeterRegistry()));
      assertTrue(e.getMessage().startsWith("cannot listen for peers on /127.0.0.1:" + taken.getLocalPort() + ": "), e.getMessage());
      assertFalse(e.getMessage().contains("\n"));
    }
  }
}
