package io.tcpopt.servicenode.session;

import io.tcpopt.servicenode.wire.OpenFrame;

/** Serves streams the peer opens: must set {@link MuxStream#handler} at once and owns {@code open}. */
public interface StreamAcceptor {
  void accept(MuxStream stream, OpenFrame open);
}
