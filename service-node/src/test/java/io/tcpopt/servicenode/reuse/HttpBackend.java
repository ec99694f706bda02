package io.tcpopt.servicenode.reuse;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.util.HashMap;
import java.util.Map;
import java.util.Queue;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.SSLContext;

/**
 * A real HTTP/1.1 server with keep-alive (the JDK's com.sun.net.httpserver) on loopback port 0.
 * {@code GET /bytes?n=N&seed=S[&chunked=1]} answers N deterministic bytes (Content-Length, or
 * chunked); {@code POST /echo} answers the request body; {@code /close} answers with {@code
 * Connection: close}. It records the client address and port of every exchange (one port = one
 * connection), and by request target which connection served it.
 */
public final class HttpBackend implements AutoCloseable {
  private final HttpServer server;
  private final ExecutorService executor = Executors.newFixedThreadPool(32, r -> {
    Thread t = new Thread(r, "http-backend");
    t.setDaemon(true);
    return t;
  });
  public final Set<InetSocketAddress> connections = ConcurrentHashMap.newKeySet();
  public final AtomicInteger exchanges = new AtomicInteger();
  /** The connection (client address and port) each request target arrived on. */
  public final Map<String, InetSocketAddress> servedOn = new ConcurrentHashMap<>();
  final Queue<Throwable> errors = new ConcurrentLinkedQueue<>();

  public HttpBackend() throws IOException {
    this(null);
  }

  /** An HTTPS server with {@code tls} (the JDK's HttpsServer) when not null. */
  public HttpBackend(SSLContext tls) throws IOException {
    InetSocketAddress at = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
    if (tls == null) {
      server = HttpServer.create(at, 256);
    } else {
      HttpsServer https = HttpsServer.create(at, 256);
      https.setHttpsConfigurator(new HttpsConfigurator(tls));
      server = https;
    }
    server.setExecutor(executor);
    server.createContext("/", this::handle);
    server.start();
  }

  public InetSocketAddress address() {
    return server.getAddress();
  }

  public static byte[] content(long seed, int n) {
    byte[] b = new byte[n];
    new Random(seed).nextBytes(b);
    return b;
  }

  private void handle(HttpExchange ex) throws IOException {
    try (ex) {
      connections.add(ex.getRemoteAddress());
      servedOn.put(ex.getRequestURI().toString(), ex.getRemoteAddress());
      exchanges.incrementAndGet();
      Map<String, String> q = query(ex.getRequestURI());
      byte[] body;
      try (InputStream in = ex.getRequestBody()) {
        body = in.readAllBytes();
      }
      String path = ex.getRequestURI().getPath();
      if (path.equals("/echo")) {
        send(ex, body, q.containsKey("chunked"));
      } else if (path.equals("/close")) {
        ex.getResponseHeaders().set("Connection", "close");
        send(ex, content(Long.parseLong(q.getOrDefault("seed", "0")), Integer.parseInt(q.getOrDefault("n", "100"))), false);
      } else {
        send(ex, content(Long.parseLong(q.getOrDefault("seed", "0")), Integer.parseInt(q.getOrDefault("n", "0"))), q.containsKey("chunked"));
      }
    } catch (IOException | RuntimeException e) {
      errors.add(e);
      throw e;
    }
  }

  private static void send(HttpExchange ex, byte[] body, boolean chunked) throws IOException {
    if (ex.getRequestMethod().equals("HEAD")) {
      ex.getResponseHeaders().set("X-Length", Integer.toString(body.length));
      ex.sendResponseHeaders(200, -1);
      return;
    }
    ex.sendResponseHeaders(200, chunked ? 0 : (body.length == 0 ? -1 : body.length));
    try (OutputStream out = ex.getResponseBody()) {
      int off = 0;
      while (off < body.length) { // several writes: several chunks when chunked
        int n = Math.min(body.length - off, 7000);
        out.write(body, off, n);
        off += n;
      }
    }
  }

  private static Map<String, String> query(URI uri) {
    Map<String, String> out = new HashMap<>();
    if (uri.getRawQuery() != null) {
      for (String kv : uri.getRawQuery().split("&")) {
        int eq = kv.indexOf('=');
        out.put(eq < 0 ? kv : kv.substring(0, eq), eq < 0 ? "" : kv.substring(eq + 1));
      }
    }
    return out;
  }

  public void rethrow() {
    Throwable t = errors.peek();
    if (t != null) {
      throw new AssertionError("backend failed", t);
    }
  }

  @Override
  public void close() {
    server.stop(0);
    executor.shutdownNow();
  }
}
