package io.tcpopt.common.net;

import java.io.IOException;
import java.net.ServerSocket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;

/**
 * A free TCP port for a listener that binds it later (a Hazelcast member, a configured listen
 * address), picked below the kernel's ephemeral range. A port the kernel hands out for {@code
 * ServerSocket(0)} is free when asked, but it comes from the ephemeral range, so an outgoing
 * connection can take it as its source port before the listener binds it: the fresh-clone CI of
 * 2026-12-03 06:47 UTC failed on "Port [34977] is already in use". The kernel never picks a
 * source port below that range. A port is handed out once per process, so two listeners a test
 * configures side by side never get the same one.
 */
public final class FreePort {
  /** The ephemeral range's first port when /proc does not say (Linux's default). */
  static final int DEFAULT_EPHEMERAL_LOW = 32768;
  /** Ports below the ephemeral range to pick from. */
  static final int SPAN = 8192;
  private static final int ATTEMPTS = 200;
  private static final Set<Integer> HANDED_OUT = ConcurrentHashMap.newKeySet();

  private FreePort() {}

  /**
   * A port below the ephemeral range that nothing listens on now, on any address, and that this
   * process has not handed out before.
   *
   * @throws IOException when {@value #ATTEMPTS} random picks were all taken
   */
  public static int belowEphemeralRange() throws IOException {
    int high = Math.max(1025, ephemeralLow());
    int low = Math.max(1024, high - SPAN);
    for (int i = 0; i < ATTEMPTS; i++) {
      int port = ThreadLocalRandom.current().nextInt(low, high);
      if (!HANDED_OUT.add(port)) {
        continue;
      }
      try (ServerSocket probe = new ServerSocket(port, 1)) {
        return probe.getLocalPort();
      } catch (IOException taken) {
        // another pick
      }
    }
    throw new IOException("no free port in [" + low + ", " + high + ") after " + ATTEMPTS + " picks");
  }

  /** The first port of the kernel's ephemeral range (net.ipv4.ip_local_port_range). */
  static int ephemeralLow() {
    try {
      return Sysctl.read(Sysctl.PROC_SYS, "net.ipv4.ip_local_port_range").map(v -> Integer.parseInt(v.split("\\s+")[0])).orElse(DEFAULT_EPHEMERAL_LOW);
    } catch (NumberFormatException unknown) {
      return DEFAULT_EPHEMERAL_LOW;
    }
  }
}
