package io.tcpopt.controller;

import io.tcpopt.common.config.ConfigTree;
import io.tcpopt.common.tls.PemMaterial;
import io.tcpopt.common.tls.TlsFiles;
import io.tcpopt.controller.cluster.ClusterConfig;
import io.tcpopt.controller.console.ConsoleConfig;
import io.tcpopt.controller.handoff.HandoffListener;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The {@code controller:} section of a node config file:
 *
 * <pre>
 * controller:
 *   listen: 127.0.0.1:7700            # gRPC API (default 127.0.0.1:7700; port 0 allowed)
 *   token: s3cret                     # operator bearer token, or
 *   token-file: secrets/token         # ...read from this file (one line); neither = no token
 *   tls:                              # optional: gRPC over TLS; nodes then authenticate with mTLS
 *     certificate: certs/ctl.crt
 *     private-key: certs/ctl.key
 *     trusted: certs/ca.crt           # the CA of node certificates
 *   operator-ca: certs/operator-ca.crt   # optional (needs tls): client certificates from this CA are operators
 *   max-inbound-message-size: 4MiB    # default 4MiB
 *   max-concurrent-calls: 64          # per connection, default 64
 *   heartbeat-expiry: 5s              # node silent this long gets no new flows (default 5s)
 *   handshake-timeout: 10s            # a connection must finish TLS + HTTP/2 preface within this (default 10s)
 *   max-connection-idle: 5m           # a connection without a call this long is closed (default 5m)
 *   hazelcast: { cluster-name: tcpopt, bind-address: 127.0.0.1, port: 5701, members: [...],
 *                heartbeat: 1s, max-no-heartbeat: 10s, join-wait: 2s, minimum-cluster-size: N }
 *   handoff:                          # external mode: flows accepted here go to a service node
 *     listeners: [ { listen: 127.0.0.1:8080, target: 198.19.1.2:5201 } ]   # default none
 *     connect-timeout: 5s             # to the service node's handoff port, default 5s
 *   console:                          # operator web console; present = on (default: off)
 *     listen: 127.0.0.1:7780          # default: listen's address, port 7780 (same address family)
 * </pre>
 *
 * <p>Without a token and without TLS the API is open to anyone who can reach {@code listen}; the
 * controller logs a warning (the demo binds it to loopback). Roles: the token and operator
 * certificates are operators (change and read policy and status); a node certificate (signed by
 * {@code tls.trusted}) may only register, heartbeat and watch as the node it names. The operator CA
 * must differ from every CA in {@code tls.trusted}, or node certificates would be operators.
 *
 * @param operatorCas the operator CA certificates ({@code operator-ca}); empty = no operator certificates
 */
