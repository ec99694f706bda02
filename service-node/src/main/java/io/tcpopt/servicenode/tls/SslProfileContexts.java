package io.tcpopt.servicenode.tls;

import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import io.netty.handler.ssl.util.InsecureTrustManagerFactory;
import io.tcpopt.common.profile.ClientSslProfile;
import io.tcpopt.common.profile.ServerSslProfile;
import io.tcpopt.common.tls.CertificateKey;
import io.tcpopt.common.tls.TlsContexts;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import javax.net.ssl.SSLException;

/**
 * Netty {@link SslContext}s for the SSL profiles of a policy. The provider is the one the node's
 * inter-node TLS uses ({@link TlsContexts#provider()}: BoringSSL when it loads, else the JDK's).
 * Every failure is an {@link IllegalArgumentException} whose one line names the profile and the
 * file; no key material is ever part of a message or a log line.
 */
public final class SslProfileContexts {
  private SslProfileContexts() {}

  /**
   * The server-side context of a client-SSL profile: its certificate chain and key (the key file
   * must be readable by its owner only), its protocol versions. Relative paths resolve against
   * {@code baseDirectory}.
   */
  public static SslContext clientSsl(ClientSslProfile profile, Path baseDirectory) {
    return clientSsl(profile, baseDirectory, TlsContexts.provider());
  }

  static SslContext clientSsl(ClientSslProfile profile, Path baseDirectory, SslProvider provider) {
    if (!profile.hasCertificate()) {
      throw new IllegalArgumentException("client-ssl profile " + profile.name() + " names no certificate and private-key");
    }
    try {
      CertificateKey pair = CertificateKey.load(baseDirectory.resolve(profile.certificate()), baseDirectory.resolve(profile.privateKey()));
      return SslContextBuilder.forServer(pair.key(), pair.chain().toArray(X509Certificate[]::new))
          .sslProvider(provider)
          .protocols(profile.protocols())
          .build();
    } catch (SSLException | RuntimeException e) {
      throw new IllegalArgumentException("client-ssl profile " + profile.name() + ": " + e.getMessage(), e);
    }
  }

  /**
   * The client-side context of a server-SSL profile: trusted CAs from {@code ca-file} (else the
   * JVM's trust store), host name verification when {@code verify} is on (the default), nothing
   * checked when it is off.
   */
  public static SslContext serverSsl(ServerSslProfile profile, Path baseDirectory) {
    return serverSsl(profile, baseDirectory, TlsContexts.provider());
  }

  static SslContext serverSsl(ServerSslProfile profile, Path baseDirectory, SslProvider provider) {
    try {
      SslContextBuilder b = SslContextBuilder.forClient().sslProvider(provider).protocols(profile.protocols());
      if (!profile.verify()) {
        b.trustManager(InsecureTrustManagerFactory.INSTANCE).endpointIdentificationAlgorithm(null);
      } else {
        if (profile.caFile() != null) {
          b.trustManager(CertificateKey.trusted(baseDirectory.resolve(profile.caFile())).toArray(X509Certificate[]::new));
        }
        b.endpointIdentificationAlgorithm("HTTPS");
      }
      return b.build();
    } catch (SSLException | RuntimeException e) {
      throw new IllegalArgumentException("server-ssl profile " + profile.name() + ": " + e.getMessage(), e);
    }
  }
}
