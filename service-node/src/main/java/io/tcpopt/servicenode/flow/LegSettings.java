package io.tcpopt.servicenode.flow;

import java.time.Duration;

/**
 * The TCP options of a flow's local leg as read back from its socket after the leg's profile was
 * applied (the client leg at the intercepting node, the server leg at the far node).
 *
 * @param profile the TCP profile applied, or null when the node's {@code lan} defaults apply
 * @param sendBuffer {@code SO_SNDBUF} as the kernel reports it (Linux doubles the request), -1 unknown
 * @param receiveBuffer {@code SO_RCVBUF} as reported, -1 unknown
 * @param noDelay {@code TCP_NODELAY} (Nagle off)
 * @param keepalive {@code SO_KEEPALIVE}
 * @param keepaliveIdle {@code TCP_KEEPIDLE}, {@link Duration#ZERO} when unknown or off
 * @param congestionControl the congestion control read back, or {@code unknown}
 * @param idleTimeout the flow is closed after no bytes on this leg for this long
 * @param writeBufferLow the leg's low write-buffer watermark (reading the other leg resumes below)
 * @param writeBufferHigh the leg's high write-buffer watermark (reading the other leg pauses above)
 */
public record LegSettings(
    String profile,
    int sendBuffer,
    int receiveBuffer,
    boolean noDelay,
    boolean keepalive,
    Duration keepaliveIdle,
    String congestionControl,
    Duration idleTimeout,
    int writeBufferLow,
    int writeBufferHigh) {}
