package io.tcpopt.controller.membership;

import com.hazelcast.core.EntryEvent;
import com.hazelcast.core.HazelcastInstanceNotActiveException;
import com.hazelcast.map.EntryProcessor;
import com.hazelcast.map.IMap;
import com.hazelcast.map.listener.EntryAddedListener;
import com.hazelcast.map.listener.EntryEvictedListener;
import com.hazelcast.map.listener.EntryRemovedListener;
import com.hazelcast.map.listener.EntryUpdatedListener;
import com.hazelcast.nio.serialization.compact.CompactSerializer;
import io.tcpopt.controller.cluster.ClusterMember;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Cluster-wide membership. Writes (register, heartbeat) go to the {@code tcpopt.nodes} map; an
 * entry listener keeps a local mirror so that {@link #snapshot()} and {@link #healthyMembers} are
 * plain memory reads, safe from any thread. Health is derived from the last heartbeat against
 * {@code expiry}; records silent for {@code retention} are deleted by whichever controller notices
 * first (a conditional remove, so controllers never undo each other's updates).
 */
public final class NodeRegistry implements AutoCloseable {
  static final String MAP = ClusterMember.MEMBERSHIP_MAPS;

  private static final Logger log = LoggerFactory.getLogger(NodeRegistry.class);

  /** How the registry's records and entry processor travel through Hazelcast (give them to {@code ClusterMember.start}). */
  public static final List<CompactSerializer<?>> STORED_TYPES = MembershipSerializers.ALL;

  private final IMap<String, NodeRecord> nodes;
  private final ClusterMember cluster;
  private final Clock clock;
  private final Duration expiry;
  private final Duration retention;
  private final Map<String, NodeRecord> mirror = new ConcurrentHashMap<>();
  private final Map<String, Boolean> lastHealth = new ConcurrentHashMap<>();
  private final List<Runnable> listeners = new CopyOnWriteArrayList<>();
  private final ScheduledExecutorService sweeper;
  private final UUID listenerId;

  public NodeRegistry(ClusterMember cluster, Clock clock, Duration expiry) {
    this.cluster = cluster;
    this.clock = clock;
    this.expiry = expiry;
    this.retention = expiry.multipliedBy(12);
    this.nodes = cluster.hazelcast().getMap(MAP);
    this.listenerId = nodes.addEntryListener(new MirrorListener(), true);
    mirror.putAll(nodes);
    this.sweeper =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "tcpopt-membership-sweep");
              t.setDaemon(true);
              return t;
            });
    long period = Math.max(50, expiry.toMillis() / 5);
    sweeper.scheduleWithFixedDelay(this::sweep, period, period, TimeUnit.MILLISECONDS);
  }

  private final class MirrorListener
      implements EntryAddedListener<String, NodeRecord>,
          EntryUpdatedListener<String, NodeRecord>,
          EntryRemovedListener<String, NodeRecord>,
          EntryEvictedListener<String, NodeRecord> {
    @Override
    public void entryAdded(EntryEvent<String, NodeRecord> e) {
      mirror.put(e.getKey(), e.getValue());
      changed();
    }

    @Override
    public void entryUpdated(EntryEvent<String, NodeRecord> e) {
      if (mirrorNewer(e.getValue()) == null) {
        changed();
      }
    }

    @Override
    public void entryRemoved(EntryEvent<String, NodeRecord> e) {
      mirror.remove(e.getKey());
      changed();
    }

    @Override
    public void entryEvicted(EntryEvent<String, NodeRecord> e) {
      entryRemoved(e);
    }
  }

  /** Registers (or re-registers) a node; its heartbeat clock starts now. */
  public NodeRecord register(
      String name, String site, String group, NodeRole role, String address, String handoffAddress,
      long flowCapacity, String controller) {
    long now = clock.millis();
    NodeRecord record = new NodeRecord(name, site, group, role, address, handoffAddress, flowCapacity, 0, 0, now, now, controller, false,
        DrainOrder.NONE);
    nodes.set(name, record);
    mirror.put(name, record);
    log.info("registered {} {} at site {} (group {}, capacity {}) via {}", role.label(), name, site,
        group.isEmpty() ? "-" : group, flowCapacity, controller);
    changed();
    return record;
  }

  /** Records a heartbeat of a node that serves no flows (a controller); false when unknown (it must register again). */
  public boolean heartbeat(String name, long activeFlows, long policyVersion, String controller) {
    return heartbeat(name, activeFlows, policyVersion, false, controller).known();
  }

  /** What a heartbeat found: whether the node is known, and a drain order to carry to it. */
  public record Heartbeat(boolean known, DrainOrder order) {
    static final Heartbeat UNKNOWN = new Heartbeat(false, DrainOrder.NONE);
  }

  /**
   * Records a heartbeat of a flow-serving node with its drain state, and takes the drain order
   * waiting for it (if any): the caller carries it to the node.
   */
  public Heartbeat heartbeat(String name, long activeFlows, long policyVersion, boolean draining, String controller) {
    NodeRecord updated = nodes.executeOnKey(name, new Beat(activeFlows, policyVersion, clock.millis(), controller, draining));
    if (updated == null) {
      return Heartbeat.UNKNOWN;
    }
    NodeRecord before = mirror.get(name);
    if (mirrorNewer(updated.withDrainOrder(DrainOrder.NONE)) == null || before != null && before.draining() != updated.draining()) {
      changed(); // it was unknown here (back to healthy), or its drain state changed
    }
    return new Heartbeat(true, updated.drainOrder());
  }

  /**
   * Leaves {@code order} for node {@code name}, carried to it with the answer to its next
   * heartbeat; false when no such node is registered.
   */
  public boolean order(String name, DrainOrder order) {
    return nodes.computeIfPresent(name, (k, r) -> r.withDrainOrder(order)) != null;
  }

  /** Removes a node at once (orderly shutdown). */
  public void deregister(String name) {
    nodes.delete(name);
    mirror.remove(name);
    changed();
  }

  /** Puts {@code r} into the mirror unless the mirror already holds a later state; returns the previous value. */
  private NodeRecord mirrorNewer(NodeRecord r) {
    NodeRecord[] previous = new NodeRecord[1];
    mirror.compute(r.name(), (k, old) -> {
      previous[0] = old;
      boolean newer = old == null
          || r.registeredAtMillis() > old.registeredAtMillis()
          || (r.registeredAtMillis() == old.registeredAtMillis() && r.lastHeartbeatMillis() >= old.lastHeartbeatMillis());
      return newer ? r : old;
    });
    return previous[0] == null || !isHealthy(previous[0]) ? null : previous[0];
  }

  static final class Beat implements EntryProcessor<String, NodeRecord, NodeRecord> {
    private static final long serialVersionUID = 1L;
    final long activeFlows;
    final long policyVersion;
    final long atMillis;
    final String controller;
    final boolean draining;

    Beat(long activeFlows, long policyVersion, long atMillis, String controller, boolean draining) {
      this.draining = draining;
      this.activeFlows = activeFlows;
      this.policyVersion = policyVersion;
      this.atMillis = atMillis;
      this.controller = controller;
    }

    @Override
    public NodeRecord process(Map.Entry<String, NodeRecord> entry) {
      NodeRecord r = entry.getValue();
      if (r == null) {
        return null;
      }
      NodeRecord updated = r.withHeartbeat(activeFlows, policyVersion, Math.max(atMillis, r.lastHeartbeatMillis()), controller, draining);
      entry.setValue(updated.withDrainOrder(DrainOrder.NONE)); // the order is taken: the caller carries it
      return updated;
    }
  }

  /** Whether the node's last heartbeat is within the expiry. */
  public boolean isHealthy(NodeRecord r) {
    return clock.millis() - r.lastHeartbeatMillis() <= expiry.toMillis();
  }

  public Duration expiry() {
    return expiry;
  }

  /** Every known node (healthy or not), by name. Local memory read. */
  public List<NodeRecord> snapshot() {
    List<NodeRecord> all = new ArrayList<>(mirror.values());
    all.sort(Comparator.comparing(NodeRecord::site).thenComparing(NodeRecord::name));
    return all;
  }

  public Optional<NodeRecord> get(String name) {
    return Optional.ofNullable(mirror.get(name));
  }

  /**
   * Healthy flow-serving members of {@code group}: nodes registered in it, plus nodes without a
   * group at the group's site. Local memory read.
   */
  public List<NodeRecord> healthyMembers(String group, String groupSite) {
    List<NodeRecord> out = new ArrayList<>();
    for (NodeRecord r : mirror.values()) {
      if (r.role().servesFlows() && isHealthy(r) && inGroup(r, group, groupSite)) {
        out.add(r);
      }
    }
    out.sort(Comparator.comparing(NodeRecord::name));
    return out;
  }

  /**
   * Healthy flow-serving nodes at {@code site} that serve {@code group} (registered in it or in no
   * group) and are not draining. This is what a controller of that site may hand new flows to.
   * Local memory read.
   */
  public List<NodeRecord> healthyMembersAtSite(String group, String site) {
    List<NodeRecord> out = new ArrayList<>();
    for (NodeRecord r : mirror.values()) {
      if (r.role().servesFlows() && isHealthy(r) && !r.draining() && r.site().equals(site) && (r.group().isEmpty() || r.group().equals(group))) {
        out.add(r);
      }
    }
    out.sort(Comparator.comparing(NodeRecord::name));
    return out;
  }

  /** Every member of {@code group}, healthy or not. */
  public List<NodeRecord> members(String group, String groupSite) {
    List<NodeRecord> out = new ArrayList<>();
    for (NodeRecord r : snapshot()) {
      if (r.role().servesFlows() && inGroup(r, group, groupSite)) {
        out.add(r);
      }
    }
    return out;
  }

  static boolean inGroup(NodeRecord r, String group, String groupSite) {
    return r.group().isEmpty() ? r.site().equals(groupSite) : r.group().equals(group);
  }

  /** Runs {@code listener} (on a cluster or sweeper thread) whenever the set of healthy nodes may have changed. */
  public void addListener(Runnable listener) {
    listeners.add(listener);
  }

  public void removeListener(Runnable listener) {
    listeners.remove(listener);
  }

  private void changed() {
    for (Runnable l : listeners) {
      try {
        l.run();
      } catch (RuntimeException e) {
        log.warn("membership listener failed: {}", e.toString());
      }
    }
  }

  private void sweep() {
    boolean transition = false;
    for (NodeRecord r : mirror.values()) {
      boolean healthy = isHealthy(r);
      Boolean before = lastHealth.put(r.name(), healthy);
      if (before != null && before != healthy) {
        transition = true;
        if (!healthy) {
          log.warn("{} {} missed heartbeats for {}: no new flows go to it", r.role().label(), r.name(), expiry);
        }
      }
      if (clock.millis() - r.lastHeartbeatMillis() > retention.toMillis()) {
        try {
          if (nodes.remove(r.name(), r)) {
            log.info("forgot {} {} (silent for {})", r.role().label(), r.name(), retention);
          }
        } catch (HazelcastInstanceNotActiveException e) {
          return;
        } catch (RuntimeException e) {
          log.debug("membership sweep: {}", e.toString());
        }
      }
    }
    Set<String> known = mirror.keySet();
    lastHealth.keySet().retainAll(known);
    if (transition) {
      changed();
    }
  }

  @Override
  public void close() {
    sweeper.shutdownNow();
    try {
      if (cluster.hazelcast().getLifecycleService().isRunning()) {
        nodes.removeEntryListener(listenerId);
      }
    } catch (RuntimeException e) {
      // the member is going away anyway
    }
  }
}
