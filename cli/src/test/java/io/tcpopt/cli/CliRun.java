package io.tcpopt.cli;

import io.tcpopt.cli.operator.ControllerConnector;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

/** Runs the CLI in-process and captures what it printed. */
public record CliRun(int exitCode, String out, String err) {

  public static CliRun run(ControllerConnector connector, String... args) {
    return run(connector, Map.of(), new AtomicBoolean(), args);
  }

  public static CliRun run(ControllerConnector connector, Map<String, String> env, AtomicBoolean stop, String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code;
    try (PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
        PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8)) {
      code = Main.execute(args, new CliContext(o, e, env, connector, stop));
    }
    return new CliRun(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  /** The CLI's error contract: exactly one line starting with "tcpopt: ". */
  public String errorLine() {
    String trimmed = err.strip();
    if (trimmed.isEmpty() || trimmed.contains("\n") || !trimmed.startsWith("tcpopt: ")) {
      throw new AssertionError("expected one 'tcpopt: ...' line on stderr, got: <" + err + ">");
    }
    return trimmed;
  }
}
