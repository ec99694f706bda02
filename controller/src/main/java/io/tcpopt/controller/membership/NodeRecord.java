package io.tcpopt.controller.membership;

/**
 * A node as registered in the cluster, with its last reported load (stored as Compact data, {@code MembershipSerializers}).
 *
 * @param name unique node name
 * @param site site it serves
 * @param group service-node group; empty = every group of its site
 * @param role controller, service-node or integrated
 * @param address WAN session address (service nodes) or gRPC address (controllers), HOST:PORT
 * @param handoffAddress where an external service node accepts PROXY-v2 handoffs; may be empty
 * @param flowCapacity maximum concurrent flows (0 for controllers)
 * @param activeFlows flows active at the last heartbeat
 * @param policyVersion policy version the node enforced at the last heartbeat
 * @param registeredAtMillis wall-clock registration time
 * @param lastHeartbeatMillis wall-clock time of the last heartbeat, stamped by the controller that received it
 * @param controller controller that received the last registration or heartbeat
 * @param draining whether the node reported, at its last heartbeat, that it is draining
 * @param drainOrder a drain or undrain an operator asked for, waiting for the node's next
 *     heartbeat to carry it ({@link DrainOrder#NONE} once carried; a new registration clears it)
 */
public record NodeRecord(
    String name,
    String site,
    String group,
    NodeRole role,
    String address,
    String handoffAddress,
    long flowCapacity,
    long activeFlows,
    long policyVersion,
    long registeredAtMillis,
    long lastHeartbeatMillis,
    String controller,
    boolean draining,
    DrainOrder drainOrder) {

  public NodeRecord {
    group = group == null ? "" : group;
    address = address == null ? "" : address;
    handoffAddress = handoffAddress == null ? "" : handoffAddress;
    drainOrder = drainOrder == null ? DrainOrder.NONE : drainOrder;
  }

  /** Load as a percentage of capacity; 0 without capacity. */
  public double loadPercent() {
    return flowCapacity <= 0 ? 0 : activeFlows * 100.0 / flowCapacity;
  }

  /** This record with another active-flow count (e.g. a live count that is newer than the last heartbeat). */
  public NodeRecord withActiveFlows(long active) {
    return new NodeRecord(
        name, site, group, role, address, handoffAddress, flowCapacity, active, policyVersion, registeredAtMillis,
        lastHeartbeatMillis, controller, draining, drainOrder);
  }

  NodeRecord withHeartbeat(long active, long version, long atMillis, String by, boolean nowDraining) {
    return new NodeRecord(
        name, site, group, role, address, handoffAddress, flowCapacity, active, version, registeredAtMillis, atMillis, by, nowDraining,
        drainOrder);
  }

  /** This record with another drain state (e.g. the live state of the integrated node). */
  public NodeRecord withDraining(boolean nowDraining) {
    return new NodeRecord(
        name, site, group, role, address, handoffAddress, flowCapacity, activeFlows, policyVersion, registeredAtMillis,
        lastHeartbeatMillis, controller, nowDraining, drainOrder);
  }

  NodeRecord withDrainOrder(DrainOrder order) {
    return new NodeRecord(
        name, site, group, role, address, handoffAddress, flowCapacity, activeFlows, policyVersion, registeredAtMillis,
        lastHeartbeatMillis, controller, draining, order);
  }
}
