/**
 * The Netty transport under every TCP socket of tcpopt: native epoll on Linux, NIO elsewhere
 * ({@link io.tcpopt.common.transport.NettyTransport}); how legs are accepted, connected,
 * half-closed and reset ({@link io.tcpopt.common.transport.Legs}); the reset causes a flow can end
 * with; and the epoll half-close workaround every leg carries. Used by the service node's data
 * path and the controller's handoff relay alike.
 */
package io.tcpopt.common.transport;
