package io.tcpopt.cli.demo;

import io.tcpopt.cli.CliException;
import io.tcpopt.cli.node.NodeConfig;
import io.tcpopt.cli.node.NodeRuntime;
import io.tcpopt.cli.operator.ControllerConnector;
import io.tcpopt.cli.operator.ControllerTarget;
import io.tcpopt.cli.operator.ControllerClient;
import io.tcpopt.cli.operator.Views;
import io.tcpopt.common.config.ConfigTree;
import io.tcpopt.common.net.FreePort;
import io.tcpopt.common.net.HostPort;
import io.tcpopt.common.tls.DemoCertificates;
import io.tcpopt.common.tls.TlsFiles;
import io.tcpopt.servicenode.PeerSessionStatus;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.stream.Stream;

/**
 * The demo deployment in one JVM, on loopback: generated certificates, a sample server "behind the
 * DC", a DC service node ({@code dc-1}) and an integrated branch node ({@code branch-1}: controller
 * plus service node, with an explicit listener forwarding to the sample server, and the web console),
 * and the sample policy applied through the controller's gRPC API. The controller requires a
 * random operator token, generated per run ({@link #token()}). Nodes are started from YAML through the same
 * {@link NodeConfig}/{@link NodeRuntime} path as {@code tcpopt run}.
 */
public final class DemoCluster implements AutoCloseable {
  public static final String POLICY_NAME = "demo-appqoe";

  private final Path dir;
  private SampleServer server;
  private NodeRuntime dc;
  private NodeRuntime branch;
  private String controller;
  private final String token = randomToken();

  private DemoCluster(Path dir) {
    this.dir = dir;
  }

  /** As {@link #start(int, int, Consumer)} with the console on a free port. */
  public static DemoCluster start(int controllerPort, Consumer<String> progress) throws IOException, InterruptedException {
    return start(controllerPort, 0, progress);
  }

  /**
   * Starts everything; {@code progress} hears one line per step. A port of 0 picks a free one.
   */
  public static DemoCluster start(int controllerPort, int consolePort, Consumer<String> progress) throws IOException, InterruptedException {
    DemoCluster demo = new DemoCluster(Files.createTempDirectory("tcpopt-demo-"));
    try {
      demo.startAll(controllerPort, consolePort, progress);
      return demo;
    } catch (IOException | InterruptedException | RuntimeException e) {
      demo.close();
      throw e;
    }
  }

  private void startAll(int controllerPort, int consolePort, Consumer<String> progress) throws IOException, InterruptedException {
    progress.accept("generating a demo CA and node certificates in " + dir);
    Map<String, TlsFiles> certs = DemoCertificates.generate(dir.resolve("certs"), List.of("branch-1", "dc-1"));
    server = SampleServer.start();
    progress.accept("sample server (the application behind the DC) on " + hostPort(server.address()));

    dc = NodeRuntime.start(NodeConfig.from(ConfigTree.parse(
        "node: { name: dc-1, site: dc, roles: [service-node] }\n"
            + "service-node:\n"
            + "  wan:\n"
            + "    listen: 127.0.0.1:0\n"
            + tls(certs.get("dc-1"))
            + "    link: { bandwidth: 1Gbit, rtt: 10ms }\n"
            + "  peers: [ { name: branch-1, site: branch } ]\n"
            + "  serves: [127.0.0.0/8]              # the demo server runs on loopback\n"
            + "metrics: { listen: 127.0.0.1:0 }\n",
        "demo dc-1 config")));
    progress.accept("DC service node dc-1: WAN " + hostPort(dc.serviceNode().wanAddress()));

    branch = NodeRuntime.start(NodeConfig.from(ConfigTree.parse(
        "node: { name: branch-1, site: branch, roles: [controller, service-node] }\n"
            + "service-node:\n"
            + "  wan:\n"
            + "    listen: 127.0.0.1:0\n"
            + tls(certs.get("branch-1"))
            + "    link: { bandwidth: 1Gbit, rtt: 10ms }\n"
            + "  peers:\n"
            + "    - { name: dc-1, site: dc, address: " + hostPort(dc.serviceNode().wanAddress()) + ", prefixes: [127.0.0.0/8] }\n"
            + "  interception:\n"
            + "    listeners:\n"
            + "      - { listen: 127.0.0.1:0, target: " + hostPort(server.address()) + ", site: dc }\n"
            + "controller:\n"
            + "  listen: 127.0.0.1:" + controllerPort + "\n"
            + "  token: " + token + "\n"
            + "  console: { listen: 127.0.0.1:" + consolePort + " }\n"
            + "  hazelcast: { cluster-name: tcpopt-demo-" + ProcessHandle.current().pid() + ", port: " + FreePort.belowEphemeralRange()
            + ", join-wait: 0s }\n"
            + "metrics: { listen: 127.0.0.1:0 }\n",
        "demo branch-1 config")));
    controller = hostPort(branch.controller().grpcAddress());
    progress.accept("branch node branch-1 (controller + service node): controller " + controller
        + ", listener " + hostPort(listener()) + " -> " + hostPort(server.address()) + ", console " + consoleUrl());

    progress.accept("waiting for the branch-1 -> dc-1 session (mutual TLS 1.3)");
    awaitSession(Duration.ofSeconds(15));

    Views.PolicyVersion v = applyPolicy(Duration.ofSeconds(20));
    progress.accept("applied policy " + v.name() + " as version " + v.version() + " through the controller API");
  }

