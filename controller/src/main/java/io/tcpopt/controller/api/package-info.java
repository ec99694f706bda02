/**
 * The controller's gRPC API (policy, node and status services from {@code proto/}), its
 * authentication (operator bearer token or verified client certificate; service nodes by mutual
 * TLS) and the Netty-based server with message-size and per-connection call limits. Service
 * methods run on the server's own executor, never on a Netty event loop, because they call
 * Hazelcast.
 */
package io.tcpopt.controller.api;
