package io.tcpopt.cli.console;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tcpopt.cli.demo.DemoCluster;
import io.tcpopt.cli.demo.Transfer;
import io.tcpopt.cli.operator.ControllerClient;
import io.tcpopt.cli.operator.ControllerConnector;
import java.net.Socket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The web console in a real browser (Debian's headless Chromium over the DevTools protocol) against
 * a live demo cluster: a controller with its console, branch and DC service nodes, an optimized
 * flow held open. Every page loads and shows what it should, a policy applied through the console
 * appears in the history (and in the controller), and requests without credentials, without the
 * form token or from another origin are refused. Screenshots of each page land in
 * {@code target/console-screenshots/} (the ones in docs/console/ were taken by this test).
 * Skipped, with the reason printed, only where no Chromium is installed.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ConsoleBrowserTest {
  private static final Path SCREENSHOTS = Path.of("target", "console-screenshots");

  private static DemoCluster demo;
  private static HeadlessChromium browser;
  private static Socket interactive;
  private static Socket bulk;
  private static Thread slowReader;
  private static String base;
  private static final HttpClient http = HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER)
      .connectTimeout(Duration.ofSeconds(5)).build();

  @BeforeAll
  static void start() throws Exception {
    Optional<Path> chromium = HeadlessChromium.find();
    if (chromium.isEmpty()) {
      System.out.println("ConsoleBrowserTest skipped: no Chromium at " + HeadlessChromium.CANDIDATES
          + " (apt-get install chromium chromium-driver; .ci/run installs it)");
    }
    Assumptions.assumeTrue(chromium.isPresent(), "no Chromium installed");
    demo = DemoCluster.start(0, 0, line -> {});
    base = demo.consoleUrl().replaceAll("/$", "");
    Transfer.Result r = Transfer.download(demo.listener(), 16L << 20, Duration.ofSeconds(60), n -> {});
    assertTrue(r.digestMatches());
    interactive = Transfer.openEcho(demo.listener(), Duration.ofSeconds(30));
    bulk = startSlowDownload();
    browser = HeadlessChromium.start(chromium.get());
    Files.createDirectories(SCREENSHOTS);
  }

  @AfterAll
  static void stop() throws Exception {
    if (browser != null) {
      browser.close();
    }
    if (interactive != null) {
      interactive.close();
    }
    if (bulk != null) {
      bulk.close();
      slowReader.join(5000);
    }
    if (demo != null) {
      demo.close();
    }
  }

  @Test
  @Order(1)
  void unauthenticatedRequestsAreRefused() throws Exception {
    for (String path : List.of("/", "/flows", "/policy", "/nodes", "/api/throughput")) {
      HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(base + path)).build(), HttpResponse.BodyHandlers.ofString());
      assertEquals(401, r.statusCode(), path);
      assertFalse(r.body().contains("demo-appqoe") || r.body().contains("dc-1"), "nothing about the cluster before sign-in: " + path);
    }
    HttpResponse<String> post = http.send(form("/policy/rollback", Map.of("version", "1", "confirm", "yes"), null, base),
        HttpResponse.BodyHandlers.ofString());
    assertEquals(401, post.statusCode());
    HttpResponse<String> wrong = http.send(HttpRequest.newBuilder(URI.create(base + "/")).header("Authorization", "Bearer nope").build(),
        HttpResponse.BodyHandlers.ofString());
    assertEquals(401, wrong.statusCode());

    browser.open(base + "/flows");
    assertEquals("Sign in", browser.text("h1"));
    assertNotNull(browser.eval("document.querySelector('label[for=token]') && 'labelled'"));
    assertEquals("/flows", browser.eval("document.querySelector('input[name=next]').value"), "back to the page asked for");
    shot("sign-in");
  }

  @Test
  @Order(2)
  void signInAndTheOverviewShowsSessionsFlowsAndTheLiveChart() throws Exception {
    browser.open(base + "/");
    browser.navigateBy("document.getElementById('token').value = " + MiniJson.write(demo.token()) + "; document.querySelector('form.login').submit()");
    browser.await(() -> (base + "/").equals(browser.eval("location.href")) && "Overview".equals(browser.text("h1")) ? true : null,
        "the overview after sign-in");
    String glance = browser.text(".cards");
    assertTrue(glance.contains("RUNNING") && glance.contains(DemoCluster.POLICY_NAME + " v1"), glance);
    assertTrue(browser.text("section[aria-labelledby=sessions] tbody").matches("(?s).*branch-1\\s+dc-1\\s+dc\\s+2/2\\s+up\\s.*"),
        browser.text("section[aria-labelledby=sessions] tbody"));
    assertTrue(browser.text(".card.optimized").startsWith("Optimized flows\n2\n"), browser.text(".card.optimized")); // echo + bulk
    // The chart draws itself from /api/throughput and keeps updating: the 16 MiB transfer is in it.
    String points = browser.await(() -> (String) browser.eval(
        "(function(){var p=document.querySelector('#throughput-chart polyline[data-series=optimized]');"
            + "return p && p.getAttribute('points').split(' ').length >= 3 ? p.getAttribute('points') : null;})()"),
        "the optimized throughput line, redrawn as samples arrive");
    assertTrue(points.matches("[0-9., ]+"), points);
    assertTrue(browser.text("#chart-now").startsWith("Now: "), browser.text("#chart-now"));
    assertTrue(browser.cookies(base + "/").containsKey("tcpopt_console"));
    assertEquals(Boolean.TRUE, browser.eval("document.cookie.indexOf('tcpopt_console') < 0"), "the session cookie is HttpOnly");
    assertFalse(((String) browser.eval("document.documentElement.outerHTML")).contains(demo.token()), "the token is not in the page");
    Thread.sleep(2500); // one more chart refresh for the screenshot
    shot("overview");
  }

  @Test
  @Order(3)
  void flowsPageShowsTheOptimizedFlowWithTheCliFilters() throws Exception {
    int serverPort = demo.branch().serviceNode().listenerAddresses().isEmpty() ? 0 : targetPort();
    browser.open(base + "/flows");
    String rows = browser.text("tbody");
    assertTrue(rows.lines().anyMatch(l -> l.contains("127.0.0.1:" + serverPort) && l.contains("branch-1") && l.contains("dc-1")
        && l.contains("optimized")), rows);
    // The bulk download's rate now (from the console's once-a-second samples), next to its bytes.
    assertTrue(rows.lines().anyMatch(l -> l.matches(".*\\toptimized\\t\\S+\\t\\d+(\\.\\d)?[MG]iB\\t\\d+(\\.\\d)?[kMG]bit/s\\t.*")), rows);
    shot("flows");

    browser.open(base + "/flows?port=" + serverPort + "&state=optimized");
    assertTrue(browser.text("tbody").contains("optimized"), browser.text("tbody"));
    browser.open(base + "/flows?state=pass-through");
    assertTrue(browser.text("tbody").contains("no active flows match"), browser.text("tbody"));
    browser.open(base + "/flows?view=closed");
    assertTrue(browser.text("tbody").lines().anyMatch(l -> l.contains("completed") && l.contains("16MiB")), browser.text("tbody"));
    browser.open(base + "/flows?port=http");
    assertTrue(browser.text("main").contains("port: must be a number between 1 and 65535"), browser.text("main"));
  }

  @Test
  @Order(4)
  void nodesPageShowsHealthLoadAndCapacity() {
    browser.open(base + "/nodes");
    String rows = browser.text("tbody");
    assertTrue(rows.lines().anyMatch(l -> l.startsWith("branch-1\t") && l.contains("RUNNING") && l.contains("/ 10000")), rows);
    shot("nodes");
    // A drained node says so (tcpopt drain), and no longer once undrained.
    String[] auth = {"--controller=" + demo.controller(), "--token=" + demo.token()};
    assertEquals(0, io.tcpopt.cli.CliRun.run(io.tcpopt.cli.operator.ControllerConnector.grpc(), "drain", "branch-1", "--no-wait", auth[0], auth[1])
        .exitCode());
    browser.open(base + "/nodes");
    assertTrue(browser.text("tbody").lines().anyMatch(l -> l.startsWith("branch-1\t") && l.contains("RUNNING") && l.contains(", draining")), browser.text("tbody"));
    assertTrue(browser.text("main").contains("1 node(s) draining"), browser.text("main"));
    assertEquals(0, io.tcpopt.cli.CliRun.run(io.tcpopt.cli.operator.ControllerConnector.grpc(), "undrain", "branch-1", auth[0], auth[1])
        .exitCode());
    browser.open(base + "/nodes");
    assertFalse(browser.text("main").contains("draining"), browser.text("main"));
  }

  @Test
  @Order(5)
  void policyAppliedThroughTheConsoleShowsUpInTheHistory() throws Exception {
    browser.open(base + "/policy");
    assertTrue(browser.text("#active").contains(DemoCluster.POLICY_NAME + ", version 1"), browser.text("#active"));
    assertTrue(browser.text("main").contains("optimize via SNG-BRANCH"), "sequences rendered readably");

    // An invalid document: the policy service's violations, with their paths, and nothing applied.
    fillAndReview("data-policy: {name: broken, sequences: [], default-action: sideways}\n", "");
    assertTrue(browser.text("div.error").contains("data-policy.default-action"), browser.text("div.error"));

    String changed = demo.samplePolicy().replace("name: " + DemoCluster.POLICY_NAME, "name: demo-console");
    fillAndReview(changed, "from the browser test");
    assertEquals("Review policy change", browser.text("h1"));
    assertTrue(browser.text("figure.diff").contains("+  name: demo-console"), browser.text("figure.diff"));
    shot("policy-review");
    try (ControllerClient client = ControllerConnector.grpc().connect(demo.target())) {
      assertEquals(DemoCluster.POLICY_NAME, client.policy(0).name(), "nothing applied before the confirmation");
      browser.navigateBy("document.querySelector('main form button.primary').click()");
      browser.await(() -> ((String) browser.eval("location.href")).contains("/policy?applied=") ? true : null, "the applied notice");
      assertTrue(browser.text(".notice").contains("now active as version 2"), browser.text(".notice"));
      String history = browser.text("section[aria-labelledby=history] tbody");
      assertTrue(history.lines().findFirst().orElse("").matches("v2 \\(active\\)\\s+demo-console\\s.*console \\(token\\): from the browser test.*"),
          history);
      assertEquals("demo-console", client.policy(0).name(), "the controller enforces what the console applied");
    }
    browser.open(base + "/policy?from=1&to=2#diff");
    assertTrue(browser.text("figure.diff").contains("-  name: " + DemoCluster.POLICY_NAME), browser.text("figure.diff"));
    browser.open(base + "/policy");
    shot("policy");
  }

  @Test
  @Order(6)
  void changesNeedTheFormTokenAndThisOrigin() throws Exception {
    browser.open(base + "/policy");
    String cookie = "tcpopt_console=" + browser.cookies(base + "/").get("tcpopt_console");
    String token = (String) browser.eval("document.querySelector('input[name=form-token]').value");
    long before;
    try (ControllerClient client = ControllerConnector.grpc().connect(demo.target())) {
      before = client.policy(0).version();
    }
    Map<String, String> rollback = Map.of("version", "1", "confirm", "yes");
    HttpResponse<String> noToken = http.send(form("/policy/rollback", rollback, cookie, base), HttpResponse.BodyHandlers.ofString());
    assertEquals(403, noToken.statusCode(), noToken.body());
    assertTrue(noToken.body().contains("form token"), noToken.body());
    Map<String, String> withToken = Map.of("version", "1", "confirm", "yes", "form-token", token);
    HttpResponse<String> otherSite = http.send(form("/policy/rollback", withToken, cookie, "http://attacker.example"),
        HttpResponse.BodyHandlers.ofString());
    assertEquals(403, otherSite.statusCode(), otherSite.body());
    try (ControllerClient client = ControllerConnector.grpc().connect(demo.target())) {
      assertEquals(before, client.policy(0).version(), "refused requests changed nothing");
    }
    // The same request from the console's origin with the form token goes through.
    HttpResponse<String> ok = http.send(form("/policy/rollback", withToken, cookie, base), HttpResponse.BodyHandlers.ofString());
    assertEquals(303, ok.statusCode(), ok.body());
    try (ControllerClient client = ControllerConnector.grpc().connect(demo.target())) {
      assertEquals(DemoCluster.POLICY_NAME, client.policy(0).name());
      assertEquals(before + 1, client.policy(0).version());
    }
  }

  /**
   * A long download read at about 8 MB/s while the tests run: an optimized flow with a steady rate
   * for the flows page and the chart (closed in {@link #stop()}).
   */
  private static Socket startSlowDownload() throws java.io.IOException {
    Socket socket = new Socket();
    socket.connect(demo.listener(), 10_000);
    socket.getOutputStream().write(new byte[] {'D', 0, 0, 0, 0x10, 0, 0, 0, 0}); // 64 GiB: longer than the tests
    socket.getOutputStream().flush();
    slowReader = new Thread(() -> {
      byte[] buffer = new byte[64 * 1024];
      try {
        java.io.InputStream in = socket.getInputStream();
        while (in.readNBytes(buffer, 0, buffer.length) > 0) {
          Thread.sleep(8);
        }
      } catch (java.io.IOException | InterruptedException e) {
        // Closed at the end of the tests.
      }
    }, "slow-download");
    slowReader.setDaemon(true);
    slowReader.start();
    return socket;
  }

  private static void fillAndReview(String yaml, String comment) {
    browser.navigateBy("document.getElementById('policy-yaml').value = " + MiniJson.write(yaml)
        + "; document.getElementById('policy-comment').value = " + MiniJson.write(comment)
        + "; document.querySelector('form.apply').submit()");
  }

  private static int targetPort() {
    String policy = demo.samplePolicy();
    java.util.regex.Matcher m = java.util.regex.Pattern.compile("destination-port: (\\d+)").matcher(policy);
    assertTrue(m.find());
    return Integer.parseInt(m.group(1));
  }

  private static HttpRequest form(String path, Map<String, String> fields, String cookie, String origin) {
    StringBuilder body = new StringBuilder();
    fields.forEach((k, v) -> body.append(body.length() == 0 ? "" : "&").append(URLEncoder.encode(k, StandardCharsets.UTF_8))
        .append('=').append(URLEncoder.encode(v, StandardCharsets.UTF_8)));
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path))
        .header("Content-Type", "application/x-www-form-urlencoded")
        .header("Origin", origin)
        .POST(HttpRequest.BodyPublishers.ofString(body.toString()));
    if (cookie != null) {
      b.header("Cookie", cookie);
    }
    return b.build();
  }

  private static void shot(String name) {
    try {
      Files.write(SCREENSHOTS.resolve(name + ".png"), browser.screenshot());
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
}
