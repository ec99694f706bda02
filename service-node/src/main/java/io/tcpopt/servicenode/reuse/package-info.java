/**
 * HTTP/1.1 server-connection reuse at the far node, as F5's OneConnect: the client flows' requests
 * go out on idle keep-alive connections from a pool instead of one new server connection per flow.
 *
 * <p>{@link io.tcpopt.servicenode.reuse.HttpFramer} finds message boundaries in a byte stream
 * (requests and responses: Content-Length, chunked with trailers, bodiless responses, read until
 * close) without rewriting a byte. {@link io.tcpopt.servicenode.reuse.ServerConnectionPool} keeps
 * idle server connections per server and masked client address on one event loop, with the
 * profile's limits (size, age, reuse count, idle timeout). {@link
 * io.tcpopt.servicenode.reuse.HttpReuseUpstream} is the far end of one client flow: it takes the
 * flow's request bytes, sends each request on a pooled connection and relays the response back,
 * in order. Anything it cannot frame safely (not HTTP/1.x, {@code Upgrade}, {@code CONNECT},
 * ambiguous framing) turns the flow into a plain relay over a connection of its own: never a
 * broken flow, and never bytes of one client on a connection another client will use.
 */
package io.tcpopt.servicenode.reuse;
