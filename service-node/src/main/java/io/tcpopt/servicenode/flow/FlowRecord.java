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
    TlsFigures tls) {}
