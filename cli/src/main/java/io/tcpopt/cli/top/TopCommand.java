package io.tcpopt.cli.top;

import io.tcpopt.cli.CliContext;
import io.tcpopt.cli.CliException;
import io.tcpopt.cli.node.UntilStopped;
import io.tcpopt.cli.operator.ControllerClient;
import io.tcpopt.cli.operator.ControllerOptions;
import io.tcpopt.cli.operator.Views;
import java.io.IOException;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code tcpopt top}: refreshes a {@link TopView} of the controller every {@code --interval} until
 * {@code q} (or Ctrl-C), in the terminal's alternate screen with raw keyboard input ({@link
 * RawTerminal}), and leaves the terminal as it found it. Without a terminal, or with {@code
 * --batch}, it prints plain frames one after another ({@code -n} of them, like {@code top -b -n}).
 */
@Command(name = "top", description = "Live view of peers (RTT, cwnd, throughput), the busiest flows and the policy; q quits.")
public final class TopCommand implements Callable<Integer> {
  private final CliContext context;

  @Mixin ControllerOptions controllerOptions;

  @Option(names = "--interval", paramLabel = "SECONDS", description = "Refresh interval (default: 1).")
  double intervalSeconds = 1;

  @Option(names = {"-n", "--iterations"}, paramLabel = "N", description = "Stop after N frames (default: until q or Ctrl-C).")
  int iterations = Integer.MAX_VALUE;

  @Option(names = {"-b", "--batch"}, description = "Plain frames one after another, no screen control (default when not on a terminal).")
  boolean batch;

  TopCommand(CliContext context) {
    this.context = context;
  }

  @Override
  public Integer call() {
    if (intervalSeconds < 0.1) {
      throw new CliException("--interval must be at least 0.1 seconds", CliException.USAGE);
    }
    if (iterations < 1) {
      throw new CliException("-n/--iterations must be at least 1", CliException.USAGE);
    }
    try (ControllerClient client = context.connector().connect(controllerOptions.target(context))) {
      if (batch || System.console() == null) {
        batch(client);
      } else {
        interactive(client);
      }
    }
    return 0;
  }

  private void batch(ControllerClient client) {
    FlowRates rates = new FlowRates();
    for (int i = 0; i < iterations && !context.stop().get(); i++) {
      if (i > 0) {
        if (!pause(null)) {
          return;
        }
        context.out().println();
      }
      frame(client, rates, 160, 60, "").forEach(context.out()::println);
      context.out().flush();
    }
  }

  private void interactive(ControllerClient client) {
    try (UntilStopped stop = new UntilStopped(context); RawTerminal terminal = openTerminal()) {
      FlowRates rates = new FlowRates();
      String footer = String.format("q quit - refresh every %.1fs - controller %s", intervalSeconds, controllerOptions.target(context));
      for (int i = 0; i < iterations && !context.stop().get(); i++) {
        int[] size = terminal.size();
        terminal.draw(frame(client, rates, size[0], size[1], footer));
        if (i + 1 < iterations && !pause(terminal)) {
          break;
        }
      }
    }
  }

  private RawTerminal openTerminal() {
    try {
      return RawTerminal.open(context.out(), System.in);
    } catch (IOException e) {
      throw new CliException("cannot take over the terminal (" + e.getMessage() + "); use --batch");
    }
  }

  private List<String> frame(ControllerClient client, FlowRates rates, int width, int height, String footer) {
    Views.ClusterStatus status = client.status();
    List<Views.Flow> flows = client.flows(false);
    Map<String, Double> now = rates.update(flows, System.nanoTime());
    return TopView.render(status, flows, now, Instant.now(), width, height, footer);
  }

  /** Waits one interval; false when the user quit (q) or a stop was requested. */
  private boolean pause(RawTerminal terminal) {
    long until = System.nanoTime() + (long) (intervalSeconds * 1e9);
    while (!context.stop().get() && System.nanoTime() < until) {
      try {
        int key = terminal == null ? -1 : terminal.key();
        if (key == 'q' || key == 'Q') {
          return false;
        }
        Thread.sleep(30);
      } catch (IOException e) {
        return true;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return false;
      }
    }
    return !context.stop().get();
  }
}
