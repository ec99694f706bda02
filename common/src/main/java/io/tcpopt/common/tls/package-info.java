/**
 * Mutual TLS 1.3 material for the inter-node session and the gRPC control plane: PEM files named
 * in the configuration ({@link io.tcpopt.common.tls.TlsFiles}), Netty contexts that require a
 * client certificate from the same private CA ({@link io.tcpopt.common.tls.TlsContexts}), and a
 * throw-away CA plus node certificates for the demo and the testbed ({@link
 * io.tcpopt.common.tls.DemoCertificates}).
 */
package io.tcpopt.common.tls;
