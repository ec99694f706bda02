package io.tcpopt.cli;

import io.tcpopt.cli.operator.ControllerConnector;
import java.io.PrintStream;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * What a command may touch of the outside world: its output streams, the environment
 * (TCPOPT_CONTROLLER, TCPOPT_TOKEN), how to reach a controller, and a flag that asks long-running
 * commands ({@code run}, {@code demo}, {@code flows --watch}) to stop. Tests build their own.
 */
public record CliContext(
    PrintStream out, PrintStream err, Map<String, String> env, ControllerConnector connector, AtomicBoolean stop) {

  public static CliContext system() {
    return new CliContext(System.out, System.err, System.getenv(), ControllerConnector.grpc(), new AtomicBoolean());
  }
}
