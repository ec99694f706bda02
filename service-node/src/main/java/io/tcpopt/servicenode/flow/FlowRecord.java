package io.tcpopt.servicenode.flow;

import java.net.InetSocketAddress;
import java.time.Instant;

/**
 * One flow as seen at a moment. Bytes are counted at this node: {@code bytesClientToServer} from
 * the client towards the server. {@code bufferedBytes} is what the node holds for the flow now,
 * {@code peakBufferedBytes} the most it ever held. WAN figures are -1 when unknown or not carried.
 *
 * @param peer the peer node carrying the flow, or null for pass-through and dropped flows
 * @param localLeg the options of this node's local leg of an optimized flow once connected, else null
 * @param httpReuse at the far node, the flow's HTTP server-connection reuse, or null without an http-reuse profile
 * @param tls at the intercepting node, the client's TLS this node terminates, or null without a client-ssl profile
 * @param wanBytesSent payload bytes the flow's stream sent over the WAN (after data reduction), -1 when not carried
 * @param wanBytesReceived payload bytes it received over the WAN, -1 when not carried
 * @param dataReduction the stream's data reduction (e.g. "compression zstd, deduplication on"), null when off
 */
public record FlowRecord(
    long id,
    FlowKind kind,
    String reason,
    FlowState state,
    InetSocketAddress client,
    InetSocketAddress server,
    String peer,
    Instant start,
    Instant lastActivity,
    Instant end,
    long bytesClientToServer,
    long bytesServerToClient,
    long bufferedBytes,
    long peakBufferedBytes,
    long wanRttMicros,
    long wanCwndSegments,
    long wanRetransmits,
    String closeReason,
    LegSettings localLeg,
    HttpReuseFigures httpReuse,
    TlsFigures tls,
    long wanBytesSent,
    long wanBytesReceived,
    String dataReduction) {

  /** A record without WAN byte counts. */
  public FlowRecord(long id, FlowKind kind, String reason, FlowState state, InetSocketAddress client, InetSocketAddress server, String peer,
      Instant start, Instant lastActivity, Instant end, long bytesClientToServer, long bytesServerToClient, long bufferedBytes,
      long peakBufferedBytes, long wanRttMicros, long wanCwndSegments, long wanRetransmits, String closeReason, LegSettings localLeg,
      HttpReuseFigures httpReuse, TlsFigures tls) {
    this(id, kind, reason, state, client, server, peer, start, lastActivity, end, bytesClientToServer, bytesServerToClient, bufferedBytes,
        peakBufferedBytes, wanRttMicros, wanCwndSegments, wanRetransmits, closeReason, localLeg, httpReuse, tls, -1, -1, null);
  }

  /** The LAN bytes of the flow at this node, both directions. */
  public long lanBytes() {
    return bytesClientToServer + bytesServerToClient;
  }

  /** Its WAN payload bytes, both directions, or -1 when not carried over a session. */
  public long wanBytes() {
    return wanBytesSent < 0 ? -1 : wanBytesSent + wanBytesReceived;
  }

  /** Percent of the LAN bytes that did not cross the WAN (0 when not carried or nothing moved). */
  public double reductionPercent() {
    long lan = lanBytes();
    return wanBytesSent < 0 || lan == 0 ? 0 : 100.0 * (1.0 - (double) wanBytes() / lan);
  }
}
