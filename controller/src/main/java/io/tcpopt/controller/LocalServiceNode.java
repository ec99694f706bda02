package io.tcpopt.controller;

import io.tcpopt.controller.distribution.FlowDispatcher;
import io.tcpopt.proto.v1.Flow;
import io.tcpopt.proto.v1.PeerSession;
import java.util.List;

/**
 * The service node running in the same JVM as the controller (integrated mode), as the controller
 * sees it. The launcher adapts the data plane's {@code ServiceNode} to this, so the controller
 * does not depend on the data plane. The controller registers it in the cluster, heartbeats for
 * it, shows its flows and sessions, and hands it the flow dispatcher.
 */
public interface LocalServiceNode {
  /** Node name as in {@code node.name}. */
  String name();

  String site();

  /** Service-node group; empty = every group of its site. */
  default String group() {
    return "";
  }

  /** HOST:PORT of its inter-node session listener. */
  String wanAddress();

  /** Maximum concurrent flows ({@code service-node.flows.max-active}). */
  long flowCapacity();

  long activeFlows();

  /** Active flows, or the closed-flow history when {@code closed}. */
  List<Flow> flows(boolean closed);

  List<PeerSession> sessions();

  /**
   * What keeps this node from failing safe right now, e.g. interception rules that would outlive a
   * crash (kernel without nftables table ownership) or were lost; shown by status as DEGRADED.
   */
  default List<String> problems() {
    return List.of();
  }

  /** Whether it takes no new flows ({@code tcpopt drain}); cleared by a restart. */
  default boolean draining() {
    return false;
  }

  /** Starts ({@code true}) or ends a drain: new flows pass through, the flows it holds go on. */
  default void drain(boolean on) {}

  /**
   * Installs the dispatcher that decides new flows. Called when attached and again after every
   * policy activation; the dispatcher always reads the currently active policy, and keeps the last
   * good one whatever happens to the cluster.
   */
  void decider(FlowDispatcher dispatcher);
}
