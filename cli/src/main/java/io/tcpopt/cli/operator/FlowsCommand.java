package io.tcpopt.cli.operator;

import io.tcpopt.cli.CliContext;
import io.tcpopt.cli.CliException;
import io.tcpopt.cli.output.Table;
import io.tcpopt.common.net.HostPort;
import io.tcpopt.common.units.Units;
import io.tcpopt.proto.v1.FlowState;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code tcpopt flows}: active flows (or, with {@code --closed}, the closed-flow history with the
 * close or pass-through reason), filtered by site, node, address, port and state; {@code --watch}
 * redraws the table in place until interrupted.
 */
@Command(name = "flows", description = "List active flows, or closed ones with --closed.")
public final class FlowsCommand extends OperatorCommand {
  @Option(names = "--closed", description = "Show the closed-flow history with close or pass-through reasons.")
  boolean closed;

  @Option(names = "--watch", description = "Redraw every --interval until interrupted (table output only).")
  boolean watch;

  @Option(names = "--interval", paramLabel = "SECONDS", description = "Refresh interval for --watch (default: 2).")
  double intervalSeconds = 2;

  @Option(names = "--count", paramLabel = "N", hidden = true, description = "Stop --watch after N refreshes.")
  int count = Integer.MAX_VALUE;

  @Option(names = "--site", description = "Only flows handled at this site.")
  String site;

  @Option(names = "--node", description = "Only flows on this service node.")
  String node;

  @Option(names = "--address", paramLabel = "IP", description = "Only flows whose source or destination is this IP (IPv6 in any notation, brackets optional).")
  String address;

  @Option(names = "--port", description = "Only flows whose source or destination port is this.")
  Integer port;

  /**
   * The states the STATE column writes. A misspelt one (optimised) used to match nothing and print
   * "no active flows", which reads as an answer (a stranger's fresh-clone walk, 10:47 UTC).
   */
  private static final List<String> STATES = Arrays.stream(FlowState.values())
      .filter(s -> s != FlowState.FLOW_STATE_UNSPECIFIED && s != FlowState.UNRECOGNIZED)
      .map(s -> s.name().toLowerCase(Locale.ROOT))
      .toList();

  @Option(names = "--state", description = "Only flows in this state, as the STATE column writes it (e.g. optimized, pass_through; pass-through too).")
  String state;

  public FlowsCommand(CliContext context) {
    super(context);
  }

  @Override
  int execute(ControllerClient client) {
    if (watch && output.json()) {
      throw new CliException("--watch works with table output only", CliException.USAGE);
    }
    if (intervalSeconds <= 0) {
      throw new CliException("--interval must be positive", CliException.USAGE);
    }
    if (port != null && (port < 1 || port > 65535)) {
      throw new CliException("--port must be 1-65535, not " + port, CliException.USAGE);
    }
    if (state != null && !STATES.contains(state.replace('-', '_').toLowerCase(Locale.ROOT))) {
      throw new CliException("--state must be one of " + String.join(", ", STATES) + ", not " + state, CliException.USAGE);
    }
    if (!watch) {
      print(client.flows(closed).stream().filter(this::matches).toList(), false);
      return 0;
    }
    for (int i = 0; i < count && !context.stop().get(); i++) {
      List<Views.Flow> flows = client.flows(closed).stream().filter(this::matches).toList();
      context.out().print("\033[H\033[2J");
      context.out().printf("tcpopt flows%s — every %.1fs, Ctrl-C to stop%n%n", closed ? " --closed" : "", intervalSeconds);
      print(flows, true);
      context.out().flush();
      if (i + 1 < count) {
        sleep();
      }
    }
    return 0;
  }

