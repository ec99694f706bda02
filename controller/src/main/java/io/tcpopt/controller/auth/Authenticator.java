package io.tcpopt.controller.auth;

import io.tcpopt.common.tls.TlsContexts;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Optional;

/**
 * Decides who sent a request from its credentials, in this order:
 *
 * <ol>
 *   <li>no token and no TLS configured: the API is open, everyone is an {@code anonymous}
 *       operator (the controller warns at start; keep such an API on loopback);
 *   <li>an {@code Authorization: Bearer} header: the operator token, or refused if it does not
 *       match (compared in constant time);
 *   <li>a client certificate the TLS layer verified: an <b>operator</b> when it chains to one of the
 *       operator CAs ({@code controller.operator-ca}), else a <b>node</b> named by the certificate
 *       (first DNS name, else CN; see {@link TlsContexts#identity});
 *   <li>nothing: refused.
 * </ol>
 *
 * Operator and node certificates are told apart by issuer, never by what a certificate says about
 * itself: the operator CA must be a different CA from the one that signs node certificates (the
 * controller refuses a configuration where they overlap), so no node certificate can act as an
 * operator. Thread-safe and immutable.
 */
public final class Authenticator {
  private static final String BEARER = "Bearer ";

  private final Optional<byte[]> token;
  private final boolean tls;
  private final List<X509Certificate> operatorCas;

  /**
   * @param token the operator bearer token, if any
   * @param tls whether requests arrive over TLS with client-certificate verification
   * @param operatorCas the CAs whose (verified) client certificates are operators
   */
  public Authenticator(Optional<String> token, boolean tls, List<X509Certificate> operatorCas) {
    this.token = token.map(t -> t.getBytes(StandardCharsets.UTF_8));
    this.tls = tls;
    this.operatorCas = List.copyOf(operatorCas);
  }

  /** Whether every request is let through as an operator (no token, no TLS). */
  public boolean open() {
    return token.isEmpty() && !tls;
  }

  /** Whether a bearer token is configured (operators may sign in with it). */
  public boolean acceptsTokens() {
    return token.isPresent();
  }

  /** Whether {@code presented} (the bare token, no "Bearer ") is the operator token; compared in constant time. */
  public boolean isOperatorToken(String presented) {
    return presented != null && token.isPresent()
        && MessageDigest.isEqual(presented.trim().getBytes(StandardCharsets.UTF_8), token.get());
  }

  /**
   * Whether {@code verifiedChain} (as the TLS layer verified it; empty for none) is an operator's
   * certificate: signed by an operator CA. A node certificate never is.
   */
  public boolean isOperatorCertificate(List<? extends Certificate> verifiedChain) {
    return tls && !verifiedChain.isEmpty() && verifiedChain.get(0) instanceof X509Certificate && signedByOperatorCa(verifiedChain);
  }

  /** The operator CAs, which a TLS server must also trust for client certificates. */
  public List<X509Certificate> operatorCas() {
    return operatorCas;
  }

  /** Whether some credential can make an operator here (else nobody may change the policy). */
  public boolean operatorsPossible() {
    return open() || token.isPresent() || !operatorCas.isEmpty();
  }

  /**
   * @param authorization the {@code Authorization} header, or null
   * @param verifiedChain the client's certificate chain as verified by TLS (leaf first); empty
   *     without TLS or without a client certificate
   * @throws AuthenticationException when the credentials identify nobody
   */
  public Caller identify(String authorization, List<? extends Certificate> verifiedChain) throws AuthenticationException {
    if (open()) {
      return new Caller(Caller.Role.OPERATOR, "anonymous");
    }
    if (authorization != null) {
      if (token.isEmpty() || !authorization.regionMatches(true, 0, BEARER, 0, BEARER.length())) {
        throw new AuthenticationException("unsupported authorization (expected the operator bearer token)");
      }
      if (!isOperatorToken(authorization.substring(BEARER.length()))) {
        throw new AuthenticationException("invalid bearer token");
      }
      return new Caller(Caller.Role.OPERATOR, "token");
    }
    if (!verifiedChain.isEmpty() && verifiedChain.get(0) instanceof X509Certificate leaf) {
      String name = TlsContexts.identity(leaf);
      if (name == null || name.isBlank()) {
        throw new AuthenticationException("client certificate names nobody (no DNS name, no CN)");
      }
      return new Caller(signedByOperatorCa(verifiedChain) ? Caller.Role.OPERATOR : Caller.Role.NODE, name);
    }
    if (token.isPresent()) {
      return fail(tls ? "send the operator bearer token (authorization: Bearer <token>) or a client certificate"
          : "missing bearer token (authorization: Bearer <token>)");
    }
    return fail("a client certificate signed by a trusted CA is required");
  }

  private static Caller fail(String why) throws AuthenticationException {
    throw new AuthenticationException(why);
  }

  /** Whether some certificate of the (already verified) chain is, or is signed by, an operator CA. */
  private boolean signedByOperatorCa(List<? extends Certificate> chain) {
    for (Certificate c : chain) {
      if (!(c instanceof X509Certificate cert)) {
        continue;
      }
      for (X509Certificate ca : operatorCas) {
        if (cert.equals(ca)) {
          return true;
        }
        if (cert.getIssuerX500Principal().equals(ca.getSubjectX500Principal())) {
          try {
            cert.verify(ca.getPublicKey());
            return true;
          } catch (GeneralSecurityException e) {
            // same name, other key: not this CA
          }
        }
      }
    }
    return false;
  }
}
