package io.tcpopt.cli.console;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import java.util.stream.Stream;

/**
 * Debian's headless Chromium driven over the DevTools protocol, with nothing but the JDK: the
 * browser is started with a fresh profile and the flags that keep it off the network, its page
 * target is reached over {@link WebSocket}, and tests navigate, run script in the page, read what it
 * shows, and take screenshots. Closing kills the browser and deletes the profile.
 */
final class HeadlessChromium implements AutoCloseable {
  private static final Duration CALL_TIMEOUT = Duration.ofSeconds(20);
  static final List<String> CANDIDATES = List.of("/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome");

  private final Process process;
  private final Path profile;
  private final WebSocket socket;
  private final AtomicInteger ids = new AtomicInteger();
  private final Map<Integer, CompletableFuture<Map<String, Object>>> pending = new ConcurrentHashMap<>();

  private HeadlessChromium(Process process, Path profile, WebSocket socket) {
    this.process = process;
    this.profile = profile;
    this.socket = socket;
  }

  /** The browser binary, if this machine has one. */
  static Optional<Path> find() {
    return CANDIDATES.stream().map(Path::of).filter(Files::isExecutable).findFirst();
  }

  static HeadlessChromium start(Path binary) throws IOException, InterruptedException {
    Path profile = Files.createTempDirectory("tcpopt-chromium-");
    Process p = new ProcessBuilder(binary.toString(), "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
        "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync",
        "--disable-dev-shm-usage", "--hide-scrollbars", "--user-data-dir=" + profile, "--remote-debugging-port=0",
        "--window-size=1280,900", "about:blank")
        .redirectErrorStream(true)
        .redirectOutput(profile.resolve("chromium.log").toFile())
        .start();
    try {
      Path portFile = profile.resolve("DevToolsActivePort");
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (!(Files.isRegularFile(portFile) && Files.readAllLines(portFile).size() >= 2)) {
        if (!p.isAlive() || System.nanoTime() > deadline) {
          throw new IOException("chromium did not open its DevTools port: " + Files.readString(profile.resolve("chromium.log")));
        }
        Thread.sleep(50);
      }
      int port = Integer.parseInt(Files.readAllLines(portFile).get(0).trim());
      HttpClient http = HttpClient.newHttpClient();
      String list = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/json/list")).build(),
          HttpResponse.BodyHandlers.ofString()).body();
      String ws = null;
      for (Object t : (List<?>) MiniJson.parse(list)) {
        Map<?, ?> target = (Map<?, ?>) t;
        if ("page".equals(target.get("type"))) {
          ws = (String) target.get("webSocketDebuggerUrl");
        }
      }
      if (ws == null) {
        throw new IOException("chromium has no page target: " + list);
      }
      HeadlessChromium[] self = new HeadlessChromium[1];
      WebSocket socket = http.newWebSocketBuilder().buildAsync(URI.create(ws), new WebSocket.Listener() {
        private final StringBuilder message = new StringBuilder();

        @Override
        public CompletionStage<?> onText(WebSocket webSocket, CharSequence data, boolean last) {
          message.append(data);
          if (last) {
            String text = message.toString();
            message.setLength(0);
            self[0].received(text);
          }
          webSocket.request(1);
          return null;
        }
      }).get(10, TimeUnit.SECONDS);
      self[0] = new HeadlessChromium(p, profile, socket);
      self[0].call("Page.enable", Map.of());
      self[0].call("Network.enable", Map.of());
      return self[0];
    } catch (IOException | InterruptedException | RuntimeException | java.util.concurrent.ExecutionException
        | java.util.concurrent.TimeoutException e) {
      p.destroyForcibly();
      deleteTree(profile);
      throw e instanceof IOException io ? io : new IOException("cannot drive chromium: " + e, e);
    }
  }

  private void received(String text) {
    Map<?, ?> m = (Map<?, ?>) MiniJson.parse(text);
    Object id = m.get("id");
    if (id != null) {
      CompletableFuture<Map<String, Object>> f = pending.remove(((Double) id).intValue());
      if (f != null) {
        @SuppressWarnings("unchecked")
        Map<String, Object> message = (Map<String, Object>) m;
        f.complete(message);
      }
    }
  }

  /** One DevTools command; its {@code result}, or an {@link AssertionError} with the protocol's error. */
  @SuppressWarnings("unchecked")
  Map<String, Object> call(String method, Map<String, Object> params) {
    int id = ids.incrementAndGet();
    CompletableFuture<Map<String, Object>> f = new CompletableFuture<>();
    pending.put(id, f);
    Map<String, Object> message = new LinkedHashMap<>();
    message.put("id", id);
    message.put("method", method);
    message.put("params", params);
    socket.sendText(MiniJson.write(message), true).join();
    Map<String, Object> reply;
    try {
      reply = f.get(CALL_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new AssertionError("DevTools " + method + " got no answer: " + e, e);
    }
    if (reply.containsKey("error")) {
      throw new AssertionError("DevTools " + method + ": " + reply.get("error"));
    }
    return (Map<String, Object>) reply.get("result");
  }

  /** Navigates and waits until the document has loaded. */
  void open(String url) {
    call("Page.navigate", Map.of("url", url));
    // One expression, so the state and the address are of the same document.
    await(() -> ("complete " + url).equals(eval("document.readyState + ' ' + location.href")) ? Boolean.TRUE : null,
        "page " + url + " loaded");
  }

  /** Runs {@code script} (which submits a form or follows a link) and waits until the next document has loaded. */
  void navigateBy(String script) {
    eval("window.__tcpoptOld = true; " + script + "; 1");
    await(() -> Boolean.TRUE.equals(eval("window.__tcpoptOld === undefined && document.readyState === 'complete'")) ? true : null,
        "the page after: " + script);
  }

  /** The value of a script expression in the page (awaiting a promise), as JSON-like Java values. */
  Object eval(String expression) {
    Map<String, Object> params = new LinkedHashMap<>();
    params.put("expression", expression);
    params.put("returnByValue", true);
    params.put("awaitPromise", true);
    Map<?, ?> r = call("Runtime.evaluate", params);
    if (r.containsKey("exceptionDetails")) {
      throw new AssertionError("script failed: " + expression + ": " + r.get("exceptionDetails"));
    }
    return ((Map<?, ?>) r.get("result")).get("value");
  }

  String text(String selector) {
    Object v = eval("(function(){var e=document.querySelector(" + MiniJson.write(selector) + ");return e?e.innerText:null;})()");
    return v == null ? null : v.toString();
  }

  /** Polls {@code condition} until it returns non-null, for at most 15 s. */
  <T> T await(Supplier<T> condition, String what) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
    while (true) {
      T v = condition.get();
      if (v != null) {
        return v;
      }
      if (System.nanoTime() > deadline) {
        throw new AssertionError("timed out waiting for " + what);
      }
      try {
        Thread.sleep(100);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError(e);
      }
    }
  }

  /** A PNG of the whole page. */
  byte[] screenshot() {
    Map<String, Object> params = new LinkedHashMap<>();
    params.put("format", "png");
    params.put("captureBeyondViewport", true);
    Map<?, ?> size = (Map<?, ?>) call("Page.getLayoutMetrics", Map.of()).get("cssContentSize");
    params.put("clip", Map.of("x", 0, "y", 0, "width", 1280, "height", Math.min(3000, ((Double) size.get("height")).intValue()), "scale", 1));
    return Base64.getDecoder().decode((String) call("Page.captureScreenshot", params).get("data"));
  }

  /** The cookies the browser holds for {@code url}, name to value. */
  Map<String, String> cookies(String url) {
    Map<String, String> out = new LinkedHashMap<>();
    for (Object c : (List<?>) call("Network.getCookies", Map.of("urls", List.of(url))).get("cookies")) {
      Map<?, ?> cookie = (Map<?, ?>) c;
      out.put((String) cookie.get("name"), (String) cookie.get("value"));
    }
    return out;
  }

  @Override
  public void close() {
    socket.abort();
    process.destroy();
    try {
      if (!process.waitFor(5, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    deleteTree(profile);
  }

  private static void deleteTree(Path dir) {
    try (Stream<Path> files = Files.walk(dir)) {
      files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
    } catch (IOException e) {
      // A leftover temporary profile is harmless.
    }
  }
}
