package io.tcpopt.cli.operator;

import io.tcpopt.cli.CliContext;
import java.util.LinkedHashMap;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code tcpopt undrain NODE}: ends a drain; the node takes new flows again (with its next heartbeat). */
@Command(name = "undrain", description = "End a drain: the node takes new flows again.")
public final class UndrainCommand extends OperatorCommand {
  @Parameters(paramLabel = "NODE", description = "The node to take new flows again.")
  String node;

  public UndrainCommand(CliContext context) {
    super(context);
  }

  @Override
  int execute(ControllerClient client) {
    Views.Node n = client.drain(node, true);
    if (output.json()) {
      Map<String, Object> json = new LinkedHashMap<>();
      json.put("node", n.name());
      json.put("draining", n.draining());
      printJson(json);
    } else {
      context.out().println(n.name() + ": undrain ordered" + (n.draining() ? " (reaches it with its next heartbeat)" : ", taking new flows"));
    }
    return 0;
  }
}
