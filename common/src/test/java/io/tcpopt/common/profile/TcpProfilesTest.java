package io.tcpopt.common.profile;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tcpopt.common.config.ConfigTree;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TcpProfilesTest {
  private final List<String> errors = new ArrayList<>();

  private Map<String, TcpProfile> resolve(String yaml) {
    ConfigTree tree = ConfigTree.parse(yaml, "test");
    Map<String, TcpProfileDefinition> defs = new LinkedHashMap<>();
    tree.entries().forEach((n, t) -> defs.put(n, TcpProfileDefinition.parse(n, t, (p, r) -> errors.add(p + ": " + r))));
    return TcpProfiles.resolve(defs, "tcp-profiles", (p, r) -> errors.add(p + ": " + r));
  }

  @Test
  void builtInsInheritFromTcp() {
    TcpProfile tcp = TcpProfiles.builtIn("tcp");
    TcpProfile wan = TcpProfiles.builtIn("tcp-wan-optimized");
    assertEquals(null, tcp.parent());
    assertEquals("tcp", wan.parent());
    assertEquals("bbr", wan.congestionControl());
    assertEquals(8L << 20, wan.proxyBufferHigh());
    assertEquals(4L << 20, wan.proxyBufferLow());
    assertTrue(TcpProfiles.builtIn("tcp-legacy").nagle());
    assertFalse(tcp.nagle());
    assertEquals(LegProfiles.defaults().client(), TcpProfiles.builtIn("tcp-lan-optimized"));
  }

  @Test
  void childrenOverrideOnlyWhatTheySetThroughAChain() {
    Map<String, TcpProfile> p =
        resolve(
            """
            grandchild: { parent: child, keepalive: 30s, idle-timeout: off }
            child: { parent: tcp-wan-optimized, send-buffer: 4MiB, receive-buffer: auto, nagle: true }
            plain: { congestion-control: htcp }
            """);
    assertEquals(List.of(), errors);
    TcpProfile g = p.get("grandchild");
    assertEquals("child", g.parent());
    assertEquals(4L << 20, g.sendBuffer());
    assertEquals(0, g.receiveBuffer());
    assertTrue(g.nagle());
    assertEquals("bbr", g.congestionControl());
    assertEquals(Duration.ofSeconds(30), g.keepalive());
    assertFalse(g.idleTimeoutEnabled());
    assertEquals(8L << 20, g.proxyBufferHigh());
    assertEquals("tcp", p.get("plain").parent());
    assertEquals("htcp", p.get("plain").congestionControl());
    assertEquals(TcpProfiles.builtIn("tcp").sendBuffer(), p.get("plain").sendBuffer());
  }

  @Test
  void watermarksAreCheckedAfterInheritance() {
    resolve("small-high: { parent: tcp-wan-optimized, proxy-buffer-high: 1MiB }\n");
    assertEquals(List.of("tcp-profiles.small-high.proxy-buffer-high: proxy-buffer-high 1MiB is below proxy-buffer-low 4MiB"), errors);
  }

  @Test
  void badFieldsAreReportedWithPaths() {
    resolve(
        """
        x: { send-buffer: lots, congestion-control: "BBR!", keepalive: 1500ms, nagel: true }
        y: { parent: x }
        """);
    assertEquals(
        List.of(
            "x.nagel: unknown setting (expected one of parent, send-buffer, receive-buffer, nagle, congestion-control, keepalive, idle-timeout, proxy-buffer-high, proxy-buffer-low)",
            "x.send-buffer: expected a size such as 65536, 64KiB or 4MiB, got \"lots\"",
            "x.congestion-control: expected a kernel congestion control name such as cubic or bbr, got \"BBR!\"",
            "x.keepalive: must be whole seconds between 1s and 32767s, or off"),
        errors);
  }

  @Test
  void longCycleIsReportedOnlyAtItsMembers() {
    Map<String, TcpProfile> p = resolve("a: { parent: b }\nb: { parent: c }\nc: { parent: b }\nok: { parent: tcp-legacy }\n");
    assertEquals(
        List.of("tcp-profiles.b.parent: inheritance cycle b -> c -> b", "tcp-profiles.c.parent: inheritance cycle c -> b -> c"),
        errors);
    assertTrue(p.containsKey("ok"));
    assertFalse(p.containsKey("a"));
  }
}
