package io.tcpopt.controller.api;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.cert.Certificate;
import java.util.Optional;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLSession;

/**
 * Who may act as an operator of this controller: the holder of the configured bearer token, or,
 * when {@code clientCertificateAuth}, the holder of a client certificate the TLS layer verified
 * against the trusted CA. With neither a token nor TLS configured everyone may (the API is open).
 * The gRPC {@link AuthInterceptor} and the web console ask this one place, so both always accept
 * the same credentials.
 */
public final class OperatorAuthority {
  private static final String BEARER = "Bearer ";

  private final Optional<byte[]> token;
  private final boolean tls;
  private final boolean clientCertificateAuth;

  OperatorAuthority(Optional<String> token, boolean tls, boolean clientCertificateAuth) {
    this.token = token.map(t -> t.getBytes(StandardCharsets.UTF_8));
    this.tls = tls;
    this.clientCertificateAuth = clientCertificateAuth;
  }

  /** Whether every caller is an operator (no token, no TLS configured). */
  public boolean open() {
    return token.isEmpty() && !tls;
  }

  /** Whether a token is configured, i.e. operators may log in with one. */
  public boolean acceptsTokens() {
    return token.isPresent();
  }

  /** Whether a verified client certificate makes its holder an operator. */
  public boolean acceptsClientCertificates() {
    return tls && clientCertificateAuth;
  }

  /** Whether {@code presented} is the operator token (compared in constant time). */
  public boolean isOperatorToken(String presented) {
    return presented != null
        && token.isPresent()
        && MessageDigest.isEqual(presented.trim().getBytes(StandardCharsets.UTF_8), token.get());
  }

  /** Whether {@code session} carries a client certificate that makes its holder an operator. */
  public boolean isOperatorCertificate(SSLSession session) {
    return acceptsClientCertificates() && verifiedClientCertificate(session);
  }

  /**
   * Why an operator call with this {@code authorization} header (may be null) over this TLS
   * session (null for plaintext) is refused, or null when it is allowed.
   */
  public String operatorRefusal(String authorization, SSLSession session) {
    if (open() || isOperatorCertificate(session)) {
      return null;
    }
    return tokenRefusal(authorization, "missing bearer token (authorization: Bearer <token>)");
  }

  /** As {@link #operatorRefusal}, for a service node's call: any verified client certificate will do. */
  String nodeRefusal(String authorization, SSLSession session) {
    if (open() || (tls && verifiedClientCertificate(session))) {
      return null;
    }
    return tokenRefusal(authorization, "node calls need a verified client certificate or the bearer token");
  }

  private String tokenRefusal(String authorization, String missing) {
    if (token.isEmpty()) {
      return "a verified client certificate is required";
    }
    if (authorization != null && authorization.regionMatches(true, 0, BEARER, 0, BEARER.length())) {
      return isOperatorToken(authorization.substring(BEARER.length())) ? null : "invalid bearer token";
    }
    return missing;
  }

  static boolean verifiedClientCertificate(SSLSession session) {
    if (session == null) {
      return false;
    }
    try {
      Certificate[] chain = session.getPeerCertificates();
      return chain != null && chain.length > 0;
    } catch (SSLPeerUnverifiedException e) {
      return false;
    }
  }
}
