package io.tcpopt.servicenode.trust;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tcpopt.common.policy.Cidr;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Where the far node may connect a peer's stream: the testbed DC's prefixes (IPv4 and IPv6), with
 * this host at 198.19.1.1 / 2001:2:0:1901::1 on the DC LAN and 198.18.0.2 on the WAN.
 */
class DestinationGuardTest {
  private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
  private final DestinationGuard dc = new DestinationGuard(List.of("198.19.1.0/24", "2001:2:0:1901::/64"), host(), meters);

  private static HostAddresses host() {
    return HostAddresses.fixed(Set.of(ip("198.19.1.1"), ip("198.18.0.2"), ip("2001:2:0:1901::1"), ip("127.0.0.1"), ip("::1")),
        Set.of(ip("198.19.1.255"), ip("198.18.0.3")));
  }

  private static InetAddress ip(String literal) {
    try {
      return InetAddress.getByName(literal);
    } catch (java.net.UnknownHostException e) {
      throw new IllegalArgumentException(e);
    }
  }

  private static InetSocketAddress to(String literal, int port) {
    return new InetSocketAddress(ip(literal), port);
  }

  private double refused(DestinationRefusal r) {
    return meters.get("tcpopt.streams.refused").tag("reason", r.label()).counter().count();
  }

  @ParameterizedTest
  @CsvSource({"198.19.1.2, 443", "198.19.1.254, 8080", "2001:2:0:1901::2, 5201", "::ffff:198.19.1.2, 80"})
  void serversOfTheSiteAreAllowed(String address, int port) {
    DestinationGuard.Check v = dc.check(to(address, port));
    assertTrue(v.allowed(), v.reason());
  }

  @ParameterizedTest
  @CsvSource({
      "127.0.0.1, 9464, LOOPBACK", "127.0.0.53, 53, LOOPBACK", "::1, 7700, LOOPBACK",
      "169.254.169.254, 80, LINK_LOCAL", "fe80::1, 22, LINK_LOCAL",
      "224.0.0.1, 80, MULTICAST", "ff02::1, 80, MULTICAST",
      "255.255.255.255, 80, BROADCAST", "198.19.1.255, 80, BROADCAST",
      "0.0.0.0, 9464, UNSPECIFIED", "0.1.2.3, 80, UNSPECIFIED", "::, 9464, UNSPECIFIED",
      "198.19.1.1, 9464, OWN_ADDRESS", "2001:2:0:1901::1, 7800, OWN_ADDRESS", "198.18.0.2, 5701, OWN_ADDRESS",
      "198.18.0.1, 7800, NOT_SERVED", "10.0.0.1, 22, NOT_SERVED", "2001:2:0:1801::2, 80, NOT_SERVED", "8.8.8.8, 53, NOT_SERVED"})
  void everythingElseIsRefusedWithItsReasonAndCounted(String address, int port, DestinationRefusal expected) {
    DestinationGuard.Check v = dc.check(to(address, port));
    assertEquals(expected, v.refusal(), address);
    assertTrue(v.reason().startsWith("destination ") && v.reason().contains(" refused: "), v.reason());
    assertEquals(1, refused(expected));
  }

  @Test
  void theReasonNamesTheDestinationAndWhy() {
    assertEquals("destination 127.0.0.1:9464 refused: loopback", dc.check(to("127.0.0.1", 9464)).reason());
    assertEquals("destination [2001:2:0:1801::2]:80 refused: outside the prefixes this site serves (service-node.serves)",
        dc.check(to("2001:2:0:1801::2", 80)).reason());
  }

  @Test
  void aNodeThatServesNothingRefusesEverythingAndSaysWhy() {
    DestinationGuard none = new DestinationGuard(List.of(), host(), new SimpleMeterRegistry());
    DestinationGuard.Check v = none.check(to("198.19.1.2", 80));
    assertEquals(DestinationRefusal.NOT_SERVED, v.refusal());
    assertTrue(v.reason().contains("service-node.serves is empty"), v.reason());
  }