  private void sleep() {
    long until = System.nanoTime() + (long) (intervalSeconds * 1e9);
    while (!context.stop().get() && System.nanoTime() < until) {
      try {
        Thread.sleep(50);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }

  boolean matches(Views.Flow f) {
    return (site == null || site.equals(f.site()))
        && (node == null || node.equals(f.node()))
        && (state == null || state.replace('-', '_').equalsIgnoreCase(f.state()))
        && (address == null || host(f.source()).equals(canonical(address)) || host(f.destination()).equals(canonical(address)))
        && (port == null || port(f.source()) == port || port(f.destination()) == port);
  }

  /**
   * An IP literal as the flow table writes it (IPv6 compressed, RFC 5952), so that {@code
   * 2001:2:0:1801:0:0:0:2} or {@code [2001:2:0:1801::2]} find {@code [2001:2:0:1801::2]:40000};
   * anything else as typed. Literals only: no name is ever resolved.
   */
  static String canonical(String address) {
    String bare = address.startsWith("[") && address.endsWith("]") ? address.substring(1, address.length() - 1) : address;
    if (bare.indexOf(':') < 0 && !bare.matches("[0-9]{1,3}(\\.[0-9]{1,3}){3}")) {
      return address;
    }
    try {
      return HostPort.address(InetAddress.getByName(bare)); // a literal: parsed, not looked up
    } catch (UnknownHostException e) {
      return address;
    }
  }

  private static String host(String hostPort) {
    return HostPort.lenient(hostPort).host();
  }

  private static int port(String hostPort) {
    return HostPort.lenient(hostPort).port();
  }

  private void print(List<Views.Flow> flows, boolean watching) {
    if (output.json()) {
      List<Object> json = new ArrayList<>();
      for (Views.Flow f : flows) {
        json.add(toJson(f));
      }
      printJson(json);
      return;
    }
    PrintStream out = context.out();
    // A last column for the application profiles' figures, only when a flow has some.
    boolean details = flows.stream().anyMatch(f -> !details(f).isEmpty());
    List<String> headers = new ArrayList<>(closed
        ? List.of("flow", "vpn", "source", "destination", "node", "services", "state", "client→", "←server", "duration", "reason")
        : List.of("flow", "vpn", "source", "destination", "node", "services", "state", "client→", "←server", "rate", "wan rtt"));
    // LAN against WAN bytes (data reduction), only when a flow was carried over a session.
    boolean wan = flows.stream().anyMatch(f -> f.wanBytes() >= 0);
    if (wan) {
      headers.addAll(List.of("lan", "wan", "reduction"));
    }
    if (details) {
      headers.add("http reuse / tls");
    }
    Table table = new Table(headers.toArray(String[]::new));
    for (Views.Flow f : flows) {
      Object last1 = closed ? Units.duration(f.duration() == null ? Duration.ZERO : f.duration()) : Units.bitsPerSecond(f.rateBitsPerSecond());
      Object last2 = closed ? f.reason() : Units.micros(f.wanRttMicros());
      List<Object> cells = new ArrayList<>(java.util.Arrays.asList(f.id(), f.vpn(), f.source(), f.destination(), f.node(), f.services(),
          f.state().toLowerCase(Locale.ROOT), Units.bytes(f.bytesFromClient()), Units.bytes(f.bytesToClient()), last1, last2));
      if (wan) {
        boolean carried = f.wanBytes() >= 0;
        cells.add(Units.bytes(f.bytesFromClient() + f.bytesToClient()));
        cells.add(carried ? Units.bytes(f.wanBytes()) : "-");
        cells.add(carried ? String.format(Locale.ROOT, "%.1f%%", f.reductionPercent()) : "-");
      }
      if (details) {
        cells.add(details(f));
      }
      table.row(cells.toArray());
    }
    if (table.isEmpty() && !watching) {
      out.println(closed ? "no closed flows" : "no active flows");
      return;
    }
    table.print(out);
  }

  /** The flow's http-reuse and TLS figures on one line, or "". */
  private static String details(Views.Flow f) {
    String reuse = f.httpReuse() == null ? "" : f.httpReuse();
    String tls = f.tls() == null ? "" : f.tls();
    return reuse.isEmpty() || tls.isEmpty() ? reuse + tls : reuse + "; " + tls;
  }

  static Map<String, Object> toJson(Views.Flow f) {
    Map<String, Object> json = new LinkedHashMap<>();
    json.put("id", f.id());
    json.put("vpn", f.vpn());
    json.put("source", f.source());
    json.put("destination", f.destination());
    json.put("site", f.site());
    json.put("node", f.node());
    json.put("services", f.services());
    json.put("state", f.state());
    json.put("bytesFromClient", f.bytesFromClient());
    json.put("bytesToClient", f.bytesToClient());
    json.put("rateBitsPerSecond", f.rateBitsPerSecond());
    json.put("wanRttMicros", f.wanRttMicros());
    json.put("opened", f.opened() == null ? null : f.opened().toString());
    json.put("durationMillis", f.duration() == null ? null : f.duration().toMillis());
    json.put("reason", f.reason() == null || f.reason().isEmpty() ? null : f.reason());
    json.put("peer", f.peer() == null || f.peer().isEmpty() ? null : f.peer());
    json.put("httpReuse", f.httpReuse() == null || f.httpReuse().isEmpty() ? null : f.httpReuse());
    json.put("tls", f.tls() == null || f.tls().isEmpty() ? null : f.tls());
    json.put("wanBytes", f.wanBytes() < 0 ? null : f.wanBytes());
    json.put("reductionPercent", f.wanBytes() < 0 ? null : f.reductionPercent());
    return json;
  }
}