public record ControllerConfig(
    String nodeName,
    String site,
    InetSocketAddress listen,
    Optional<String> token,
    Optional<TlsFiles> tls,
    List<X509Certificate> operatorCas,
    int maxInboundMessageSize,
    int maxConcurrentCallsPerConnection,
    Duration heartbeatExpiry,
    ClusterConfig cluster,
    List<HandoffListener> handoffListeners,
    Duration handoffConnectTimeout,
    Optional<ConsoleConfig> console,
    ApiTimeouts apiTimeouts) {

  /**
   * How long the gRPC API keeps a connection that does nothing: {@code handshakeTimeout} to finish
   * TLS and the HTTP/2 preface, {@code maxConnectionIdle} without a call in progress.
   */
  public record ApiTimeouts(Duration handshakeTimeout, Duration maxConnectionIdle) {
    public static final ApiTimeouts DEFAULTS = new ApiTimeouts(Duration.ofSeconds(10), Duration.ofMinutes(5));
  }

  /** A controller with the default API timeouts. */
  public ControllerConfig(
      String nodeName, String site, InetSocketAddress listen, Optional<String> token, Optional<TlsFiles> tls,
      List<X509Certificate> operatorCas, int maxInboundMessageSize, int maxConcurrentCallsPerConnection, Duration heartbeatExpiry,
      ClusterConfig cluster, List<HandoffListener> handoffListeners, Duration handoffConnectTimeout, Optional<ConsoleConfig> console) {
    this(nodeName, site, listen, token, tls, operatorCas, maxInboundMessageSize, maxConcurrentCallsPerConnection,
        heartbeatExpiry, cluster, handoffListeners, handoffConnectTimeout, console, ApiTimeouts.DEFAULTS);
  }

  public ControllerConfig {
    handoffListeners = List.copyOf(handoffListeners);
    operatorCas = List.copyOf(operatorCas);
  }

  /** A controller without the web console. */
  public ControllerConfig(
      String nodeName, String site, InetSocketAddress listen, Optional<String> token, Optional<TlsFiles> tls,
      List<X509Certificate> operatorCas, int maxInboundMessageSize, int maxConcurrentCallsPerConnection, Duration heartbeatExpiry,
      ClusterConfig cluster, List<HandoffListener> handoffListeners, Duration handoffConnectTimeout) {
    this(nodeName, site, listen, token, tls, operatorCas, maxInboundMessageSize, maxConcurrentCallsPerConnection,
        heartbeatExpiry, cluster, handoffListeners, handoffConnectTimeout, Optional.empty());
  }

  public static final InetSocketAddress DEFAULT_LISTEN = new InetSocketAddress("127.0.0.1", 7700);
  public static final int DEFAULT_MAX_INBOUND_MESSAGE_SIZE = 4 << 20;
  public static final int DEFAULT_MAX_CONCURRENT_CALLS = 64;
  public static final Duration DEFAULT_HEARTBEAT_EXPIRY = Duration.ofSeconds(5);

  /** Reads {@code section}; {@code nodeName} and {@code site} come from the {@code node:} section. */
  public static ControllerConfig from(ConfigTree section, String nodeName, String site) {
    section.requireOnly(
        "listen", "token", "token-file", "tls", "operator-ca", "client-certificate-auth", "max-inbound-message-size",
        "max-concurrent-calls", "heartbeat-expiry", "hazelcast", "handoff", "console", "handshake-timeout", "max-connection-idle");
    InetSocketAddress listen = section.has("listen") ? section.socketAddress("listen") : DEFAULT_LISTEN;
    if (section.has("token") && section.has("token-file")) {
      throw section.get("token-file").error("give either token or token-file, not both");
    }
    Optional<String> token = Optional.empty();
    if (section.has("token")) {
      token = Optional.of(nonEmptyToken(section.get("token"), section.string("token")));
    } else if (section.has("token-file")) {
      ConfigTree f = section.get("token-file");
      try {
        token = Optional.of(nonEmptyToken(f, Files.readString(Path.of(f.asString())).trim()));
      } catch (IOException e) {
        throw f.error("cannot read token file: " + e.getMessage());
      }
    }
    Optional<TlsFiles> tls = section.has("tls") ? Optional.of(TlsFiles.from(section.get("tls"))) : Optional.empty();
    if (section.has("client-certificate-auth")) {
      throw section.get("client-certificate-auth").error("no longer exists: a node certificate never authorizes operator calls; "
          + "give operators certificates from a separate CA and name it in operator-ca (tcpopt certs --operators NAME)");
    }
    List<X509Certificate> operatorCas = List.of();
    if (section.has("operator-ca")) {
      ConfigTree field = section.get("operator-ca");
      if (tls.isEmpty()) {
        throw field.error("needs tls: operator certificates are client certificates of a TLS API");
      }
      operatorCas = certificates(field);
      List<X509Certificate> nodeCas = PemMaterial.certificates(tls.get().trustedCertificates());
      for (X509Certificate ca : operatorCas) {
        if (nodeCas.contains(ca)) {
          throw field.error("lists " + ca.getSubjectX500Principal().getName() + ", which also signs node certificates (tls.trusted): "
              + "node certificates would be operators; use a separate operator CA");
        }
      }
    }
    long maxMessage = section.bytes("max-inbound-message-size", DEFAULT_MAX_INBOUND_MESSAGE_SIZE);
    if (maxMessage < 1024 || maxMessage > (256 << 20)) {
      throw section.get("max-inbound-message-size").error("must be between 1KiB and 256MiB");
    }
    Duration expiry = section.duration("heartbeat-expiry", DEFAULT_HEARTBEAT_EXPIRY);
    if (expiry.toMillis() < 100) {
      throw section.get("heartbeat-expiry").error("must be at least 100ms");
    }
    ConfigTree handoff = section.section("handoff").requireOnly("listeners", "connect-timeout");
    List<HandoffListener> listeners = new ArrayList<>();
    for (ConfigTree l : handoff.list("listeners")) {
      l.requireOnly("listen", "target");
      listeners.add(new HandoffListener(l.socketAddress("listen"), l.socketAddress("target")));
    }
    Duration connectTimeout = handoff.duration("connect-timeout", Duration.ofSeconds(5));
    Duration handshakeTimeout = section.duration("handshake-timeout", ApiTimeouts.DEFAULTS.handshakeTimeout()); // default 10s
    if (handshakeTimeout.toMillis() < 100 || handshakeTimeout.compareTo(Duration.ofMinutes(2)) > 0) {
      throw section.get("handshake-timeout").error("must be between 100ms and 2m");
    }
    Duration maxIdle = section.duration("max-connection-idle", ApiTimeouts.DEFAULTS.maxConnectionIdle()); // default 5m
    if (maxIdle.toMillis() < 100) {
      throw section.get("max-connection-idle").error("must be at least 100ms");
    }
    return new ControllerConfig(
        nodeName,
        site,
        listen,
        token,
        tls,
        operatorCas,
        (int) maxMessage,
        section.integer("max-concurrent-calls", DEFAULT_MAX_CONCURRENT_CALLS, 1, 10_000),
        expiry,
        ClusterConfig.from(section.section("hazelcast")),
        listeners,
        connectTimeout,
        ConsoleConfig.from(section, listen),
        new ApiTimeouts(handshakeTimeout, maxIdle));
  }

  /** How often nodes (and the controller itself) heartbeat: a third of the expiry. */
  public Duration heartbeatInterval() {
    return heartbeatExpiry.dividedBy(3);
  }

  private static List<X509Certificate> certificates(ConfigTree field) {
    try {
      return PemMaterial.certificates(Path.of(field.asString()));
    } catch (IllegalArgumentException e) {
      throw field.error(field.asString() + ": " + e.getMessage());
    }
  }

  private static String nonEmptyToken(ConfigTree where, String token) {
    if (token.isBlank()) {
      throw where.error("token must not be empty");
    }
    return token;
  }
}
