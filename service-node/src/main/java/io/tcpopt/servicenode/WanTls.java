package io.tcpopt.servicenode;

import io.netty.handler.ssl.SslContext;
import io.tcpopt.common.tls.TlsContexts;
import io.tcpopt.common.tls.TlsFiles;

/** Mutual TLS 1.3 contexts for the inter-node sessions; a failure is one clear line. */
final class WanTls {
  private WanTls() {}

  static SslContext server(TlsFiles tls) {
    try {
      return TlsContexts.server(tls);
    } catch (RuntimeException e) {
      throw new ServiceNodeException("service-node.wan.tls: cannot build the TLS server context from " + tls.certificateChain() + ": "
          + e.getMessage(), e);
    }
  }

  static SslContext client(TlsFiles tls) {
    try {
      return TlsContexts.client(tls);
    } catch (RuntimeException e) {
      throw new ServiceNodeException("service-node.wan.tls: cannot build the TLS client context from " + tls.certificateChain() + ": "
          + e.getMessage(), e);
    }
  }
}
