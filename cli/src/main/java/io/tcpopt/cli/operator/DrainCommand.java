package io.tcpopt.cli.operator;

import io.tcpopt.cli.CliContext;
import io.tcpopt.cli.CliException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code tcpopt drain NODE}: the node takes no new flows (they pass through; with transparent
 * interception they go direct through the kernel), the flows it holds go on. Waits until the node
 * reports the drain and then until it holds no flow, printing the count as it falls; exits 1 if
 * that takes longer than {@code --timeout} (the drain stays on). {@code tcpopt undrain NODE} or a
 * restart of the node ends it.
 */
@Command(name = "drain", description = "Stop new flows on a node (they pass through) and wait until its flows have ended.")
public final class DrainCommand extends OperatorCommand {
  @Parameters(paramLabel = "NODE", description = "The service node or integrated node to drain (see tcpopt nodes).")
  String node;

  @Option(names = "--no-wait", description = "Return once the order is accepted; do not wait for the node to empty.")
  boolean noWait;

  @Option(names = "--timeout", paramLabel = "SECONDS", description = "Give up waiting after this long (default: 600); the drain stays on.")
  double timeoutSeconds = 600;

  @Option(names = "--interval", paramLabel = "SECONDS", hidden = true, description = "Poll interval (default: 1).")
  double intervalSeconds = 1;

  public DrainCommand(CliContext context) {
    super(context);
  }

  @Override
  int execute(ControllerClient client) {
    Views.Node n = client.drain(node, false);
    if (noWait) {
      print(n, "drain ordered");
      return 0;
    }
    if (!output.json()) {
      context.out().println("drain of " + node + " ordered; waiting for its flows to end (at most " + (long) timeoutSeconds + " s)");
    }
    long deadline = System.nanoTime() + (long) (timeoutSeconds * 1e9);
    long lastShown = -1;
    while (!(n.draining() && n.activeFlows() == 0)) {
      if (!output.json() && n.draining() && n.activeFlows() != lastShown) {
        context.out().println(node + ": draining, " + n.activeFlows() + " flow(s) active");
        lastShown = n.activeFlows();
      }
      if (System.nanoTime() > deadline) {
        throw new CliException(node + " still " + (n.draining() ? "holds " + n.activeFlows() + " flow(s)" : "has not taken the drain order")
            + " after " + (long) timeoutSeconds + " s; it stays draining (tcpopt undrain " + node + " to end it)");
      }
      sleep(Duration.ofMillis((long) (intervalSeconds * 1000)));
      n = find(client, node);
    }
    print(n, "drained");
    return 0;
  }

  static Views.Node find(ControllerClient client, String node) {
    return client.nodes().stream().filter(x -> x.name().equals(node)).findFirst()
        .orElseThrow(() -> new CliException("node " + node + " is no longer registered"));
  }

  private void print(Views.Node n, String what) {
    if (output.json()) {
      Map<String, Object> json = new LinkedHashMap<>();
      json.put("node", n.name());
      json.put("draining", n.draining());
      json.put("activeFlows", n.activeFlows());
      printJson(json);
    } else {
      context.out().println(n.name() + ": " + what + (n.draining() ? ", " + n.activeFlows() + " flow(s) active" : " (reaches it with its next heartbeat)"));
    }
  }

  private static void sleep(Duration d) {
    try {
      Thread.sleep(Math.max(10, d.toMillis()));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new CliException("interrupted");
    }
  }
}
