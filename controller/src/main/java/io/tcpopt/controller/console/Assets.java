package io.tcpopt.controller.console;

import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
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

  void serve(HttpExchange exchange, String name) throws IOException {
    byte[] body = files.get(name);
    if (body == null || !(exchange.getRequestMethod().equals("GET") || exchange.getRequestMethod().equals("HEAD"))) {
      Exchanges.send(exchange, 404, Exchanges.TEXT, "not found\n");
      return;
    }
    exchange.getResponseHeaders().set("Content-Type", TYPES.get(name));
    exchange.getResponseHeaders().set("X-Content-Type-Options", "nosniff");
    exchange.getResponseHeaders().set("Cache-Control", "no-cache");
    boolean head = exchange.getRequestMethod().equals("HEAD");
    exchange.sendResponseHeaders(200, head ? -1 : body.length);
    if (!head) {
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(body);
      }
    }
  }
}
