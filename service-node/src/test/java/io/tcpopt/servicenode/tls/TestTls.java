package io.tcpopt.servicenode.tls;

import io.tcpopt.common.tls.CertificateKey;
import io.tcpopt.common.tls.TlsFiles;
import java.net.InetSocketAddress;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.util.List;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;

/** The JDK's TLS as the real peer of tests: a server context with a demo certificate, and a verifying client. */
public final class TestTls {
  private TestTls() {}

  /** A server context presenting {@code files}' certificate. */
  public static SSLContext serverContext(TlsFiles files) throws Exception {
    CertificateKey pair = CertificateKey.load(files.certificateChain(), files.privateKey());
    KeyStore ks = KeyStore.getInstance("PKCS12");
    ks.load(null, null);
    ks.setKeyEntry("server", pair.key(), new char[0], pair.chain().toArray(Certificate[]::new));
    KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
    kmf.init(ks, new char[0]);
    SSLContext ctx = SSLContext.getInstance("TLS");
    ctx.init(kmf.getKeyManagers(), null, null);
    return ctx;
  }

  /**
   * A client connected to {@code to} that trusts {@code files}' CA, sends {@code name} as SNI and
   * requires it in the certificate, offering {@code protocol} only (null: the JDK's defaults).
   * The handshake is not started.
   */
  public static SSLSocket client(TlsFiles files, InetSocketAddress to, String name, String protocol) throws Exception {
    KeyStore trust = KeyStore.getInstance(KeyStore.getDefaultType());
    trust.load(null, null);
    trust.setCertificateEntry("ca", CertificateKey.trusted(files.trustedCertificates()).get(0));
    TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    tmf.init(trust);
    SSLContext ssl = SSLContext.getInstance("TLS");
    ssl.init(null, tmf.getTrustManagers(), null);
    SSLSocket s = (SSLSocket) ssl.getSocketFactory().createSocket(to.getAddress(), to.getPort());
    SSLParameters params = s.getSSLParameters();
    params.setServerNames(List.of(new SNIHostName(name)));
    params.setEndpointIdentificationAlgorithm("HTTPS");
    if (protocol != null) {
      params.setProtocols(new String[] {protocol});
    }
    s.setSSLParameters(params);
    s.setSoTimeout(20_000);
    return s;
  }
}
