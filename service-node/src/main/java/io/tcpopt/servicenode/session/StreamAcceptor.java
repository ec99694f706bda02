package io.tcpopt.servicenode.session;

import io.tcpopt.servicenode.wire.OpenFrame;

/**
 * Serves streams the peer opens, on the connection's event loop. It owns {@code open} and must at
 * once either bridge the stream ({@link WanStreamUpstream#accepted}) or refuse it (reset the
 * upstream made by {@code accepted}).
 */
public interface StreamAcceptor {
  void accept(MuxStream stream, OpenFrame open);
}
