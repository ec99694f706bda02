/**
 * The inter-node session: a pool of long-lived WAN connections per dialled peer, inbound
 * connections accepted on the WAN listener, the HELLO exchange, keepalive PING (which also measures
 * RTT), dead-peer detection, and the {@link io.tcpopt.servicenode.session.StreamMultiplexer} that
 * carries many flows as credit-controlled streams over each connection.
 */
package io.tcpopt.servicenode.session;
