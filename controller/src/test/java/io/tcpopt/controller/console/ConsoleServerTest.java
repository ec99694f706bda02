package io.tcpopt.controller.console;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tcpopt.common.tls.DemoCertificates;
import io.tcpopt.common.tls.PemMaterial;
import io.tcpopt.common.tls.TlsContexts;
import io.tcpopt.common.tls.TlsFiles;
import io.tcpopt.controller.Controller;
import io.tcpopt.controller.ControllerConfig;
import io.tcpopt.controller.TestClusters;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The console's credentials are the gRPC API's: over HTTPS a verified operator client certificate
 * is enough, a token works as a bearer header, and without either the console answers 401. With no
 * credentials configured at all it is open, like the API, but then answers only to IP literals
 * (DNS rebinding) and still takes changes only with the page's form token from its own origin.
 */
class ConsoleServerTest {
  @TempDir Path dir;

  private static Controller controller(Optional<String> token, Optional<TlsFiles> tls) {
    return controller(token, tls, List.of());
  }

  private static Controller controller(Optional<String> token, Optional<TlsFiles> tls, List<java.security.cert.X509Certificate> operatorCas) {
    ControllerConfig config = new ControllerConfig("ctl-console", "branch", new InetSocketAddress("127.0.0.1", 0), token, tls, operatorCas,
        1 << 20, 16, Duration.ofSeconds(3), TestClusters.single(), List.of(), Duration.ofSeconds(1),
        Optional.of(new ConsoleConfig(new InetSocketAddress("127.0.0.1", 0))));
    return new Controller(config, null, new SimpleMeterRegistry()).start();
  }

  @Test
  void overHttpsAnOperatorCertificateOrTheTokenIsNeeded() throws Exception {
    Map<String, TlsFiles> certs = DemoCertificates.generate(dir, List.of("ctl-console", "sn-1"));
    TlsFiles alice = DemoCertificates.generateOperators(dir, List.of("alice")).get("alice");
    Path nodeCa = certs.get("ctl-console").trustedCertificates();
    try (Controller controller = controller(Optional.of("s3cret"), Optional.of(certs.get("ctl-console")),
        PemMaterial.certificates(alice.trustedCertificates()))) {
      String url = controller.consoleUrl().orElseThrow();
      assertTrue(url.startsWith("https://127.0.0.1:"), url);
      HttpClient anonymous = HttpClient.newBuilder().sslContext(trustOnly(nodeCa)).build();
      HttpClient operator = HttpClient.newBuilder()
          .sslContext(TlsContexts.jdkServer(new TlsFiles(alice.certificateChain(), alice.privateKey(), nodeCa))).build();
      HttpClient node = HttpClient.newBuilder().sslContext(TlsContexts.jdkServer(certs.get("sn-1"))).build();

      HttpResponse<String> refused = anonymous.send(get(url + "nodes"), HttpResponse.BodyHandlers.ofString());
      assertEquals(401, refused.statusCode());
      assertFalse(refused.body().contains("ctl-console-controller"), "nothing about the cluster");
      assertEquals(401, node.send(get(url + "nodes"), HttpResponse.BodyHandlers.ofString()).statusCode(),
          "a node certificate is no operator's");

      HttpResponse<String> byCertificate = operator.send(get(url + "nodes"), HttpResponse.BodyHandlers.ofString());
      assertEquals(200, byCertificate.statusCode(), byCertificate.body());
      assertTrue(byCertificate.body().contains("Operator (client certificate)"), byCertificate.body());
      String cookie = byCertificate.headers().firstValue("Set-Cookie").orElseThrow();
      assertTrue(cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict") && cookie.contains("Secure"), cookie);

      HttpResponse<String> byToken = anonymous.send(HttpRequest.newBuilder(URI.create(url + "api/throughput"))
          .header("Authorization", "Bearer s3cret").build(), HttpResponse.BodyHandlers.ofString());
      assertEquals(200, byToken.statusCode());
      assertTrue(byToken.body().startsWith("{\"intervalSeconds\":1,\"samples\":["), byToken.body());
      HttpResponse<String> wrongToken = anonymous.send(HttpRequest.newBuilder(URI.create(url))
          .header("Authorization", "Bearer guess").build(), HttpResponse.BodyHandlers.ofString());
      assertEquals(401, wrongToken.statusCode());
    }
  }

  @Test
  void anOpenConsoleAnswersOnlyToAddressesAndStillNeedsTheFormToken() throws Exception {
    try (Controller controller = controller(Optional.empty(), Optional.empty())) {
      InetSocketAddress console = new InetSocketAddress("127.0.0.1", URI.create(controller.consoleUrl().orElseThrow()).getPort());
      String ok = raw(console, "GET /nodes HTTP/1.1\r\nHost: 127.0.0.1:" + console.getPort() + "\r\nConnection: close\r\n\r\n");
      assertTrue(ok.startsWith("HTTP/1.1 200"), ok);
      assertTrue(ok.contains("Open console: no operator credentials are configured"), ok);
      String rebound = raw(console, "GET /nodes HTTP/1.1\r\nHost: attacker.example:" + console.getPort() + "\r\nConnection: close\r\n\r\n");
      assertTrue(rebound.startsWith("HTTP/1.1 403"), rebound);

      String body = "version=1&confirm=yes";
      String post = raw(console, "POST /policy/rollback HTTP/1.1\r\nHost: 127.0.0.1:" + console.getPort() + "\r\nOrigin: http://127.0.0.1:"
          + console.getPort() + "\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: " + body.length()
          + "\r\nConnection: close\r\n\r\n" + body);
      assertTrue(post.startsWith("HTTP/1.1 403"), post);
      assertTrue(post.contains("form token"), post);
    }
  }

  @Test
  void signInRedirectsOnlyWithinTheConsole() {
    assertEquals("/flows?view=closed", ConsoleRoutes.localPath("/flows?view=closed"));
    assertEquals("/", ConsoleRoutes.localPath("//attacker.example/"));
    assertEquals("/", ConsoleRoutes.localPath("/\\attacker.example"));
    assertEquals("/", ConsoleRoutes.localPath("https://attacker.example/"));
  }

  private static HttpRequest get(String url) {
    return HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10)).build();
  }

  private static SSLContext trustOnly(Path ca) throws Exception {
    KeyStore trust = KeyStore.getInstance("PKCS12");
    trust.load(null, null);
    try (InputStream in = Files.newInputStream(ca)) {
      trust.setCertificateEntry("ca", CertificateFactory.getInstance("X.509").generateCertificate(in));
    }
    TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    tmf.init(trust);
    SSLContext context = SSLContext.getInstance("TLS");
    context.init(null, tmf.getTrustManagers(), null);
    return context;
  }

  private static String raw(InetSocketAddress address, String request) throws Exception {
    try (Socket s = new Socket()) {
      s.connect(address, 5000);
      s.setSoTimeout(10_000);
      OutputStream out = s.getOutputStream();
      out.write(request.getBytes(StandardCharsets.US_ASCII));
      out.flush();
      return new String(s.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    }
  }
}
