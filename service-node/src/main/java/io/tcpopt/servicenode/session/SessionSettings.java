package io.tcpopt.servicenode.session;

import java.time.Duration;

/**
 * What this node announces in its HELLO, how it keeps connections alive, and what it keeps about its
 * peers beyond any one connection (one of each per node, so nodes sharing a process never meet).
 *
 * @param maxFrameSize largest payload this node accepts (16 KiB .. 16 MiB)
 * @param initialStreamWindow credit granted to each stream the peer sends on, at its start (the HELLO's)
 * @param maxStreams concurrent streams the peer may open on one connection
 * @param keepalive PING interval; a connection with 3 unanswered PINGs is dead
 * @param handshakeTimeout how long a new connection may take to deliver its HELLO
 * @param reduction the node's data reduction (its cache in the HELLO, control frames, per-peer state)
 * @param streamsPerConnection streams this node opens on one connection before it retires it
 *     (GOAWAY NO_ERROR, replaced by a new one): keeps the 2^30 stream ids of a side from running out
 *     (default {@value #DEFAULT_STREAMS_PER_CONNECTION}; 0 means the default)
 * @param maxStreamWindow what a stream's window may grow to ({@link ReceiveWindow}): at least the
 *     initial window; equal to it, the window never grows
 * @param acceptedGroups what the node keeps beyond any one connection: the groups of the connections
 *     it accepted (null: a new, empty one)
 * @param learnedRates what the node keeps beyond any one connection: the pacing cap it last learned
 *     to each peer (null: a new, empty one)
 */
public record SessionSettings(
    String name, String site, int maxFrameSize, int initialStreamWindow, int maxStreams, Duration keepalive, Duration handshakeTimeout,
    ReductionLink reduction, int streamsPerConnection, int maxStreamWindow, AcceptedGroups acceptedGroups, LearnedRates learnedRates) {
  /** Below the 2^30 ids of a side, leaving room for the flows that picked the connection before it retired. */
  public static final int DEFAULT_STREAMS_PER_CONNECTION = 1_000_000_000;

  public SessionSettings {
    reduction = reduction == null ? ReductionLink.NONE : reduction;
    acceptedGroups = acceptedGroups == null ? new AcceptedGroups() : acceptedGroups;
    learnedRates = learnedRates == null ? new LearnedRates() : learnedRates;
    if (streamsPerConnection == 0) {
      streamsPerConnection = DEFAULT_STREAMS_PER_CONNECTION;
    }
    if (streamsPerConnection < 0 || streamsPerConnection > DEFAULT_STREAMS_PER_CONNECTION) {
      throw new IllegalArgumentException("streamsPerConnection " + streamsPerConnection + " outside 1.." + DEFAULT_STREAMS_PER_CONNECTION);
    }
    if (maxStreamWindow < initialStreamWindow) {
      throw new IllegalArgumentException("maxStreamWindow " + maxStreamWindow + " below initialStreamWindow " + initialStreamWindow);
    }
  }

  /** Settings of a new node: nothing kept about its peers yet. */
  public SessionSettings(
      String name, String site, int maxFrameSize, int initialStreamWindow, int maxStreams, Duration keepalive, Duration handshakeTimeout,
      ReductionLink reduction, int streamsPerConnection, int maxStreamWindow) {
    this(name, site, maxFrameSize, initialStreamWindow, maxStreams, keepalive, handshakeTimeout, reduction, streamsPerConnection, maxStreamWindow,
        null, null);
  }

  /** Settings whose stream windows start at {@code initialStreamWindow} and never grow. */
  public SessionSettings(
      String name, String site, int maxFrameSize, int initialStreamWindow, int maxStreams, Duration keepalive, Duration handshakeTimeout,
      ReductionLink reduction, int streamsPerConnection) {
    this(name, site, maxFrameSize, initialStreamWindow, maxStreams, keepalive, handshakeTimeout, reduction, streamsPerConnection, initialStreamWindow);
  }

  /** Settings with the default streams per connection. */
  public SessionSettings(
      String name, String site, int maxFrameSize, int initialStreamWindow, int maxStreams, Duration keepalive, Duration handshakeTimeout,
      ReductionLink reduction) {
    this(name, site, maxFrameSize, initialStreamWindow, maxStreams, keepalive, handshakeTimeout, reduction, DEFAULT_STREAMS_PER_CONNECTION);
  }

  /** Settings of a node without data reduction. */
  public SessionSettings(
      String name, String site, int maxFrameSize, int initialStreamWindow, int maxStreams, Duration keepalive, Duration handshakeTimeout) {
    this(name, site, maxFrameSize, initialStreamWindow, maxStreams, keepalive, handshakeTimeout, ReductionLink.NONE);
  }
}
