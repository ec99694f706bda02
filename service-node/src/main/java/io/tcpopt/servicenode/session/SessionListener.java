package io.tcpopt.servicenode.session;

/** Told when a WAN connection completes its HELLO exchange and when it goes away. */
public interface SessionListener {
  void sessionUp(StreamMultiplexer connection);

  void sessionDown(StreamMultiplexer connection, String reason);
}
