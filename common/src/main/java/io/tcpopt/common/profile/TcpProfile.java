package io.tcpopt.common.profile;

import java.time.Duration;
import java.util.Objects;

/**
 * A fully resolved TCP profile: every field has a value, inherited from the parent chain where the
 * profile itself does not set it. The data plane applies it to one leg of an optimized flow.
 *
 * @param name the profile's name
 * @param parent the parent's name; {@code null} only for the root profile {@code tcp}
 * @param sendBuffer {@code SO_SNDBUF} in bytes; 0 leaves the kernel's autotuning in charge ({@code auto} in YAML)
 * @param receiveBuffer {@code SO_RCVBUF} in bytes; 0 = kernel autotuning ({@code auto} in YAML)
 * @param nagle whether Nagle's algorithm is on (false sets {@code TCP_NODELAY})
 * @param congestionControl the kernel congestion control name, e.g. {@code cubic} or {@code bbr}
 * @param keepalive TCP keepalive idle interval; {@link Duration#ZERO} means keepalive off
 * @param idleTimeout a flow idle this long is closed; {@link Duration#ZERO} means never
 * @param proxyBufferHigh bytes buffered in the proxy for this leg before reading the other leg pauses
 * @param proxyBufferLow buffered bytes below which reading the other leg resumes
 */
public record TcpProfile(
    String name,
    String parent,
    long sendBuffer,
    long receiveBuffer,
    boolean nagle,
    String congestionControl,
    Duration keepalive,
    Duration idleTimeout,
    long proxyBufferHigh,
    long proxyBufferLow) {

  public TcpProfile {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(congestionControl, "congestionControl");
    Objects.requireNonNull(keepalive, "keepalive");
    Objects.requireNonNull(idleTimeout, "idleTimeout");
    if (sendBuffer < 0 || receiveBuffer < 0 || proxyBufferLow < 0 || proxyBufferHigh < proxyBufferLow) {
      throw new IllegalArgumentException("inconsistent buffer sizes in profile " + name);
    }
  }

  public boolean keepaliveEnabled() {
    return !keepalive.isZero();
  }

  public boolean idleTimeoutEnabled() {
    return !idleTimeout.isZero();
  }
}
