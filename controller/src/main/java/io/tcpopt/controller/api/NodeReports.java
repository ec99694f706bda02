package io.tcpopt.controller.api;

import io.tcpopt.proto.v1.Flow;
import io.tcpopt.proto.v1.PeerSession;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The latest sessions and flow snapshot each external service node sent with its heartbeat to this
 * controller. Kept in local memory only (they are large and change every second); a controller
 * shows the reports of the nodes that heartbeat to it.
 */
final class NodeReports {
  record Report(List<PeerSession> sessions, List<Flow> flows, long atMillis) {}

  private final Map<String, Report> reports = new ConcurrentHashMap<>();

  void put(String node, List<PeerSession> sessions, List<Flow> flows, long atMillis) {
    reports.put(node, new Report(List.copyOf(sessions), List.copyOf(flows), atMillis));
  }

  Map<String, Report> all() {
    return reports;
  }

  void retain(java.util.Set<String> nodes) {
    reports.keySet().retainAll(nodes);
  }
}
