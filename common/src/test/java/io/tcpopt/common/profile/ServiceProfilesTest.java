package io.tcpopt.common.profile;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tcpopt.common.config.ConfigTree;
import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ServiceProfilesTest {
  private final List<String> errors = new ArrayList<>();

  private ServiceProfiles parse(String yaml) {
    return ServiceProfiles.parse(ConfigTree.parse(yaml, "test"), (p, r) -> errors.add(p + ": " + r), (t, n) -> true);
  }

  @Test
  void builtInsCarryF5DefaultsAndOurs() {
    HttpReuseProfile oc = HttpReuseProfile.oneconnect();
    assertEquals("oneconnect", oc.name());
    assertEquals("0.0.0.0", oc.sourceMask());
    assertEquals(10_000, oc.maxSize());
    assertEquals(Duration.ofSeconds(86_400), oc.maxAge());
    assertEquals(1_000, oc.maxReuse());
    assertEquals(Duration.ofSeconds(4), oc.idleTimeout());

    ClientSslProfile c = ClientSslProfile.clientssl();
    assertFalse(c.hasCertificate());
    assertTrue(c.dynamicRecordSizing());
    assertEquals(1400, c.smallRecordSize());
    assertEquals(1400 - 40, c.smallRecordPlaintext());
    assertEquals(1L << 20, c.threshold());
    assertEquals(Duration.ofSeconds(1), c.idleReset());
    assertEquals(16384, c.maximumRecordSize());
    assertEquals(List.of("TLSv1.2", "TLSv1.3"), c.protocols());

    ServerSslProfile s = ServerSslProfile.serverssl();
    assertTrue(s.verify());
    assertNull(s.caFile());
    assertNull(s.serverName());
  }

  @Test
  void childrenInheritThroughAChainAndOverrideWhatTheySet() {
    ServiceProfiles p =
        parse(
            """
            http-reuse-profiles:
              per-subnet: { parent: oneconnect, source-mask: 255.255.255.0, max-reuse: 50 }
              short: { parent: per-subnet, idle-timeout: 500ms, max-size: 20 }
            client-ssl-profiles:
              base: { certificate: /etc/tls/www.crt, private-key: /etc/tls/www.key }
              no-drs: { parent: base, allow-dynamic-record-sizing: false, protocols: TLSv1.3 }
            server-ssl-profiles:
              internal: { ca-file: ca.crt, server-name: WWW.Example.com }
              lab: { parent: internal, verify: false }
            """);
    assertEquals(List.of(), errors);
    HttpReuseProfile shortLived = p.resolved(HttpReuseProfile.KIND, "short");
    assertEquals("per-subnet", shortLived.parent());
    assertEquals(24, shortLived.sourceMaskBits());
    assertEquals(50, shortLived.maxReuse());
    assertEquals(20, shortLived.maxSize());
    assertEquals(Duration.ofMillis(500), shortLived.idleTimeout());
    assertEquals(Duration.ofDays(1), shortLived.maxAge());

    ClientSslProfile noDrs = p.resolved(ClientSslProfile.KIND, "no-drs");
    assertTrue(noDrs.hasCertificate());
    assertEquals("/etc/tls/www.key", noDrs.privateKey());
    assertFalse(noDrs.dynamicRecordSizing());
    assertEquals(List.of("TLSv1.3"), noDrs.protocols());

    ServerSslProfile lab = p.resolved(ServerSslProfile.KIND, "lab");
    assertFalse(lab.verify());
    assertEquals("www.example.com", lab.serverName());
    assertEquals("ca.crt", lab.caFile());
    assertTrue(p.defines(ServerSslProfile.KIND, "serverssl"));
    assertFalse(p.defines(ServerSslProfile.KIND, "nope"));
  }

  @Test
  void sourceMaskKeepsThePrefixOfTheClientAddress() throws Exception {
    ServiceProfiles p = parse("http-reuse-profiles: { a: { source-mask: 255.255.255.0 }, b: { source-mask: 32 }, c: { source-mask: /20 } }");
    assertEquals(List.of(), errors);
    InetAddress client = InetAddress.getByName("198.18.1.77");
    assertEquals(InetAddress.getByName("198.18.1.0"), p.resolved(HttpReuseProfile.KIND, "a").maskSource(client));
    assertEquals(client, p.resolved(HttpReuseProfile.KIND, "b").maskSource(client));
    assertEquals(InetAddress.getByName("198.18.0.0"), p.resolved(HttpReuseProfile.KIND, "c").maskSource(client));
    assertEquals("255.255.240.0", p.resolved(HttpReuseProfile.KIND, "c").sourceMask());
    assertEquals(InetAddress.getByName("0.0.0.0"), HttpReuseProfile.oneconnect().maskSource(client));
    InetAddress v6 = InetAddress.getByName("2001:db8::7");
    assertEquals(InetAddress.getByName("::"), HttpReuseProfile.oneconnect().maskSource(v6));
    assertEquals(v6, p.resolved(HttpReuseProfile.KIND, "a").maskSource(v6));
  }

  @Test
  void badSettingsAreReportedWithTheirPaths() {
    ServiceProfiles p =
        parse(
            """
            http-reuse-profiles:
              oneconnect: { max-size: 5 }
              bad: { source-mask: 255.0.255.0, max-size: 0, max-age: soon, idle-timeout: 1ms, pool: 3 }
              loop-a: { parent: loop-b }
              loop-b: { parent: loop-a }
            client-ssl-profiles:
              half: { certificate: www.crt }
              old: { protocols: [TLSv1.1] }
              tiny: { maximum-record-size: 1024, dynamic-record-small-size: 1400 }
              orphan: { parent: clientsll }
            server-ssl-profiles:
              odd: { server-name: "not a name", verify: maybe }
            """);
    assertEquals(
        List.of(
            "http-reuse-profiles.bad.pool: unknown setting (expected one of parent, source-mask, max-size, max-age, max-reuse, idle-timeout)",
            "http-reuse-profiles.bad.source-mask: expected a contiguous IPv4 mask such as 0.0.0.0 or 255.255.255.0 (or a prefix length 0-32), got \"255.0.255.0\"",
            "http-reuse-profiles.bad.max-size: must be between 1 and 1000000, got 0",
            "http-reuse-profiles.bad.max-age: expected a duration such as 250ms, 5s or 2m, got \"soon\"",
            "http-reuse-profiles.bad.idle-timeout: must be at least 100ms in whole milliseconds",
            "http-reuse-profiles.oneconnect: cannot redefine built-in profile \"oneconnect\"",
            "http-reuse-profiles.loop-a.parent: inheritance cycle loop-a -> loop-b -> loop-a",
            "http-reuse-profiles.loop-b.parent: inheritance cycle loop-b -> loop-a -> loop-b",
            "client-ssl-profiles.old.protocols[0]: unsupported TLS protocol \"TLSv1.1\" (expected TLSv1.2 or TLSv1.3)",
            "client-ssl-profiles.half.private-key: is required with certificate",
            "client-ssl-profiles.tiny.dynamic-record-small-size: dynamic-record-small-size 1400 holds more plaintext than maximum-record-size 1024",
            "client-ssl-profiles.orphan.parent: unknown parent profile \"clientsll\"",
            "server-ssl-profiles.odd.server-name: expected a DNS name such as www.example.com, got \"not a name\"",
            "server-ssl-profiles.odd.verify: expected true or false, got \"maybe\""),
        errors);
    assertNull(p.resolved(ClientSslProfile.KIND, "half"));
    assertTrue(p.resolved(ClientSslProfile.KIND, "old") != null, "a bad setting is left inherited, the profile still resolves");
  }

  @Test
  void canonicalYamlPrintsWhatEachProfileSets() {
    ServiceProfiles p =
        parse(
            """
            http-reuse-profiles:
              web: { source-mask: 24, max-age: 3600s, idle-timeout: 1500ms }
            client-ssl-profiles:
              www: { certificate: a.crt, private-key: a.key, dynamic-record-threshold: 64KiB, dynamic-record-idle-timeout: off }
            """);
    assertEquals(List.of(), errors);
    java.util.Map<String, Object> root = new java.util.LinkedHashMap<>();
    p.addYaml(root);
    assertEquals(
        "{http-reuse-profiles={web={parent=oneconnect, source-mask=255.255.255.0, max-age=1h, idle-timeout=1500ms}}, "
            + "client-ssl-profiles={www={parent=clientssl, certificate=a.crt, private-key=a.key, dynamic-record-threshold=64KiB, "
            + "dynamic-record-idle-timeout=off}}}",
        root.toString());
    assertEquals(Duration.ZERO, p.resolved(ClientSslProfile.KIND, "www").idleReset());
  }
}
