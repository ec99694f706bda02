package io.tcpopt.servicenode.intercept;

import io.netty.channel.Channel;
import java.net.InetSocketAddress;

/** Receives each intercepted client connection (active, not reading yet), on its event loop. */
public interface FlowInterceptor {
  /**
   * @param client the accepted client leg
   * @param source the client's address: the leg's remote address, or a handoff's PROXY header source
   * @param originalDestination where the client meant to go
   * @param site the destination site when the listener names one, else null (found from peer prefixes)
   */
  void intercepted(Channel client, InetSocketAddress source, InetSocketAddress originalDestination, String site);
}
