package io.tcpopt.common.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class FreePortTest {
  @Test
  void readsTheKernelsEphemeralRange() throws Exception {
    String range = Files.readAllLines(Path.of("/proc/sys/net/ipv4/ip_local_port_range")).get(0).trim();
    assertEquals(Integer.parseInt(range.split("\\s+")[0]), FreePort.ephemeralLow());
  }

  @Test
  void picksABindablePortBelowTheEphemeralRange() throws Exception {
    int port = FreePort.belowEphemeralRange();
    int high = FreePort.ephemeralLow();
    assertTrue(port < high && port >= Math.max(1024, high - FreePort.SPAN), "port " + port + " below " + high);
    try (ServerSocket listener = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
      assertEquals(port, listener.getLocalPort());
    }
  }

  @Test
  void handsEachPortOutOnce() throws Exception {
    Set<Integer> ports = new HashSet<>();
    for (int i = 0; i < 100; i++) {
      assertTrue(ports.add(FreePort.belowEphemeralRange()), "port handed out twice: " + ports);
    }
  }
}