  @Test
  void withoutConfiguredPrefixesThePolicysSitePrefixesApplyAndCanBeWithdrawn() {
    DestinationGuard guard = new DestinationGuard(List.of(), host(), new SimpleMeterRegistry());
    assertTrue(guard.fromPolicy("dc", List.of(Cidr.parse("198.19.1.0/24"))));
    assertTrue(guard.check(to("198.19.1.2", 80)).allowed());
    DestinationGuard.Check outside = guard.check(to("198.19.2.2", 80));
    assertEquals("destination 198.19.2.2:80 refused: outside the prefixes this site serves (the policy's sites.dc.serves)", outside.reason());
    assertEquals(DestinationRefusal.LOOPBACK, guard.check(to("127.0.0.1", 80)).refusal(), "special addresses stay refused");
    assertFalse(guard.fromPolicy("dc", List.of()), "a policy without the site's entry");
    assertEquals(DestinationRefusal.NOT_SERVED, guard.check(to("198.19.1.2", 80)).refusal());
  }

  @Test
  void configuredPrefixesTakePrecedenceOverThePolicys() {
    assertFalse(dc.fromPolicy("dc", List.of(Cidr.parse("0.0.0.0/0"))), "a controller cannot widen a node that names its prefixes");
    assertEquals(List.of(Cidr.parse("198.19.1.0/24"), Cidr.parse("2001:2:0:1901::/64")), dc.served());
    assertEquals(DestinationRefusal.NOT_SERVED, dc.check(to("203.0.113.9", 80)).refusal());
  }

  @Test
  void everythingServedStillExcludesLoopbackAndThisHost() {
    DestinationGuard all = new DestinationGuard(List.of("0.0.0.0/0", "::/0"), host(), new SimpleMeterRegistry());
    assertTrue(all.check(to("203.0.113.9", 80)).allowed());
    assertEquals(DestinationRefusal.LOOPBACK, all.check(to("127.0.0.1", 80)).refusal());
    assertEquals(DestinationRefusal.OWN_ADDRESS, all.check(to("198.18.0.2", 80)).refusal());
    assertEquals(DestinationRefusal.LINK_LOCAL, all.check(to("169.254.1.1", 80)).refusal());
  }

  @Test
  void aServedLoopbackPrefixAllowsLoopbackButNeverTheNodesOwnPorts() {
    DestinationGuard lab = new DestinationGuard(List.of("127.0.0.1/32"), host(), new SimpleMeterRegistry());
    lab.ownPorts(List.of(7800, 9464));
    lab.ownPorts(List.of(7700));
    assertTrue(lab.check(to("127.0.0.1", 5201)).allowed());
    assertEquals(DestinationRefusal.OWN_PORT, lab.check(to("127.0.0.1", 7800)).refusal());
    assertEquals(DestinationRefusal.OWN_PORT, lab.check(to("127.0.0.1", 9464)).refusal());
    assertEquals(DestinationRefusal.OWN_PORT, lab.check(to("127.0.0.1", 7700)).refusal());
    assertEquals(DestinationRefusal.LOOPBACK, lab.check(to("127.0.0.2", 5201)).refusal(), "only the loopback prefix named");
    assertEquals(DestinationRefusal.LOOPBACK, lab.check(to("::1", 5201)).refusal(), "IPv6 loopback is not named");
  }

  @Test
  void theClientsAddressIsKeptOnlyFromOutsideThisSiteAndThisHost() {
    assertNull(dc.sourceProblem(ip("198.18.1.2")), "a branch client");
    assertNull(dc.sourceProblem(ip("2001:2:0:1801::2")));
    assertNotNull(dc.sourceProblem(ip("198.19.1.7")), "a host of this site");
    assertNotNull(dc.sourceProblem(ip("198.19.1.1")), "this node");
    assertNotNull(dc.sourceProblem(ip("127.0.0.1")));
    assertNotNull(dc.sourceProblem(ip("169.254.0.9")));
    assertEquals(0, refused(DestinationRefusal.NOT_SERVED), "source checks are not counted as refusals");
  }
}
