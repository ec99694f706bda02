package io.tcpopt.controller.console;

import io.tcpopt.common.units.Units;
import io.tcpopt.proto.v1.Flow;
import io.tcpopt.proto.v1.FlowState;
import io.tcpopt.proto.v1.FlowsRequest;
import io.tcpopt.proto.v1.FlowsResponse;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The flow table with the CLI's filters ({@code tcpopt flows --site --node --address --port --state
 * --closed}), filtered by the status service itself: per flow its bytes each way, its rate now (from
 * the {@link TrafficHistory}) and over its life, WAN RTT and, for closed and pass-through flows,
 * the reason.
 */
final class FlowsPage {
  static final int LIMIT = 1000;
  static final List<String> STATES = List.of("opening", "optimized", "pass-through", "dropped", "closing", "closed");

  private FlowsPage() {}

  static Html render(ControllerData data, Map<String, String> query, Map<String, Long> ratesNow) {
    boolean closed = "closed".equals(query.get("view"));
    FlowsRequest request = request(query, closed);
    FlowsResponse response = data.flows(request);

    Html h = new Html();
    h.raw("<form class=\"filters\" method=\"get\" action=\"/flows\" role=\"search\" aria-label=\"Filter flows\">")
        .raw("<fieldset><legend>Show</legend>");
    radio(h, "view", "active", "Active flows", !closed);
    radio(h, "view", "closed", "Closed flows (history, with reasons)", closed);
    h.raw("</fieldset>");
    input(h, "site", "Site", query.get("site"), "text");
    input(h, "node", "Service node", query.get("node"), "text");
    input(h, "address", "Address (source or destination IP)", query.get("address"), "text");
    input(h, "port", "Port (source or destination)", query.get("port"), "number");
    h.raw("<div class=\"field\"><label for=\"f-state\">State</label><select id=\"f-state\" name=\"state\"><option value=\"\">any</option>");
    for (String s : STATES) {
      h.raw("<option value=\"").raw(s).raw("\"").raw(s.equals(query.get("state")) ? " selected" : "").raw(">").text(s).raw("</option>");
    }
    h.raw("</select></div><div class=\"field\"><button type=\"submit\">Apply filters</button> <a href=\"/flows\">Clear</a></div></form>");

    List<Flow> flows = response.getFlowsList();
    String caption = (closed ? "Closed flows" : "Active flows") + ": " + flows.size() + (response.getTruncated() ? " (first " + LIMIT + " shown)" : "");
    if (closed) {
      h.tableStart(caption, "Flow", "Source", "Destination", "Node", "Peer", "State", "Client → server", "Server → client",
          "Average rate", "Duration", "Reason");
    } else {
      h.tableStart(caption, "Flow", "Source", "Destination", "Node", "Peer", "State", "Client → server", "Server → client",
          "Rate now", "Average rate", "WAN RTT", "Reason");
    }
    for (Flow f : flows) {
      String state = state(f.getState());
      String rateNow = ratesNow.containsKey(f.getId()) ? Units.bitsPerSecond(ratesNow.get(f.getId())) : "-";
      if (closed) {
        h.row(f.getId(), f.getSource(), f.getDestination(), f.getServiceNode(), f.getPeer(), state,
            Units.bytes(f.getBytesClientToServer()), Units.bytes(f.getBytesServerToClient()), Units.bitsPerSecond(f.getRateBitsPerSecond()),
            Units.duration(Duration.ofMillis(f.getDurationMillis())), f.getReason());
      } else {
        h.row(f.getId(), f.getSource(), f.getDestination(), f.getServiceNode(), f.getPeer(), state,
            Units.bytes(f.getBytesClientToServer()), Units.bytes(f.getBytesServerToClient()), rateNow,
            Units.bitsPerSecond(f.getRateBitsPerSecond()), Units.micros(f.getWanRttMicros()), f.getReason());
      }
    }
    h.tableEnd(closed ? 11 : 12, closed ? "no closed flows match" : "no active flows match", flows.isEmpty());
    return h;
  }

  /** The filters as a {@link FlowsRequest}; a malformed one is a {@link BadRequestException} naming the field. */
  static FlowsRequest request(Map<String, String> query, boolean closed) {
    FlowsRequest.Builder r = FlowsRequest.newBuilder().setClosed(closed).setLimit(LIMIT);
    r.setSite(query.getOrDefault("site", "").trim());
    r.setNode(query.getOrDefault("node", "").trim());
    String address = query.getOrDefault("address", "").trim();
    if (!address.isEmpty() && !address.matches("[0-9A-Fa-f.:]+")) {
      throw new BadRequestException("address: expected an IP address, got \"" + address + "\"");
    }
    r.setAddress(address);
    String port = query.getOrDefault("port", "").trim();
    if (!port.isEmpty()) {
      int p;
      try {
        p = Integer.parseInt(port);
      } catch (NumberFormatException e) {
        p = -1;
      }
      if (p < 1 || p > 65535) {
        throw new BadRequestException("port: must be a number between 1 and 65535, got \"" + port + "\"");
      }
      r.setPort(p);
    }
    String state = query.getOrDefault("state", "").trim().toLowerCase(Locale.ROOT);
    if (!state.isEmpty()) {
      if (!STATES.contains(state)) {
        throw new BadRequestException("state: expected one of " + String.join(", ", STATES) + ", got \"" + state + "\"");
      }
      r.setState(FlowState.valueOf(state.toUpperCase(Locale.ROOT).replace('-', '_')));
    }
    return r.build();
  }

  static String state(FlowState s) {
    return s == FlowState.FLOW_STATE_UNSPECIFIED || s == FlowState.UNRECOGNIZED ? "unknown" : s.name().toLowerCase(Locale.ROOT).replace('_', '-');
  }

  private static void radio(Html h, String name, String value, String label, boolean checked) {
    String id = "f-" + name + "-" + value;
    h.raw("<input type=\"radio\" id=\"").raw(id).raw("\" name=\"").raw(name).raw("\" value=\"").raw(value).raw("\"")
        .raw(checked ? " checked" : "").raw("><label for=\"").raw(id).raw("\">").text(label).raw("</label> ");
  }

  private static void input(Html h, String name, String label, String value, String type) {
    h.raw("<div class=\"field\"><label for=\"f-").raw(name).raw("\">").text(label).raw("</label><input id=\"f-").raw(name)
        .raw("\" name=\"").raw(name).raw("\" type=\"").raw(type).raw("\" value=\"").raw(Html.attr(value == null ? "" : value))
        .raw("\"></div>");
  }
}
