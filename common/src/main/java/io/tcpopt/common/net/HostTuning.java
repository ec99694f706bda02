package io.tcpopt.common.net;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Checks the kernel settings a WAN node depends on. Most of them are per network namespace, so a
 * node checks the namespace it runs in. It changes none of them, not even as root: the operator sets
 * them (deploy/sysctl.d), and the node warns about each one that is wrong.
 *
 * <ul>
 *   <li>{@code net.ipv4.tcp_slow_start_after_idle = 0}: otherwise a warm session connection that
 *       was idle for one RTO restarts from the initial window, which defeats keeping it warm.
 *   <li>{@code net.ipv4.tcp_min_rtt_wlen} at most {@value #MIN_RTT_WINDOW_SECONDS}: see {@link
 *       #MIN_RTT_WINDOW_SECONDS}.
 *   <li>{@code net.ipv4.tcp_available_congestion_control} lists the configured module.
 *   <li>{@code net.ipv4.tcp_rmem}/{@code tcp_wmem} maximum at least the WAN buffer, so autotuned
 *       sockets (the LAN legs) can grow as far as the WAN sockets.
 *   <li>{@code net.core.rmem_max}/{@code wmem_max} at least the WAN buffer when the process lacks
 *       CAP_NET_ADMIN (without it SO_RCVBUF/SO_SNDBUF are capped there).
 *   <li>{@code net.ipv4.ip_forward = 1} in transparent mode, so flows that are passed through are
 *       routed on.
 * </ul>
 */
public final class HostTuning {
  /**
   * The longest window, in seconds, over which the kernel may keep a connection's minimum RTT
   * (tcp_min_rtt_wlen, 300 by default): BBR's own. A restarted BBR starts from that minimum, so the
   * node's refresh of BBR before its PROBE_RTT waits while the connection's RTT is well above it
   * (a restart would put a shorter path's RTT back). After a path got longer, a 300 s window held
   * the old minimum for five minutes, and BBR drained the path to 4 packets every 10 s meanwhile:
   * on the testbed after 150 -> 300 ms (the connection kept, kernel minimum 150.1 ms, BBR's 300),
   * 0.5-0.8 s without deliveries in each 300 ms transfer, two in the 2% one (issue 9, lossy9e).
   */
  public static final int MIN_RTT_WINDOW_SECONDS = 10;

  private HostTuning() {}

  /** One warning line per setting that is not as a WAN node needs it; empty when all is well. */
  public static List<String> check(WanSocketSettings s, boolean transparent) {
    return check(Sysctl.PROC_SYS, s, transparent, LinuxCapabilities.has(LinuxCapabilities.CAP_NET_ADMIN));
  }


  static List<String> check(Path procSys, WanSocketSettings s, boolean transparent, boolean netAdmin) {
    List<String> warnings = new ArrayList<>();
    if (!Files.isDirectory(procSys.resolve("net/ipv4"))) {
      warnings.add("cannot read " + procSys + "/net/ipv4: not Linux, or /proc not mounted; host settings unchecked");
      return warnings;
    }
    Sysctl.read(procSys, "net.ipv4.tcp_slow_start_after_idle")
        .filter(v -> !v.equals("0"))
        .ifPresent(v -> warnings.add("net.ipv4.tcp_slow_start_after_idle is " + v + ": idle WAN connections fall back to slow start; set it to 0"));
    Sysctl.read(procSys, "net.ipv4.tcp_min_rtt_wlen")
        .filter(v -> parse(v) > MIN_RTT_WINDOW_SECONDS)
        .ifPresent(v -> warnings.add("net.ipv4.tcp_min_rtt_wlen is " + v + ": after a WAN path gets longer, BBR drains it every 10 s for that many"
            + " seconds; set it to " + MIN_RTT_WINDOW_SECONDS));
    Sysctl.read(procSys, "net.ipv4.tcp_available_congestion_control")
        .filter(v -> !Arrays.asList(v.split("\\s+")).contains(s.congestionControl()))
        .ifPresent(v -> warnings.add("congestion control " + s.congestionControl() + " is not in net.ipv4.tcp_available_congestion_control ("
            + v + "); load it with modprobe tcp_" + s.congestionControl()));
    checkTriple(procSys, "net.ipv4.tcp_rmem", s.receiveBufferBytes(), warnings);
    checkTriple(procSys, "net.ipv4.tcp_wmem", s.sendBufferBytes(), warnings);
    if (!netAdmin) {
      checkAtLeast(procSys, "net.core.rmem_max", s.receiveBufferBytes(), warnings, " (without CAP_NET_ADMIN it caps SO_RCVBUF)");
      checkAtLeast(procSys, "net.core.wmem_max", s.sendBufferBytes(), warnings, " (without CAP_NET_ADMIN it caps SO_SNDBUF)");
    }
    if (transparent) {
      Sysctl.read(procSys, "net.ipv4.ip_forward")
          .filter(v -> !v.equals("1"))
          .ifPresent(v -> warnings.add("net.ipv4.ip_forward is " + v + ": transparent mode needs 1 so passed-through flows are routed"));
    }
    return warnings;
  }


  private static void checkTriple(Path procSys, String name, int buffer, List<String> warnings) {
    Sysctl.read(procSys, name).ifPresent(v -> {
      String[] parts = v.split("\\s+");
      if (parts.length == 3 && parse(parts[2]) < buffer) {
        warnings.add(name + " maximum is " + parts[2] + ", below the WAN buffer of " + buffer + " bytes");
      }
    });
  }

  private static void checkAtLeast(Path procSys, String name, int buffer, List<String> warnings, String why) {
    Sysctl.read(procSys, name)
        .filter(v -> parse(v) < buffer)
        .ifPresent(v -> warnings.add(name + " is " + v + ", below the WAN buffer of " + buffer + " bytes" + why));
  }




  private static long parse(String v) {
    try {
      return Long.parseLong(v.trim());
    } catch (NumberFormatException e) {
      return Long.MAX_VALUE;
    }
  }
}
