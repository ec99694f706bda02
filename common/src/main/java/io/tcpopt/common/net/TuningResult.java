package io.tcpopt.common.net;

import java.util.List;

/**
 * What a WAN socket ended up with, read back from the kernel after {@link SocketTuning#applyWan}.
 *
 * @param congestionControl the module in effect, or {@code unknown} when it cannot be read (NIO)
 * @param congestionControlApplied whether the requested module is the one in effect
 * @param sendBuffer SO_SNDBUF as the kernel reports it (Linux reports twice the requested size), or -1
 * @param receiveBuffer SO_RCVBUF as the kernel reports it, or -1
 * @param pacingRate SO_MAX_PACING_RATE in bytes per second as read back; 0 when not set or unreadable
 * @param warnings why something asked for is not in effect, one line each; empty when all applied
 */
public record TuningResult(
    String congestionControl, boolean congestionControlApplied, int sendBuffer, int receiveBuffer, long pacingRate, List<String> warnings) {
  public TuningResult {
    warnings = List.copyOf(warnings);
  }
}
