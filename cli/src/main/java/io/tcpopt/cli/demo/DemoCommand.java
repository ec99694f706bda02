package io.tcpopt.cli.demo;

import io.tcpopt.cli.CliContext;
import io.tcpopt.cli.CliException;
import io.tcpopt.cli.Main;
import io.tcpopt.cli.node.FlowLogging;
import io.tcpopt.cli.node.UntilStopped;
import io.tcpopt.common.units.Units;
import io.tcpopt.common.config.ConfigException;
import io.tcpopt.common.config.ConfigTree;
import java.io.IOException;
import java.io.PrintStream;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code tcpopt demo}: starts the {@link DemoCluster}, runs a checked sample transfer through the
 * branch listener, prints {@code status} and {@code flows} exactly as the operator commands would,
 * and keeps running (with one interactive flow open) until Ctrl-C or {@code --duration}.
 */
@Command(name = "demo", description = "Run a controller and a branch/DC service-node pair on loopback with a sample transfer.")
public final class DemoCommand implements Callable<Integer> {
  private static final int DEFAULT_CONTROLLER_PORT = 7700;
  private static final int DEFAULT_CONSOLE_PORT = 7780;
  private static final Duration IO_TIMEOUT = Duration.ofSeconds(60);

  private final CliContext context;

  @Option(names = "--duration", paramLabel = "DURATION", description = "Stop after this long: 20 (seconds), 20s, 2m (default: until Ctrl-C).")
  String duration;

  @Option(names = "--size", paramLabel = "SIZE", description = "Size of the sample transfer (default: 64MiB).")
  String size = "64MiB";

  @Option(names = "--log-flows", description = "Log one line per flow open and close.")
  boolean logFlows;

  @Option(names = "--verbose", description = "Show the nodes' INFO logs (default: warnings only).")
  boolean verbose;

  DemoCommand(CliContext context) {
    this.context = context;
  }

  @Override
  public Integer call() throws Exception {
    Duration limit = duration == null ? null : parseDuration(duration);
    long bytes = parseSize(size);
    if (logFlows) {
      FlowLogging.enable();
    }
    PrintStream out = context.out();
    int port = portFree(DEFAULT_CONTROLLER_PORT) ? DEFAULT_CONTROLLER_PORT : 0;
    int consolePort = portFree(DEFAULT_CONSOLE_PORT) ? DEFAULT_CONSOLE_PORT : 0;
    try (UntilStopped stop = new UntilStopped(context);
        DemoCluster demo = DemoCluster.start(port, consolePort, line -> out.println("* " + line))) {
      out.printf("* sample transfer: %s from the sample server through branch-1 -> dc-1 (SHA-256 checked)%n", Units.bytes(bytes));
      Transfer.Result result = Transfer.download(demo.listener(), bytes, IO_TIMEOUT,
          done -> out.printf("    %3d%%  %s%n", done * 100 / bytes, Units.bytes(done)));
      if (!result.digestMatches()) {
        throw new CliException("sample transfer corrupted or cut short: got " + result.bytes() + " of " + bytes + " bytes");
      }
      out.printf("* transfer done: %s in %.2fs (%s), SHA-256 matches%n", Units.bytes(result.bytes()),
          result.elapsed().toMillis() / 1000.0, Units.bitsPerSecond(result.bitsPerSecond()));
      try (Socket interactive = Transfer.openEcho(demo.listener(), IO_TIMEOUT)) {
        out.println("* opened an interactive (echo) flow that stays open while the demo runs");
        String controller = "--controller=" + demo.controller();
        String token = "--token=" + demo.token();
        section(out, "tcpopt status", "status", controller, token);
        section(out, "tcpopt flows", "flows", controller, token);
        section(out, "tcpopt flows --closed", "flows", "--closed", controller, token);
        out.println();
        out.println("* console: " + demo.consoleUrl() + " (sign in with the operator token " + demo.token() + ")");
        out.println();
        out.println("The demo keeps running" + (limit == null ? " until Ctrl-C" : " for " + Units.duration(limit))
            + ". From another terminal:");
        out.println("  export TCPOPT_CONTROLLER=" + demo.controller() + " TCPOPT_TOKEN=" + demo.token());
        out.println("  ./tcpopt status");
        out.println("  ./tcpopt top");
        out.println("  ./tcpopt flows --watch");
        out.println("  curl -s http://" + DemoCluster.hostPort(demo.branch().metrics().address()) + "/metrics | grep tcpopt_");
        out.flush();
        stop.await(limit);
      }
      out.println("* stopping");
    }
    return 0;
  }

  private void section(PrintStream out, String title, String... args) {
    out.println();
    out.println("$ " + title);
    int code = Main.execute(args, context);
    if (code != 0) {
      throw new CliException(title + " failed with exit code " + code);
    }
  }

  static Duration parseDuration(String text) {
    String s = text.trim();
    try {
      if (s.matches("\\d+")) {
        return Duration.ofSeconds(Long.parseLong(s));
      }
      return ConfigTree.of("--duration", s).asDuration();
    } catch (ConfigException | NumberFormatException e) {
      throw new CliException("--duration: expected e.g. 20, 20s or 2m, got \"" + text + "\"", CliException.USAGE);
    }
  }

  static long parseSize(String text) {
    long n;
    try {
      n = ConfigTree.of("--size", text).asBytes();
    } catch (ConfigException e) {
      throw new CliException("--size: expected e.g. 64MiB, got \"" + text + "\"", CliException.USAGE);
    }
    if (n <= 0 || n > (64L << 30)) {
      throw new CliException("--size: must be between 1 byte and 64GiB", CliException.USAGE);
    }
    return n;
  }

  private static boolean portFree(int port) {
    try (ServerSocket s = new ServerSocket(port, 1, java.net.InetAddress.getLoopbackAddress())) {
      return true;
    } catch (IOException e) {
      return false;
    }
  }
}
