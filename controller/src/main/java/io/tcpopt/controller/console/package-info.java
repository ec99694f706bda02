/**
 * The operator web console, served by the controller ({@code controller.console}): overview with a
 * live throughput chart, flows, policy (history, diff, apply and rollback with confirmation) and
 * nodes. Server-rendered HTML with one small bundled script that draws the chart as SVG; nothing is
 * loaded from elsewhere.
 *
 * <p>It runs on the JDK's {@code com.sun.net.httpserver} (already serving the Prometheus endpoint)
 * rather than Netty's HTTP codec: a handful of operators' page loads need no event loop, every
 * handler blocks on Hazelcast through the policy and status services anyway (it would have to leave
 * a Netty loop for a worker pool), HTTPS with an optional client certificate is a configurator
 * away, and it adds no dependency to the jar.
 *
 * <p>Credentials are the gRPC API's, checked by {@link io.tcpopt.controller.console.ConsoleAccess}
 * against the API's {@link io.tcpopt.controller.auth.Authenticator}; reads and changes go
 * through the API's own services, so the console validates nothing itself.
 */
package io.tcpopt.controller.console;
