package io.tcpopt.cli.demo;

import io.tcpopt.cli.CliContext;
import io.tcpopt.cli.CliException;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code tcpopt demo}: see the package documentation. */
@Command(name = "demo", description = "Run a controller and a branch/DC service-node pair on loopback with a sample transfer.")
public final class DemoCommand implements Callable<Integer> {
  private final CliContext context;

  @Option(names = "--duration", paramLabel = "DURATION", description = "Stop after this long, e.g. 20s or 2m (default: until Ctrl-C).")
  String duration;

  DemoCommand(CliContext context) {
    this.context = context;
  }

  @Override
  public Integer call() {
    throw new CliException("demo is not available in this build yet");
  }
}
