package io.tcpopt.cli.node;

import io.tcpopt.cli.CliContext;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code tcpopt run --config FILE}: starts a node and keeps it running until SIGINT/SIGTERM (or,
 * in-process, until {@link CliContext#stop()} is set); then closes every role — listeners, sessions,
 * interception rules — and exits 0.
 */
@Command(name = "run", description = "Run a node (controller, service node or both) from a config file.")
public final class RunCommand implements Callable<Integer> {
  private static final Logger log = LoggerFactory.getLogger(RunCommand.class);

  private final CliContext context;

  @Option(names = {"-c", "--config"}, required = true, paramLabel = "FILE", description = "Node config file (YAML).")
  Path config;

  RunCommand(CliContext context) {
    this.context = context;
  }

  @Override
  public Integer call() throws InterruptedException {
    NodeConfig nodeConfig = NodeConfig.load(config);
    CountDownLatch closed = new CountDownLatch(1);
    Thread hook = new Thread(() -> {
      context.stop().set(true);
      try {
        closed.await(15, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }, "tcpopt-shutdown");
    try (NodeRuntime node = NodeRuntime.start(nodeConfig)) {
      Runtime.getRuntime().addShutdownHook(hook);
      context.err().println("tcpopt: node " + nodeConfig.name() + " (" + node.describe() + ") running; Ctrl-C to stop");
      while (!context.stop().get()) {
        Thread.sleep(100);
      }
      log.info("node {}: stopping", nodeConfig.name());
    } finally {
      closed.countDown();
      try {
        Runtime.getRuntime().removeShutdownHook(hook);
      } catch (IllegalStateException | IllegalArgumentException e) {
        // Already shutting down (the hook is running), or the hook was never added.
      }
    }
    return 0;
  }
}
