package io.tcpopt.cli.node;

import io.tcpopt.cli.CliContext;
import io.tcpopt.common.config.ConfigException;
import java.nio.file.Path;
import java.util.concurrent.Callable;
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
  private final CliContext context;

  @Option(names = {"-c", "--config"}, required = true, paramLabel = "FILE", description = "Node config file (YAML).")
  Path config;

  RunCommand(CliContext context) {
    this.context = context;
  }

  @Option(names = "--log-flows", description = "Log one line per flow open and close (INFO level).")
  boolean logFlows;

  @Override
  public Integer call() throws InterruptedException {
    NodeConfig nodeConfig = NodeConfig.load(config);
    if (logFlows) {
      FlowLogging.enable();
    }
    try (UntilStopped stop = new UntilStopped(context); NodeRuntime node = start(nodeConfig)) {
      context.err().println("tcpopt: node " + nodeConfig.name() + " running (" + node.describe() + "); Ctrl-C to stop");
      stop.await(null);
      LoggerFactory.getLogger(RunCommand.class).info("node {}: stopping", nodeConfig.name());
    }
    return 0;
  }

  private static NodeRuntime start(NodeConfig config) {
    try {
      return NodeRuntime.start(config);
    } catch (ConfigException e) {
      throw SetupHints.withHint(e, config);
    }
  }
}
