/**
 * TLS on the end legs of optimized flows: termination of the client's TLS at the intercepting node
 * with an operator's certificate (client-SSL profile) and dynamic record sizing, and TLS towards
 * the server at the far node (server-SSL profile).
 *
 * <p>Both are leg pipeline hooks: {@link io.tcpopt.servicenode.tls.ClientTlsTermination} puts an
 * {@code SslHandler} and the {@link io.tcpopt.servicenode.tls.RecordSizer} on a client leg before
 * the bridge joins it, so the bridge reads and writes plaintext; {@link
 * io.tcpopt.servicenode.tls.ServerTls} does the same for a server leg in client mode. {@link
 * io.tcpopt.servicenode.tls.SslProfileContexts} turns profiles into Netty {@code SslContext}s,
 * checking key file permissions first.
 */
package io.tcpopt.servicenode.tls;
