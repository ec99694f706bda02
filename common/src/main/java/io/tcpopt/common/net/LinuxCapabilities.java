package io.tcpopt.common.net;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** Effective Linux capabilities of this process, read once from {@code /proc/self/status}. */
public final class LinuxCapabilities {
  static final int CAP_NET_ADMIN = 12;
  static final int CAP_NET_RAW = 13;
  private static final long EFFECTIVE = read(Path.of("/proc/self/status"));

  private LinuxCapabilities() {}

  static boolean has(int capability) {
    return (EFFECTIVE & (1L << capability)) != 0;
  }

  /** Whether this process may change nftables and policy routing (root or CAP_NET_ADMIN). */
  public static boolean hasNetAdmin() {
    return has(CAP_NET_ADMIN);
  }

  /**
   * Whether this process may open a transparent socket (IP_TRANSPARENT): the kernel accepts
   * CAP_NET_ADMIN or CAP_NET_RAW.
   */
  public static boolean mayBindTransparent() {
    return mayBindTransparent(EFFECTIVE);
  }

  static boolean mayBindTransparent(long effective) {
    return (effective & ((1L << CAP_NET_ADMIN) | (1L << CAP_NET_RAW))) != 0;
  }

  static long read(Path status) {
    try {
      List<String> lines = Files.readAllLines(status);
      for (String line : lines) {
        if (line.startsWith("CapEff:")) {
          return Long.parseUnsignedLong(line.substring("CapEff:".length()).trim(), 16);
        }
      }
    } catch (IOException | RuntimeException e) {
      // not Linux, or /proc unavailable: no capabilities
    }
    return 0;
  }
}
