package io.tcpopt.servicenode.session;

import java.time.Duration;

/**
 * What this node announces in its HELLO and how it keeps connections alive.
 *
 * @param maxFrameSize largest payload this node accepts (16 KiB .. 16 MiB)
 * @param initialStreamWindow credit granted to each stream the peer sends on
 * @param maxStreams concurrent streams the peer may open on one connection
 * @param keepalive PING interval; a connection with 3 unanswered PINGs is dead
 * @param handshakeTimeout how long a new connection may take to deliver its HELLO
 * @param reduction the node's data reduction (its cache in the HELLO, control frames, per-peer state)
 */
public record SessionSettings(
    String name, String site, int maxFrameSize, int initialStreamWindow, int maxStreams, Duration keepalive, Duration handshakeTimeout,
    ReductionLink reduction) {
  public SessionSettings {
    reduction = reduction == null ? ReductionLink.NONE : reduction;
  }

  /** Settings of a node without data reduction. */
  public SessionSettings(
      String name, String site, int maxFrameSize, int initialStreamWindow, int maxStreams, Duration keepalive, Duration handshakeTimeout) {
    this(name, site, maxFrameSize, initialStreamWindow, maxStreams, keepalive, handshakeTimeout, ReductionLink.NONE);
  }
}
