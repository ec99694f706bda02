package io.tcpopt.controller.console;

import io.tcpopt.common.http.HttpCall;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Map;

/**
 * The console's stylesheet and script, bundled in the jar next to this class and read once at
 * start: the console loads nothing from anywhere else and works offline.
 */
final class Assets {
  private static final Map<String, String> TYPES = Map.of(
      "console.css", "text/css; charset=utf-8",
      "console.js", "text/javascript; charset=utf-8");

  private final Map<String, byte[]> files;

  Assets() {
    this.files = Map.of("console.css", load("console.css"), "console.js", load("console.js"));
  }

  private static byte[] load(String name) {
    try (InputStream in = Assets.class.getResourceAsStream(name)) {
      if (in == null) {
        throw new IllegalStateException("console asset " + name + " missing from the jar");
      }
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  void serve(HttpCall exchange, String name) {
    byte[] body = files.get(name);
    if (body == null || !(exchange.method().equals("GET") || exchange.method().equals("HEAD"))) {
      Exchanges.send(exchange, 404, Exchanges.TEXT, "not found\n");
      return;
    }
    exchange.setHeader("X-Content-Type-Options", "nosniff").setHeader("Cache-Control", "no-cache");
    exchange.respond(200, TYPES.get(name), body);
  }
}
