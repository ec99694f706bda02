package io.tcpopt.common.net;

/**
 * The fields of Linux {@code struct tcp_info} that describe a WAN connection's health.
 *
 * @param rttMicros smoothed round-trip time
 * @param rttVarMicros its variation
 * @param sendCwndSegments congestion window, in segments
 * @param totalRetransmits segments retransmitted over the connection's life
 * @param deliveryRateBytesPerSecond the kernel's recent delivery rate estimate; 0 if the kernel does not report it
 * @param bytesAcked bytes the peer has acknowledged; 0 if the kernel does not report it
 * @param notSentBytes bytes written to the socket and not sent yet; 0 if the kernel does not report it
 * @param deliveryRateAppLimited the last delivery-rate sample was taken while the sender had too
 *     little queued to fill the congestion window (the application, not the network, set the pace)
 */
public record TcpInfoSnapshot(long rttMicros, long rttVarMicros, long sendCwndSegments, long totalRetransmits, long deliveryRateBytesPerSecond,
    long bytesAcked, long notSentBytes, boolean deliveryRateAppLimited) {}
