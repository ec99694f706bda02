package io.tcpopt.cli.operator;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

/** The facts the operator commands print, independent of the wire format they came in. */
public final class Views {
  private Views() {}

  /** Overall state: RUNNING, DEGRADED or DOWN, with the reason when not RUNNING. */
  public record ClusterStatus(
      String state,
      String reason,
      String controller,
      long policyVersion,
      String policyName,
      List<String> sites,
      List<Group> groups,
      List<Session> sessions,
      long activeFlows,
      long flowCapacity,
      List<NodeFlows> flowCounts) {}

  /** One service node whose flows {@link ClusterStatus#activeFlows()} counts. */
  public record NodeFlows(String node, String site, long activeFlows, long flowCapacity) {}

  public record Group(String name, String site, List<Member> members) {}

  public record Member(String node, boolean healthy, double loadPercent, boolean draining) {}

  /**
   * One peer session as seen by one service node, with its data reduction: the LAN bytes of the
   * reduced streams, the percent that did not cross the WAN, the percent of chunks sent as
   * references, and the node's chunk cache (bytes held); all 0 without data reduction. The
   * connections include the express one ({@code expressUp} of them up, {@code expressConfigured}
   * when the node dials one).
   */
  public record Session(
      String node,
      String peer,
      String peerSite,
      int connectionsUp,
      int connectionsConfigured,
      long rttMicros,
      long cwndSegments,
      long retransmits,
      String congestionControl,
      long reductionLanBytes,
      double reductionPercent,
      double cacheHitPercent,
      long cacheBytes,
      int expressUp,
      boolean expressConfigured) {
    /** The express connection as a status column shows it: "up", "down" (dialled, not up) or "-" (none). */
    public String express() {
      return expressUp > 0 ? "up" : expressConfigured ? "down" : "-";
    }
  }

  public record Node(
      String name,
      String site,
      List<String> roles,
      String address,
      String state,
      double loadPercent,
      long activeFlows,
      long flowCapacity,
      Instant lastHeartbeat,
      boolean draining) {}

  /**
   * One flow; {@code peer} is the far service node of an optimized flow, else empty; {@code
   * httpReuse} (at the far node: requests, reused, the server connection that served the last
   * one) and {@code tls} (at the intercepting node: the terminated TLS and its record sizes) are
   * empty unless the flow's action has such a profile. {@code wanBytes} is what the flow's stream
   * moved over the WAN both ways (after data reduction; -1 when not carried), {@code
   * reductionPercent} the share of its LAN bytes that did not cross.
   */
  public record Flow(
      String id,
      int vpn,
      String source,
      String destination,
      String site,
      String node,
      String services,
      String state,
      long bytesFromClient,
      long bytesToClient,
      double rateBitsPerSecond,
      long wanRttMicros,
      Instant opened,
      Duration duration,
      String reason,
      String peer,
      String httpReuse,
      String tls,
      long wanBytes,
      double reductionPercent) {
    /** A flow without WAN byte counts. */
    public Flow(String id, int vpn, String source, String destination, String site, String node, String services, String state,
        long bytesFromClient, long bytesToClient, double rateBitsPerSecond, long wanRttMicros, Instant opened, Duration duration, String reason,
        String peer, String httpReuse, String tls) {
      this(id, vpn, source, destination, site, node, services, state, bytesFromClient, bytesToClient, rateBitsPerSecond, wanRttMicros, opened,
          duration, reason, peer, httpReuse, tls, -1, 0);
    }
  }

  public record PolicyVersion(long version, String name, String yaml, Instant appliedAt) {}

  public record PolicyError(String path, String reason) {
    @Override
    public String toString() {
      return path.isEmpty() ? reason : path + ": " + reason;
    }
  }
}
