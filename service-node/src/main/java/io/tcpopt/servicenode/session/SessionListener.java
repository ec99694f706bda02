package io.tcpopt.servicenode.session;

/** Told when a WAN connection completes its HELLO exchange, when it retires and when it goes away. */
public interface SessionListener {
  void sessionUp(StreamMultiplexer connection);

  void sessionDown(StreamMultiplexer connection, String reason);

  /**
   * The connection takes no new flows any more but is still carrying its streams: it used up its
   * streams ({@link SessionSettings#streamsPerConnection}) or the peer retired it (GOAWAY NO_ERROR).
   * A pool dials its replacement now. {@link #sessionDown} follows.
   */
  default void sessionRetiring(StreamMultiplexer connection) {}
}
