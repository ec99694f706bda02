package io.tcpopt.servicenode;

import java.time.Duration;

/**
 * The sessions with one peer node.
 *
 * @param connectionsConfigured pool size when this node dials the peer; 0 for a peer that only dials in
 * @param rtt the smallest keepalive round trip over its connections, null when not measured yet
 * @param cwndSegments congestion window summed over the connections (TCP_INFO), -1 when unknown
 * @param retransmits retransmitted segments summed over the connections (TCP_INFO), -1 when unknown
 * @param congestionControl the congestion control read back from a connection, or "unknown"
 */
public record PeerSessionStatus(
    String name, String site, int connectionsUp, int connectionsConfigured, Duration rtt, long cwndSegments, long retransmits,
    String congestionControl) {}
