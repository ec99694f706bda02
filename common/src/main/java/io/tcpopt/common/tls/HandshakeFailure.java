package io.tcpopt.common.tls;

import java.security.cert.CertPathBuilderException;
import java.security.cert.CertificateExpiredException;
import java.security.cert.CertificateNotYetValidException;
import java.util.Locale;

/**
 * Says in an operator's terms why a node-to-node TLS handshake failed, for the one log line each
 * side writes.
 *
 * <p>The providers' own text does not: a branch whose DC presents a certificate from another CA
 * logged {@code SSLHandshakeException: General OpenSslEngine problem} (the reason, PKIX path
 * building, only in the cause chain), and the DC {@code TLSV1_ALERT_INTERNAL_ERROR} (a stranger's
 * fresh-clone walk of docs/running-a-pair.md, 2026-12-03 10:07 UTC). The provider's text stays at
 * the end of the line, for searching.
 */
public final class HandshakeFailure {
  private static final int MAX_CAUSES = 16;

  private HandshakeFailure() {}

  /**
   * One line: what went wrong and which setting to look at, then the provider's innermost text.
   * {@code trusted} names where this side's trusted CAs are configured ({@code tls.trusted},
   * {@code --tls-ca FILE}).
   */
  public static String describe(Throwable failure, String trusted) {
    Throwable innermost = failure;
    StringBuilder text = new StringBuilder();
    String reason = null;
    Throwable t = failure;
    for (int depth = 0; t != null && depth < MAX_CAUSES; depth++, t = t.getCause()) {
      innermost = t;
      text.append(' ').append(t);
      if (reason == null && (t instanceof CertificateExpiredException || t instanceof CertificateNotYetValidException)) {
        reason = "the peer's certificate is outside its validity period";
      } else if (reason == null && t instanceof CertPathBuilderException) {
        reason = "the peer's certificate does not chain to a CA in " + trusted;
      }
    }
    if (reason == null) {
      reason = fromProviderText(text.toString().toUpperCase(Locale.ROOT), trusted);
    }
    return reason == null ? innermost.toString() : reason + " (" + innermost + ")";
  }

  private static String fromProviderText(String text, String trusted) {
    if (text.contains("PEER_DID_NOT_RETURN_A_CERTIFICATE") || text.contains("EMPTY CLIENT CERTIFICATE CHAIN")) {
      return "the peer presented no certificate from a CA in " + trusted + ": its certificate comes from another CA, or it has none";
    }
    if (text.contains("ALERT_CERTIFICATE_REQUIRED")) {
      return "the peer asked for a certificate from a CA it trusts and ours is from another: the peer does not trust our CA";
    }
    if (text.contains("ALERT_UNKNOWN_CA")) {
      return "the peer does not trust our certificate: our CA is not among the peer's trusted CAs";
    }
    if (text.contains("ALERT_CERTIFICATE_EXPIRED")) {
      return "the peer refused our certificate as outside its validity period";
    }
    if (text.contains("ALERT_BAD_CERTIFICATE") || text.contains("ALERT_CERTIFICATE_UNKNOWN")) {
      return "the peer refused our certificate";
    }
    if (text.contains("ALERT_PROTOCOL_VERSION") || text.contains("UNSUPPORTED_PROTOCOL") || text.contains("NO SUPPORTED VERSION")) {
      return "the peer does not speak TLS 1.3";
    }
    return null;
  }
}
