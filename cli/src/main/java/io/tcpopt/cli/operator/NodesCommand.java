package io.tcpopt.cli.operator;

import io.tcpopt.cli.CliContext;
import io.tcpopt.cli.output.Table;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;

/** {@code tcpopt nodes}: the registered controllers and service nodes with health and load. */
@Command(name = "nodes", description = "List the nodes registered with the cluster.")
public final class NodesCommand extends OperatorCommand {
  public NodesCommand(CliContext context) {
    super(context);
  }

  @Override
  int execute(ControllerClient client) {
    List<Views.Node> nodes = client.nodes();
    if (output.json()) {
      List<Object> json = new ArrayList<>();
      for (Views.Node n : nodes) {
        Map<String, Object> node = new LinkedHashMap<>();
        node.put("name", n.name());
        node.put("site", n.site());
        node.put("roles", n.roles());
        node.put("address", n.address());
        node.put("state", n.state());
        node.put("draining", n.draining());
        node.put("loadPercent", n.loadPercent());
        node.put("activeFlows", n.activeFlows());
        node.put("flowCapacity", n.flowCapacity());
        node.put("lastHeartbeat", n.lastHeartbeat() == null ? null : n.lastHeartbeat().toString());
        json.add(node);
      }
      printJson(json);
      return 0;
    }
    if (nodes.isEmpty()) {
      context.out().println("no nodes registered");
      return 0;
    }
    Table table = new Table("node", "site", "roles", "address", "state", "load", "flows", "heartbeat");
    Instant now = Instant.now();
    for (Views.Node n : nodes) {
      String heartbeat = n.lastHeartbeat() == null ? null : Duration.between(n.lastHeartbeat(), now).toSeconds() + "s ago";
      table.row(n.name(), n.site(), String.join(",", n.roles()), n.address(), n.state() + (n.draining() ? ", draining" : ""),
          String.format("%.1f%%", n.loadPercent()), n.activeFlows() + "/" + n.flowCapacity(), heartbeat);
    }
    table.print(context.out());
    return 0;
  }
}
