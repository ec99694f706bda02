package io.tcpopt.servicenode;

import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;

/** Mutual TLS 1.3 contexts for the inter-node sessions. */
final class WanTls {
  private WanTls() {}

  static SslContext server(ServiceNodeConfig.Tls tls) {
    try {
      return SslContextBuilder.forServer(tls.certificate().toFile(), tls.privateKey().toFile())
          .trustManager(tls.trusted().toFile()).clientAuth(ClientAuth.REQUIRE).protocols("TLSv1.3").sslProvider(SslProvider.JDK).build();
    } catch (Exception e) {
      throw new ServiceNodeException("service-node.wan.tls: cannot load " + tls.certificate() + " / " + tls.privateKey() + ": " + e.getMessage(), e);
    }
  }

  static SslContext client(ServiceNodeConfig.Tls tls) {
    try {
      return SslContextBuilder.forClient().keyManager(tls.certificate().toFile(), tls.privateKey().toFile())
          .trustManager(tls.trusted().toFile()).protocols("TLSv1.3").sslProvider(SslProvider.JDK).build();
    } catch (Exception e) {
      throw new ServiceNodeException("service-node.wan.tls: cannot load " + tls.certificate() + " / " + tls.privateKey() + ": " + e.getMessage(), e);
    }
  }
}
