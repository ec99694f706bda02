package io.tcpopt.servicenode.flow;

/**
 * A flow's HTTP server-connection reuse at the far node (an {@code http-reuse} profile).
 *
 * @param requests requests of the flow sent on pooled server connections
 * @param reusedRequests of those, the ones sent on a connection that had served before
 * @param serverConnection the last server connection that served the flow: {@code #id local->server}
 * @param fallback why the flow became a plain relay ({@code not-http1}, {@code upgrade}, ...), or null
 */
public record HttpReuseFigures(long requests, long reusedRequests, String serverConnection, String fallback) {}
