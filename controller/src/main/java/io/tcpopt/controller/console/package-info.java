/**
 * The operator web console, served by the controller ({@code controller.console}): overview with a
 * live throughput chart, flows, policy (history, diff, apply and rollback with confirmation) and
 * nodes. Server-rendered HTML with one small bundled script that draws the chart as SVG; nothing is
 * loaded from elsewhere.
 *
 * <p>It runs on the node's bounded HTTP server ({@link io.tcpopt.common.http.BoundedHttpServer},
 * also serving the Prometheus endpoint): Netty's HTTP/1.1 codec with a connection cap and request
 * deadlines, so silent or trickling clients cannot hold descriptors (the JDK's
 * {@code com.sun.net.httpserver}, used before, kept hundreds of silent connections open for over a
 * minute). Pages run on the console's worker threads, never on the event loop: they block on
 * Hazelcast through the policy and status services.
 *
 * <p>Credentials are the gRPC API's, checked by {@link io.tcpopt.controller.console.ConsoleAccess}
 * against the API's {@link io.tcpopt.controller.auth.Authenticator}; reads and changes go
 * through the API's own services, so the console validates nothing itself.
 */
package io.tcpopt.controller.console;
