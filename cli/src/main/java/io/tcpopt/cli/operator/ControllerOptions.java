package io.tcpopt.cli.operator;

import io.tcpopt.cli.CliContext;
import io.tcpopt.cli.CliException;
import io.tcpopt.common.net.HostPort;
import java.nio.file.Files;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/**
 * The options shared by every command that talks to a controller: where it is ({@code
 * --controller}, else TCPOPT_CONTROLLER, else 127.0.0.1:7700), the token ({@code --token}, else
 * TCPOPT_TOKEN) and, for a controller serving TLS, the CA to trust and optionally a client
 * certificate ({@code --tls-ca/--tls-cert/--tls-key}, else TCPOPT_TLS_CA/_CERT/_KEY).
 */
public final class ControllerOptions {
  public static final String DEFAULT_CONTROLLER = "127.0.0.1:7700";

  @Option(
      names = "--controller",
      paramLabel = "HOST:PORT",
      description = "Controller gRPC address (default: $TCPOPT_CONTROLLER or " + DEFAULT_CONTROLLER + ").")
  String controller;

  @Option(names = "--token", paramLabel = "TOKEN", description = "Bearer token (default: $TCPOPT_TOKEN).")
  String token;

  @Option(names = "--tls-ca", paramLabel = "FILE",
      description = "Use TLS, trusting these CA certificates (PEM) (default: $TCPOPT_TLS_CA; none = plaintext).")
  Path tlsCa;

  @Option(names = "--tls-cert", paramLabel = "FILE", description = "Client certificate (PEM) (default: $TCPOPT_TLS_CERT).")
  Path tlsCert;

  @Option(names = "--tls-key", paramLabel = "FILE", description = "Client private key (PEM) (default: $TCPOPT_TLS_KEY).")
  Path tlsKey;

  public ControllerTarget target(CliContext context) {
    String address = controller != null ? controller : context.env().getOrDefault("TCPOPT_CONTROLLER", DEFAULT_CONTROLLER);
    String bearer = token != null ? token : context.env().get("TCPOPT_TOKEN");
    ControllerTarget plain = parse(address, bearer == null || bearer.isEmpty() ? null : bearer);
    Path ca = pathOrEnv(tlsCa, context, "TCPOPT_TLS_CA");
    Path cert = pathOrEnv(tlsCert, context, "TCPOPT_TLS_CERT");
    Path key = pathOrEnv(tlsKey, context, "TCPOPT_TLS_KEY");
    if (ca == null) {
      if (cert != null || key != null) {
        throw new CliException("--tls-cert/--tls-key need --tls-ca", CliException.USAGE);
      }
      return plain;
    }
    if ((cert == null) != (key == null)) {
      throw new CliException("give both --tls-cert and --tls-key, or neither", CliException.USAGE);
    }
    for (Path p : new Path[] {ca, cert, key}) {
      if (p != null && !Files.isReadable(p)) {
        throw new CliException("cannot read " + p, CliException.USAGE);
      }
    }
    return new ControllerTarget(plain.host(), plain.port(), plain.token(), new ControllerTarget.Tls(ca, cert, key));
  }

  private static Path pathOrEnv(Path option, CliContext context, String variable) {
    if (option != null) {
      return option;
    }
    String value = context.env().get(variable);
    return value == null || value.isEmpty() ? null : Path.of(value);
  }

  static ControllerTarget parse(String address, String token) {
    HostPort target;
    try {
      target = HostPort.parse(address); // left unresolved: gRPC resolves its own targets
    } catch (IllegalArgumentException e) {
      throw new CliException("--controller: " + e.getMessage(), CliException.USAGE);
    }
    if (target.port() < 1) {
      throw new CliException("--controller: port must be between 1 and 65535 in \"" + address + "\"", CliException.USAGE);
    }
    return new ControllerTarget(target.host(), target.port(), token);
  }
}
