package io.tcpopt.common.profile;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * TLS towards the server at the far node, as F5's server SSL profile: the plaintext the session
 * carried is encrypted again on the server leg. Without a server-SSL profile the far node talks to
 * the server in plaintext. Verification is on by default. The built-in root is {@code serverssl}.
 *
 * <pre>
 * server-ssl-profiles:
 *   intranet: { ca-file: /etc/tcpopt/tls/intranet-ca.crt, server-name: app.intranet.example }
 * </pre>
 *
 * @param caFile PEM file of the CAs a server certificate must chain to; null = the JVM's trust store
 * @param serverName the name sent as SNI and required in the server's certificate; null = no SNI,
 *     and the certificate must name the server's IP address
 * @param verify whether the server's certificate is verified (chain and name)
 * @param protocols the TLS versions offered to servers
 * @param handshakeTimeout a server that has not completed the handshake by then fails the connect
 */
public record ServerSslProfile(String name, String parent, String caFile, String serverName, boolean verify, List<String> protocols,
    Duration handshakeTimeout) {
  public static final String ROOT = "serverssl";

  public static final ProfileKind<ServerSslProfile> KIND =
      new ProfileKind<>(
          "server-ssl-profiles",
          "server-ssl",
          ROOT,
          List.of(
              ProfileField.path("ca-file"),
              ProfileField.hostName("server-name"),
              ProfileField.bool("verify"),
              ProfileField.tlsProtocols("protocols"),
              ProfileField.duration("handshake-timeout", Duration.ofMillis(100), false)),
          rootValues(),
          (name, parent, v, errors) ->
              new ServerSslProfile(
                  name, parent, v.get("ca-file"), v.get("server-name"), v.get("verify"), v.get("protocols"), v.get("handshake-timeout")));

  private static Map<String, Object> rootValues() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("ca-file", null);
    m.put("server-name", null);
    m.put("verify", true);
    m.put("protocols", List.of("TLSv1.2", "TLSv1.3"));
    m.put("handshake-timeout", Duration.ofSeconds(10));
    return m;
  }

  public ServerSslProfile {
    Objects.requireNonNull(name, "name");
    protocols = List.copyOf(protocols);
    Objects.requireNonNull(handshakeTimeout, "handshakeTimeout");
  }

  /** The built-in {@code serverssl} profile: the JVM's trust store, verification on, no SNI. */
  public static ServerSslProfile serverssl() {
    return KIND.builtIn();
  }
}