  /**
   * Applies the sample policy, retrying while the just-started controller still refuses writes
   * (its Hazelcast split-brain protection needs a moment to count the single member).
   */
  private Views.PolicyVersion applyPolicy(Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    try (ControllerClient client = ControllerConnector.grpc().connect(target())) {
      while (true) {
        try {
          return client.applyPolicy(samplePolicy(), "demo sample policy");
        } catch (CliException e) {
          if (!e.getMessage().contains("policy write refused") || System.nanoTime() - deadline > 0) {
            throw e;
          }
          Thread.sleep(200);
        }
      }
    }
  }

  private void awaitSession(Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() - deadline < 0) {
      for (PeerSessionStatus s : branch.serviceNode().sessions()) {
        if (s.name().equals("dc-1") && s.connectionsUp() == s.connectionsConfigured()) { // the whole pool, its express connection too
          return;
        }
      }
      Thread.sleep(50);
    }
    throw new CliException("the branch-1 -> dc-1 session did not come up within " + timeout.toSeconds() + "s");
  }

  /** The sample policy: optimize loopback clients to the sample server via the branch group. */
  public String samplePolicy() {
    return "prefix-lists:\n"
        + "  DEMO-CLIENTS: [127.0.0.0/8]\n"
        + "  DEMO-SERVERS: [" + server.address().getAddress().getHostAddress() + "/32]\n"
        + "service-node-groups:\n"
        + "  SNG-BRANCH: { site: branch }\n"
        + "data-policy:\n"
        + "  name: " + POLICY_NAME + "\n"
        + "  sequences:\n"
        + "    - seq: 10\n"
        + "      match: { source-prefix-list: DEMO-CLIENTS, destination-prefix-list: DEMO-SERVERS, destination-port: "
        + server.address().getPort() + " }\n"
        + "      action: { optimize: { service-node-group: SNG-BRANCH } }\n"
        + "  default-action: pass-through\n";
  }

  private static String tls(TlsFiles files) {
    return "    tls:\n"
        + "      certificate: \"" + files.certificateChain().toAbsolutePath() + "\"\n"
        + "      private-key: \"" + files.privateKey().toAbsolutePath() + "\"\n"
        + "      trusted: \"" + files.trustedCertificates().toAbsolutePath() + "\"\n";
  }

  static String hostPort(InetSocketAddress a) {
    return HostPort.format(a);
  }

  /** Where a client connects to be optimized: the branch's explicit listener. */
  public InetSocketAddress listener() {
    return branch.serviceNode().listenerAddresses().get(0);
  }

  /** The controller's gRPC address as HOST:PORT. */
  public String controller() {
    return controller;
  }

  public ControllerTarget target() {
    InetSocketAddress a = branch.controller().grpcAddress();
    return new ControllerTarget(a.getAddress().getHostAddress(), a.getPort(), token);
  }

  /** The operator token of this run (the CLI's {@code --token}, the console's sign-in). */
  public String token() {
    return token;
  }

  /** The web console's URL, {@code http://127.0.0.1:PORT/}. */
  public String consoleUrl() {
    return branch.controller().consoleUrl().orElseThrow();
  }

  private static String randomToken() {
    byte[] b = new byte[18];
    new java.security.SecureRandom().nextBytes(b);
    return java.util.Base64.getUrlEncoder().withoutPadding().encodeToString(b);
  }

  public NodeRuntime branch() {
    return branch;
  }

  public NodeRuntime dc() {
    return dc;
  }

  @Override
  public void close() {
    if (branch != null) {
      branch.close();
    }
    if (dc != null) {
      dc.close();
    }
    if (server != null) {
      try {
        server.close();
      } catch (IOException e) {
        // Closing a listening socket: nothing more to do.
      }
    }
    try (Stream<Path> files = Files.walk(dir)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
