package io.tcpopt.controller.console;

import io.tcpopt.common.http.HttpCall;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Reading requests and writing responses of the console's {@link io.tcpopt.common.http.BoundedHttpServer}: query and form parameters
 * (URL-encoded, bounded in size), and responses that always carry the console's security headers
 * (a content security policy that allows only the console's own script and stylesheet, no framing,
 * no MIME sniffing, no caching of pages).
 */
final class Exchanges {
  static final int MAX_FORM_BYTES = 1 << 20;
  static final String HTML = "text/html; charset=utf-8";
  static final String JSON = "application/json; charset=utf-8";
  static final String TEXT = "text/plain; charset=utf-8";
  private static final String CSP =
      "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; "
          + "form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

  private Exchanges() {}

  static Map<String, String> query(HttpCall exchange) {
    String raw = exchange.rawQuery();
    return raw == null ? Map.of() : decode(raw, "query");
  }

  /** The URL-encoded form of a POST; a larger or differently encoded body is refused. */
  static Map<String, String> form(HttpCall exchange) {
    String type = exchange.header("Content-Type");
    if (type == null || !type.toLowerCase().startsWith("application/x-www-form-urlencoded")) {
      throw new BadRequestException("expected a form (application/x-www-form-urlencoded), got " + (type == null ? "no body type" : type));
    }
    byte[] body = exchange.body();
    if (body.length > MAX_FORM_BYTES) {
      throw new BadRequestException("form larger than " + (MAX_FORM_BYTES >> 10) + " KiB");
    }
    return decode(new String(body, StandardCharsets.US_ASCII), "form");
  }

  private static Map<String, String> decode(String raw, String what) {
    Map<String, String> out = new LinkedHashMap<>();
    for (String pair : raw.split("&")) {
      if (pair.isEmpty()) {
        continue;
      }
      int eq = pair.indexOf('=');
      try {
        String key = URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8);
        String value = eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
        out.putIfAbsent(key, value);
      } catch (IllegalArgumentException e) {
        throw new BadRequestException(what + ": malformed encoding");
      }
    }
    return out;
  }

  static void send(HttpCall exchange, int status, String contentType, String body) {
    exchange.setHeader("Content-Security-Policy", CSP)
        .setHeader("X-Content-Type-Options", "nosniff")
        .setHeader("X-Frame-Options", "DENY")
        .setHeader("Referrer-Policy", "same-origin")
        .setHeader("Cache-Control", "no-store");
    exchange.respond(status, contentType, body);
  }

  static void redirect(HttpCall exchange, String location) {
    exchange.setHeader("Location", location);
    send(exchange, 303, TEXT, "");
  }
}
