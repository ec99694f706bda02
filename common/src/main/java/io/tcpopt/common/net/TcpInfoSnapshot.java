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
 * @param caState the congestion-avoidance state ({@link #CA_OPEN} ... {@link #CA_LOSS})
 * @param inFlightSegments segments the kernel counts in flight: unacknowledged, less SACKed and
 *     lost, plus retransmitted (tcp_packets_in_flight)
 * @param sendMss the sender's segment size, bytes
 * @param minRttMicros the connection's own minimum RTT (tcp_min_rtt, a 5-minute window; what a
 *     restarted BBR starts from); 0 if the kernel does not report it
 */
public record TcpInfoSnapshot(long rttMicros, long rttVarMicros, long sendCwndSegments, long totalRetransmits, long deliveryRateBytesPerSecond,
    long bytesAcked, long notSentBytes, boolean deliveryRateAppLimited, int caState, long inFlightSegments, long sendMss, long minRttMicros) {
  /** Linux TCP_CA_Open: no loss being recovered. */
  public static final int CA_OPEN = 0;
  /** TCP_CA_Disorder: SACKs or duplicate ACKs seen, nothing marked lost yet. */
  public static final int CA_DISORDER = 1;
  /** TCP_CA_CWR: the window is being reduced (ECN, local congestion). */
  public static final int CA_CWR = 2;
  /** TCP_CA_Recovery: fast retransmit of lost segments. */
  public static final int CA_RECOVERY = 3;
  /** TCP_CA_Loss: after a retransmission timeout. */
  public static final int CA_LOSS = 4;

  /** A snapshot of the fields read before the congestion state was. */
  public TcpInfoSnapshot(long rttMicros, long rttVarMicros, long sendCwndSegments, long totalRetransmits, long deliveryRateBytesPerSecond,
      long bytesAcked, long notSentBytes, boolean deliveryRateAppLimited) {
    this(rttMicros, rttVarMicros, sendCwndSegments, totalRetransmits, deliveryRateBytesPerSecond, bytesAcked, notSentBytes,
        deliveryRateAppLimited, CA_OPEN, 0, 0, 0);
  }
}
