package io.tcpopt.servicenode;

import java.lang.management.ManagementFactory;
import java.lang.management.OperatingSystemMXBean;
import java.util.OptionalLong;

/**
 * The open-file limit a node needs, checked once at start. Every flow holds sockets: an optimized
 * flow one at each node (the client leg at the intercepting node, the server leg at the far one), a
 * pass-through flow two (client and server legs); listeners, WAN connections, the JVM's own files
 * and the reuse pools take a few hundred more ({@link #RESERVE}). A limit below {@code max-active}
 * flows of one socket each fails the start (the node could not hold the flows it admits: accepts
 * would fail with EMFILE under load); a limit below two sockets per flow only warns (pass-through
 * flows at the limit would be refused by the kernel). The JVM raises the soft limit to the hard one
 * itself, so the hard limit ({@code ulimit -Hn}, systemd {@code LimitNOFILE}) is what counts.
 */
final class DescriptorLimit {
  /** Descriptors besides the flows' sockets: listeners, WAN connections, epoll, jars, logs, pools. */
  static final long RESERVE = 512;

  private DescriptorLimit() {}

  /** The process's open-file limit, when the platform tells it. */
  static OptionalLong current() {
    OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
    if (os instanceof com.sun.management.UnixOperatingSystemMXBean) {
      return OptionalLong.of(((com.sun.management.UnixOperatingSystemMXBean) os).getMaxFileDescriptorCount());
    }
    return OptionalLong.empty();
  }

  /** Why {@code limit} cannot carry {@code maxActive} flows (one line), or null when it can. */
  static String error(String node, long limit, int maxActive) {
    long needed = maxActive + RESERVE;
    if (limit >= needed) {
      return null;
    }
    return "service node " + node + ": the open-file limit is " + limit + ", too low for flows.max-active " + maxActive
        + " (needs at least " + needed + ": one socket per optimized flow and " + RESERVE + " for listeners, sessions and the JVM);"
        + " raise it (ulimit -n, systemd LimitNOFILE) or lower flows.max-active";
  }

  /** A warning when {@code limit} holds {@code maxActive} optimized flows but not as many pass-through ones, or null. */
  static String warning(String node, long limit, int maxActive) {
    long full = 2L * maxActive + RESERVE;
    if (limit >= full || error(node, limit, maxActive) != null) {
      return null;
    }
    return "service node " + node + ": the open-file limit " + limit + " holds flows.max-active " + maxActive
        + " optimized flows but not as many pass-through flows (two sockets each; " + full + " would)";
  }
}
