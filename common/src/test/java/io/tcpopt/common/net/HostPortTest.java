package io.tcpopt.common.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import org.junit.jupiter.api.Test;

class HostPortTest {
  @Test
  void ipv6IsBracketedAndWrittenAsRfc5952Has() throws Exception {
    assertEquals("[2001:2:0:1801::2]:5201", HostPort.format(new InetSocketAddress(InetAddress.getByName("2001:2:0:1801:0:0:0:2"), 5201)));
    assertEquals("198.18.1.2:5201", HostPort.format(new InetSocketAddress(InetAddress.getByName("198.18.1.2"), 5201)));
    assertEquals("::1", HostPort.address(InetAddress.getByName("0:0:0:0:0:0:0:1")));
    assertEquals("2001:db8::1:0:0:1", HostPort.address(InetAddress.getByName("2001:db8:0:0:1:0:0:1")), "the first of two equal zero runs");
    assertEquals("2001:db8:0:1:1:1:1:1", HostPort.address(InetAddress.getByName("2001:db8:0:1:1:1:1:1")), "a lone zero group stays");
    assertEquals("", HostPort.format(null));
  }

  @Test
  void parsesBracketedIpv6() {
    HostPort hp = HostPort.parse("[2001:2:0:1800::2]:7800");
    assertEquals("2001:2:0:1800::2", hp.host());
    assertEquals(7800, hp.port());
    assertEquals("[2001:2:0:1800::2]:7800", hp.toString());
    assertEquals(new InetSocketAddress("2001:2:0:1800::2", 7800), hp.resolve());
    assertThrows(IllegalArgumentException.class, () -> HostPort.parse("[2001:2:0:1800::2]"));
  }

  @Test
  void lenientTakesAHostWithOrWithoutAPort() {
    assertEquals(new HostPort("10.0.0.2", 5701), HostPort.lenient("10.0.0.2:5701"));
    assertEquals(new HostPort("10.0.0.2", -1), HostPort.lenient("10.0.0.2"));
    assertEquals(new HostPort("controller-2", -1), HostPort.lenient("controller-2"));
    assertEquals(new HostPort("fd00::2", 5701), HostPort.lenient("[fd00::2]:5701"));
    assertEquals(new HostPort("fd00::2", -1), HostPort.lenient("[fd00::2]"), "brackets without a port");
    assertEquals(new HostPort("fd00::2", -1), HostPort.lenient("fd00::2"), "a bare IPv6 address is all host");
    assertEquals(new HostPort("::1", -1), HostPort.lenient("::1"));
    assertEquals(new HostPort("10.0.0.2", -1), HostPort.lenient("10.0.0.2:http"), "a port that is not a number");
  }
}
