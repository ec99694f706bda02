package io.tcpopt.servicenode;

import java.time.Duration;

/**
 * The sessions with one peer node.
 *
 * @param connectionsUp connections up, the express one included
 * @param connectionsConfigured pool size when this node dials the peer, the express connection
 *     included; 0 for a peer that only dials in
 * @param rtt the smallest keepalive round trip over its connections, null when not measured yet
 * @param cwndSegments congestion window summed over the connections (TCP_INFO), -1 when unknown
 * @param retransmits retransmitted segments summed over the connections (TCP_INFO), -1 when unknown
 * @param congestionControl the congestion control read back from a connection, or "unknown"
 * @param expressUp how many of {@code connectionsUp} are express connections (interactive streams'
 *     DATA only): 1 while the pool's is up, 0 otherwise
 * @param expressConfigured whether this node dials an express connection to the peer
 *     ({@code wan.express-connection}); false for a peer that only dials in
 */
public record PeerSessionStatus(
    String name, String site, int connectionsUp, int connectionsConfigured, Duration rtt, long cwndSegments, long retransmits,
    String congestionControl, int expressUp, boolean expressConfigured) {}
