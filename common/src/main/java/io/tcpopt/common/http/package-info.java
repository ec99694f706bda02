/**
 * A small HTTP/1.1 server for the operator endpoints of a node (the Prometheus scrape endpoint and
 * the controller's web console), on Netty, bounded in every way a silent or slow client could hold
 * resources: a cap on open connections, a deadline for each request (head and body, TLS handshake
 * included), a keep-alive idle deadline, a deadline for the response, and limits on the request
 * line, headers and body ({@link io.tcpopt.common.http.HttpLimits}). Handlers run on an executor the
 * caller supplies, never on the event loop: the console's pages block on Hazelcast through the
 * controller's services.
 */
package io.tcpopt.common.http;
