package io.tcpopt.servicenode.reuse;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.EventLoop;
import io.netty.util.concurrent.Future;

/**
 * Opens new server connections for a pool. The returned future completes on {@code loop} once the
 * connection can carry a request (connected, and for TLS, handshaken). {@code handler} goes last in
 * the new channel's pipeline; the channel must not read before it is added.
 */
@FunctionalInterface
public interface ServerConnector {
  Future<Channel> connect(PoolKey key, EventLoop loop, ChannelHandler handler);
}
