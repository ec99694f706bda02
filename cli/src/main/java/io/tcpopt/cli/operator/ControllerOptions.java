package io.tcpopt.cli.operator;

import io.tcpopt.cli.CliContext;
import io.tcpopt.cli.CliException;
import picocli.CommandLine.Option;

/**
 * The options shared by every command that talks to a controller: where it is ({@code
 * --controller}, else TCPOPT_CONTROLLER, else 127.0.0.1:7700) and the token ({@code --token}, else
 * TCPOPT_TOKEN).
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

  public ControllerTarget target(CliContext context) {
    String address = controller != null ? controller : context.env().getOrDefault("TCPOPT_CONTROLLER", DEFAULT_CONTROLLER);
    String bearer = token != null ? token : context.env().get("TCPOPT_TOKEN");
    return parse(address, bearer == null || bearer.isEmpty() ? null : bearer);
  }

  static ControllerTarget parse(String address, String token) {
    String s = address.trim();
    int colon = s.lastIndexOf(':');
    if (colon <= 0 || colon == s.length() - 1) {
      throw new CliException("--controller: expected HOST:PORT, got \"" + address + "\"", CliException.USAGE);
    }
    String host = s.substring(0, colon);
    if (host.startsWith("[") && host.endsWith("]")) {
      host = host.substring(1, host.length() - 1);
    }
    int port;
    try {
      port = Integer.parseInt(s.substring(colon + 1));
    } catch (NumberFormatException e) {
      port = -1;
    }
    if (port < 1 || port > 65535) {
      throw new CliException("--controller: port must be between 1 and 65535 in \"" + address + "\"", CliException.USAGE);
    }
    return new ControllerTarget(host, port, token);
  }
}
