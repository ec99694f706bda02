package io.tcpopt.common.tls;

import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslProvider;
import java.io.IOException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Optional;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.TrustManagerFactory;
import javax.security.auth.x500.X500Principal;

/**
 * Netty {@link SslContext}s for node-to-node mutual TLS: TLS 1.3 only, a peer certificate required
 * in both directions and trusted only when it chains to the configured CA.
 *
 * <p>The provider is BoringSSL (netty-tcnative, {@link SslProvider#OPENSSL}) when its native library
 * loads and supports TLS 1.3: it encrypts several times cheaper per byte than the JDK's SSLEngine,
 * which is what bounds the data path's CPU cost. Elsewhere the JDK provider serves, same settings.
 *
 * <p>Peers are authenticated by the private CA, not by host name: nodes dial each other by IP
 * address (198.18.0.2 in the testbed), which a demo certificate does not name, so client-side
 * endpoint identification is off. {@link #peerIdentity(SslHandler)} gives the name the peer's
 * certificate carries, for logs and for checking it against the HELLO frame.
 *
 * <p>Both factories throw {@link IllegalArgumentException} with a one-line message naming the
 * file when the material cannot be used.
 */
public final class TlsContexts {
  static final String TLS_1_3 = "TLSv1.3";

  private TlsContexts() {}

  /** The context for accepting sessions: presents this node's certificate, requires the peer's. */
  public static SslContext server(TlsFiles files) {
    Material m = Material.load(files);
    return build(
        trusting(SslContextBuilder.forServer(m.key, m.chain).clientAuth(ClientAuth.REQUIRE), m, files),
        files);
  }

  /** The context for dialling sessions: presents this node's certificate, verifies the server's. */
  public static SslContext client(TlsFiles files) {
    Material m = Material.load(files);
    return build(
        trusting(SslContextBuilder.forClient().keyManager(m.key, m.chain), m, files).endpointIdentificationAlgorithm(null),
        files);
  }

  /** The configured CAs; with BoringSSL, a certificate from none of them is answered {@code unknown_ca}. */
  private static SslContextBuilder trusting(SslContextBuilder builder, Material m, TlsFiles files) {
    if (provider() != SslProvider.OPENSSL) {
      return builder.trustManager(m.trusted);
    }
    try {
      return builder.trustManager(UnknownCaTrustManager.trusting(m.trusted));
    } catch (GeneralSecurityException | IOException e) {
      throw new IllegalArgumentException("cannot build a TLS context from " + files.trustedCertificates() + ": " + e.getMessage(), e);
    }
  }

  /**
   * A JDK {@link SSLContext} for an HTTPS server (the controller's web console): presents this
   * identity and verifies client certificates, when a client offers one, against the trusted CAs.
   * Whether a certificate is asked for is the server's setting (want, not need).
   */
  public static SSLContext jdkServer(TlsFiles files) {
    return jdkServer(files, List.of());
  }

  /** As {@link #jdkServer(TlsFiles)}, also trusting client certificates from {@code extraTrusted} (e.g. an operator CA). */
  public static SSLContext jdkServer(TlsFiles files, List<X509Certificate> extraTrusted) {
    Material m = Material.load(files);
    try {
      char[] password = new char[0];
      KeyStore keys = KeyStore.getInstance("PKCS12");
      keys.load(null, null);
      keys.setKeyEntry("identity", m.key, password, m.chain);
      KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
      kmf.init(keys, password);
      KeyStore trust = KeyStore.getInstance("PKCS12");
      trust.load(null, null);
      for (int i = 0; i < m.trusted.length; i++) {
        trust.setCertificateEntry("ca-" + i, m.trusted[i]);
      }
      for (int i = 0; i < extraTrusted.size(); i++) {
        trust.setCertificateEntry("extra-" + i, extraTrusted.get(i));
      }
      TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      tmf.init(trust);
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(kmf.getKeyManagers(), tmf.getTrustManagers(), null);
      return context;
    } catch (GeneralSecurityException | IOException e) {
      throw new IllegalArgumentException("cannot build a TLS context from " + files.certificateChain() + ": " + e.getMessage(), e);
    }
  }

  /**
   * The identity in the verified peer certificate: its first DNS subject alternative name, else its
   * subject CN. Empty before the handshake completed.
   */
  public static Optional<String> peerIdentity(SslHandler handler) {
    Certificate[] peer;
    try {
      peer = handler.engine().getSession().getPeerCertificates();
    } catch (SSLPeerUnverifiedException e) {
      return Optional.empty();
    }
    if (peer.length == 0 || !(peer[0] instanceof X509Certificate cert)) {
      return Optional.empty();
    }
    return Optional.ofNullable(identity(cert));
  }

  /**
   * The name a certificate identifies: its first DNS subject alternative name, else its subject CN;
   * null when it has neither. The one rule for a node's (and an operator's) name everywhere.
   */
  public static String identity(X509Certificate cert) {
    String dns = firstDnsName(cert);
    return dns != null ? dns : subjectCommonName(cert);
  }

  /** The provider contexts are built with: OpenSSL (BoringSSL) when usable, else the JDK's. */
  public static SslProvider provider() {
    return OpenSsl.isAvailable() && SslProvider.isTlsv13Supported(SslProvider.OPENSSL) ? SslProvider.OPENSSL : SslProvider.JDK;
  }

  private static SslContext build(SslContextBuilder builder, TlsFiles files) {
    try {
      return builder.sslProvider(provider()).protocols(TLS_1_3).build();
    } catch (SSLException | RuntimeException e) {
      throw new IllegalArgumentException(
          "cannot build a TLS context from " + files.certificateChain() + ": " + e.getMessage(), e);
    }
  }

  /** The parsed files; a failure names the file and the reason. */
  private record Material(PrivateKey key, X509Certificate[] chain, X509Certificate[] trusted) {
    static Material load(TlsFiles files) {
      List<X509Certificate> chain = read(files.certificateChain(), PemMaterial::certificates);
      PrivateKey key = read(files.privateKey(), PemMaterial::privateKey);
      read(files.privateKey(), k -> {
        PemMaterial.requireMatch(key, chain.get(0));
        return null;
      });
      List<X509Certificate> trusted = read(files.trustedCertificates(), PemMaterial::certificates);
      return new Material(key, chain.toArray(X509Certificate[]::new), trusted.toArray(X509Certificate[]::new));
    }

    private interface Reader<T> {
      T read(Path file);
    }

    private static <T> T read(Path file, Reader<T> reader) {
      try {
        return reader.read(file);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(file + ": " + e.getMessage(), e);
      }
    }
  }

  static String subjectCommonName(X509Certificate cert) {
    String dn = cert.getSubjectX500Principal().getName(X500Principal.RFC2253);
    for (String part : dn.split(",")) {
      if (part.startsWith("CN=")) {
        return part.substring(3);
      }
    }
    return null;
  }

  static String firstDnsName(X509Certificate cert) {
    try {
      if (cert.getSubjectAlternativeNames() == null) {
        return null;
      }
      for (List<?> san : cert.getSubjectAlternativeNames()) {
        if (Integer.valueOf(2).equals(san.get(0))) {
          return String.valueOf(san.get(1));
        }
      }
    } catch (CertificateParsingException e) {
      return null;
    }
    return null;
  }
}
