package io.tcpopt.common.testing;

import io.tcpopt.common.netfilter.Commands;
import io.tcpopt.common.netfilter.NetfilterException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** Whether this test run may create network namespaces and nftables rules; prints why not once. */
public final class NamespacePrivileges {
  private static final String REASON = check();

  private NamespacePrivileges() {}

  public static boolean canCreateNamespaces() {
    return REASON == null;
  }

  /** Why namespace tests are skipped, or null when they can run. */
  public static String reason() {
    return REASON;
  }

  private static String check() {
    String reason = null;
    if (!System.getProperty("os.name", "").toLowerCase().contains("linux")) {
      reason = "network namespace tests need Linux";
    } else if (!"0".equals(uid())) {
      reason = "network namespace tests need root (ip netns, nft)";
    } else {
      for (String tool : List.of("ip", "nft")) {
        try {
          Commands.requireTool(tool, tool.equals("ip") ? "iproute2" : "nftables");
        } catch (NetfilterException e) {
          reason = "network namespace tests skipped: " + e.getMessage();
        }
      }
    }
    if (reason != null) {
      System.err.println("SKIPPED: " + reason);
    }
    return reason;
  }

  private static String uid() {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
        if (line.startsWith("Uid:")) {
          return line.substring(4).trim().split("\\s+")[1];
        }
      }
    } catch (Exception e) {
      return "?";
    }
    return "?";
  }
}
