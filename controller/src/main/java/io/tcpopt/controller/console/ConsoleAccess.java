package io.tcpopt.controller.console;

import io.tcpopt.common.http.HttpCall;
import io.tcpopt.controller.auth.Authenticator;
import java.security.cert.Certificate;
import java.util.List;
import java.security.MessageDigest;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Optional;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLSession;

/**
 * Who is asking: the console's one credential check, which asks the same {@link Authenticator} as
 * the gRPC API, so the console accepts exactly the operator credentials the API accepts (the token,
 * a certificate from an operator CA; never a node certificate). An
 * operator is recognized by a session cookie (opened by signing in with the token, by a verified
 * operator client certificate, or automatically when the API is open), or per request by an {@code
 * Authorization: Bearer} header (scripts). A mutating request must also pass {@link
 * #formRefusal}: same origin and the session's form token (CSRF).
 */
final class ConsoleAccess {
  static final String COOKIE = "tcpopt_console";
  static final String FORM_TOKEN_FIELD = "form-token";
  private static final String BEARER = "Bearer ";

  /** A recognized operator; {@code session} is null for a bearer-header request, {@code newSession} when the cookie must be set. */
  record Operator(String how, ConsoleSessions.Session session, boolean newSession) {}

  private final Authenticator authority;
  private final ConsoleSessions sessions;

  ConsoleAccess(Authenticator authority, ConsoleSessions sessions) {
    this.authority = authority;
    this.sessions = sessions;
  }

  /** The operator behind {@code exchange}, or empty when it carries no credential the authority accepts. */
  Optional<Operator> operator(HttpCall exchange) {
    String header = exchange.header("Authorization");
    if (header != null && header.regionMatches(true, 0, BEARER, 0, BEARER.length())) {
      return authority.isOperatorToken(header.substring(BEARER.length()))
          ? Optional.of(new Operator("token", null, false))
          : Optional.empty();
    }
    boolean certificate = authority.isOperatorCertificate(verifiedChain(exchange.sslSession()));
    Optional<ConsoleSessions.Session> cookie = sessions.find(cookie(exchange));
    if (cookie.isPresent()) {
      ConsoleSessions.Session s = cookie.get();
      // A certificate session lasts only while the certificate is presented; an open one only while the API is open.
      boolean valid = switch (s.how) {
        case "client certificate" -> certificate;
        case "open" -> authority.open();
        default -> authority.acceptsTokens();
      };
      if (valid) {
        return Optional.of(new Operator(s.how, s, false));
      }
      sessions.close(s);
    }
    if (certificate) {
      return Optional.of(new Operator("client certificate", sessions.open("client certificate"), true));
    }
    if (authority.open()) {
      return Optional.of(new Operator("open", sessions.open("open"), true));
    }
    return Optional.empty();
  }

  /** Signs in with the operator token; empty when it is not the token. */
  Optional<Operator> signIn(String token) {
    return authority.isOperatorToken(token) ? Optional.of(new Operator("token", sessions.open("token"), true)) : Optional.empty();
  }

  void signOut(Operator operator) {
    if (operator.session() != null) {
      sessions.close(operator.session());
    }
  }

  /** Whether operators can sign in with a token (one is configured). */
  boolean tokenSignIn() {
    return authority.acceptsTokens();
  }

  boolean open() {
    return authority.open();
  }

  /**
   * Why a mutating request (POST) must be refused, or null: it must come from a page of this console
   * (its {@code Origin}, else its {@code Referer}, is this server) and carry the session's form token.
   * A bearer-header request needs neither: browsers never add that header by themselves.
   */
  static String formRefusal(HttpCall exchange, Operator operator, Map<String, String> form, boolean tls) {
    if (operator.session() == null) {
      return null;
    }
    if (!sameOrigin(exchange, tls)) {
      String origin = exchange.header("Origin");
      return "refused: the request did not come from a page of this console (Origin " + (origin == null ? "missing" : origin) + ")";
    }
    String token = form.get(FORM_TOKEN_FIELD);
    if (token == null || !MessageDigest.isEqual(token.getBytes(StandardCharsets.UTF_8), operator.session().formToken.getBytes(StandardCharsets.UTF_8))) {
      return "refused: missing or stale form token; reload the page and try again";
    }
    return null;
  }

  /** Whether the request's {@code Origin} (else its {@code Referer}) is this server, as the browser addressed it. */
  static boolean sameOrigin(HttpCall exchange, boolean tls) {
    String host = exchange.header("Host");
    String self = (tls ? "https://" : "http://") + host;
    String origin = exchange.header("Origin");
    String referer = exchange.header("Referer");
    return host != null
        && (origin != null ? origin.equals(self) : referer != null && (referer.equals(self) || referer.startsWith(self + "/")));
  }

  /**
   * Why the request's {@code Host} is refused, or null. Only while the API is open: then anyone who
   * can reach the console is an operator, and a page elsewhere must not reach it through a DNS name
   * it controls (DNS rebinding), so only IP literals and {@code localhost} are accepted.
   */
  String hostRefusal(HttpCall exchange) {
    if (!authority.open()) {
      return null;
    }
    String host = exchange.header("Host");
    if (host == null) {
      return "refused: no Host header";
    }
    String name = host.startsWith("[") ? host.substring(1, Math.max(1, host.indexOf(']'))) : host.replaceFirst(":\\d+$", "");
    boolean literal = name.equals("localhost") || name.matches("[0-9.]+") || name.contains(":");
    return literal ? null : "refused: this console has no credentials configured, so it answers only to an IP address or localhost";
  }

  static String cookieHeader(Operator operator, boolean tls) {
    return COOKIE + "=" + operator.session().id + "; Path=/; HttpOnly; SameSite=Strict" + (tls ? "; Secure" : "");
  }

  static String expiredCookieHeader(boolean tls) {
    return COOKIE + "=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict" + (tls ? "; Secure" : "");
  }

  private static String cookie(HttpCall exchange) {
    for (String header : exchange.headers("Cookie")) {
      for (String part : header.split(";")) {
        String p = part.trim();
        if (p.startsWith(COOKIE + "=")) {
          return p.substring(COOKIE.length() + 1);
        }
      }
    }
    return null;
  }

  private static List<Certificate> verifiedChain(SSLSession session) {
    if (session == null) {
      return List.of();
    }
    try {
      Certificate[] chain = session.getPeerCertificates();
      return chain == null ? List.of() : List.of(chain);
    } catch (SSLPeerUnverifiedException e) {
      return List.of();
    }
  }
}
