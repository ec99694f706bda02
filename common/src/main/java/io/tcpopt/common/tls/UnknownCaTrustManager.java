package io.tcpopt.common.tls;

import io.netty.handler.ssl.OpenSslCertificateException;
import java.io.IOException;
import java.net.Socket;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.CertPathBuilderException;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509ExtendedTrustManager;

/**
 * The JDK's PKIX trust manager over the configured CAs, whose refusal of a certificate that chains
 * to none of them makes BoringSSL send the {@code unknown_ca} alert.
 *
 * <p>Without it Netty passes BoringSSL an unspecified verification error, and the refused peer
 * read {@code TLSV1_ALERT_INTERNAL_ERROR}: a DC refused by a branch holding another CA could not
 * tell a trust problem from a bug (a stranger's fresh-clone walk, 2026-12-03 10:07 UTC). Every
 * other refusal (expiry, a broken chain) keeps the alert Netty already picks for it. Only for the
 * OpenSSL provider: the error code is BoringSSL's.
 */
final class UnknownCaTrustManager extends X509ExtendedTrustManager {
  private static final int MAX_CAUSES = 16;
  /** X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY in BoringSSL's and OpenSSL's x509.h; BoringSSL answers it with unknown_ca. */
  private static final int UNABLE_TO_GET_ISSUER_CERT_LOCALLY = 20;
  private final X509ExtendedTrustManager pkix;

  private UnknownCaTrustManager(X509ExtendedTrustManager pkix) {
    this.pkix = pkix;
  }

  /** Trusts exactly the certificates chaining to {@code authorities}. */
  static TrustManager trusting(X509Certificate[] authorities) throws GeneralSecurityException, IOException {
    KeyStore store = KeyStore.getInstance("PKCS12");
    store.load(null, null);
    for (int i = 0; i < authorities.length; i++) {
      store.setCertificateEntry("ca-" + i, authorities[i]);
    }
    TrustManagerFactory factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    factory.init(store);
    for (TrustManager manager : factory.getTrustManagers()) {
      if (manager instanceof X509ExtendedTrustManager pkix) {
        return new UnknownCaTrustManager(pkix);
      }
    }
    throw new GeneralSecurityException("no X509ExtendedTrustManager from " + factory.getAlgorithm());
  }

  @Override
  public void checkClientTrusted(X509Certificate[] chain, String authType) throws CertificateException {
    answeringUnknownCa(() -> pkix.checkClientTrusted(chain, authType));
  }

  @Override
  public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket) throws CertificateException {
    answeringUnknownCa(() -> pkix.checkClientTrusted(chain, authType, socket));
  }

  @Override
  public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine) throws CertificateException {
    answeringUnknownCa(() -> pkix.checkClientTrusted(chain, authType, engine));
  }

  @Override
  public void checkServerTrusted(X509Certificate[] chain, String authType) throws CertificateException {
    answeringUnknownCa(() -> pkix.checkServerTrusted(chain, authType));
  }

  @Override
  public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket) throws CertificateException {
    answeringUnknownCa(() -> pkix.checkServerTrusted(chain, authType, socket));
  }

  @Override
  public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine) throws CertificateException {
    answeringUnknownCa(() -> pkix.checkServerTrusted(chain, authType, engine));
  }

  @Override
  public X509Certificate[] getAcceptedIssuers() {
    return pkix.getAcceptedIssuers();
  }

  /** One of the PKIX manager's checks. */
  private interface Check {
    void run() throws CertificateException;
  }

  /** Runs {@code check}, its refusal of a certificate chaining to no configured CA turned into unknown_ca. */
  private static void answeringUnknownCa(Check check) throws CertificateException {
    try {
      check.run();
    } catch (CertificateException e) {
      throw unknownCaIfUnchained(e);
    }
  }

  /** A path that could not be built ends at no configured CA: BoringSSL's code for that is unknown_ca. */
  private static CertificateException unknownCaIfUnchained(CertificateException refusal) {
    Throwable t = refusal;
    for (int depth = 0; t != null && depth < MAX_CAUSES; depth++, t = t.getCause()) {
      if (t instanceof CertPathBuilderException) {
        return new OpenSslCertificateException(refusal.getMessage(), refusal, UNABLE_TO_GET_ISSUER_CERT_LOCALLY);
      }
    }
    return refusal;
  }
}
