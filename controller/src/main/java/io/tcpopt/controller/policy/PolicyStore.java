package io.tcpopt.controller.policy;

import com.hazelcast.core.EntryEvent;
import com.hazelcast.core.HazelcastInstanceNotActiveException;
import com.hazelcast.map.IMap;
import com.hazelcast.map.listener.EntryAddedListener;
import com.hazelcast.map.listener.EntryUpdatedListener;
import com.hazelcast.nio.serialization.compact.CompactSerializer;
import com.hazelcast.splitbrainprotection.SplitBrainProtectionException;
import io.tcpopt.common.policy.PolicyDocument;
import io.tcpopt.common.policy.PolicyException;
import io.tcpopt.controller.cluster.ClusterMember;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Versioned policy store in the cluster. Layout: {@code tcpopt.policy.versions} maps version
 * number to an immutable {@link PolicyVersion}; {@code tcpopt.policy.pointer} holds one {@link
 * PolicyPointer}. An apply validates and compiles the document first (nothing is stored when that
 * fails), reserves a number, stores the version, then flips the pointer in one entry processor —
 * so a reader sees either the old or the new policy, never a mix, and a version stored by a write
 * that failed half-way is simply never active.
 *
 * <p>Every controller listens to the pointer and recompiles the active version on its own refresh
 * thread (never on a Hazelcast event or Netty thread); {@link #active()} is a volatile read that
 * flow classification can call from anywhere. A periodic refresh repairs missed events (e.g. after
 * a split-brain merge).
 */
public final class PolicyStore implements AutoCloseable {
  static final String VERSIONS = ClusterMember.POLICY_MAPS + "versions";
  static final String POINTER = ClusterMember.POLICY_MAPS + "pointer";
  static final String POINTER_KEY = "active";

  private static final Logger log = LoggerFactory.getLogger(PolicyStore.class);

  /** How the store's values and entry processors travel through Hazelcast (give them to {@code ClusterMember.start}). */
  public static final List<CompactSerializer<?>> STORED_TYPES = PolicySerializers.ALL;

  private final ClusterMember cluster;
  private final String controllerName;
  private final Clock clock;
  private final IMap<Long, PolicyVersion> versions;
  private final IMap<String, PolicyPointer> pointer;
  private final ScheduledExecutorService refresher;
  private final List<Consumer<ActivePolicy>> listeners = new CopyOnWriteArrayList<>();
  private final UUID listenerId;
  private volatile ActivePolicy active;

  public PolicyStore(ClusterMember cluster, String controllerName, Clock clock, Duration refreshInterval) {
    this.cluster = cluster;
    this.controllerName = controllerName;
    this.clock = clock;
    this.versions = cluster.hazelcast().getMap(VERSIONS);
    this.pointer = cluster.hazelcast().getMap(POINTER);
    this.refresher =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "tcpopt-policy-refresh-" + controllerName);
              t.setDaemon(true);
              return t;
            });
    this.listenerId = pointer.addEntryListener(new PointerListener(), POINTER_KEY, false);
    refresh();
    long period = Math.max(100, refreshInterval.toMillis());
    refresher.scheduleWithFixedDelay(this::refresh, period, period, TimeUnit.MILLISECONDS);
  }

  private final class PointerListener
      implements EntryAddedListener<String, PolicyPointer>, EntryUpdatedListener<String, PolicyPointer> {
    @Override
    public void entryAdded(EntryEvent<String, PolicyPointer> event) {
      scheduleRefresh();
    }

    @Override
    public void entryUpdated(EntryEvent<String, PolicyPointer> event) {
      scheduleRefresh();
    }
  }

  private void scheduleRefresh() {
    try {
      refresher.execute(this::refresh);
    } catch (java.util.concurrent.RejectedExecutionException closing) {
      // the store is closing
    }
  }

  /** Validates without storing. */
  public PolicyDocument validate(String yaml) {
    return ActivePolicy.of(new PolicyVersion(0, "", yaml, controllerName, 0, "")).document();
  }

  /**
   * Validates, stores and activates {@code yaml} as a new version.
   *
   * @param expectedActive apply only if this version is still active; negative = unconditionally
   *     (0 = only if no policy is active yet)
   * @throws PolicyException when the document is invalid (nothing stored)
   * @throws PolicyStoreException when the cluster refuses the write (minority side), or on a conflict
   */
  public PolicyVersion apply(String yaml, String comment, long expectedActive) {
    ActivePolicy candidate = ActivePolicy.of(new PolicyVersion(0, "", yaml, controllerName, 0, comment));
    return store(yaml, candidate.document().name(), comment, expectedActive);
  }

  /** Stores the document of {@code version} again as a new active version, unconditionally. */
  public PolicyVersion rollback(long version) {
    return rollback(version, -1);
  }

  /**
   * Stores the document of {@code version} again as a new active version, if {@code expectedActive}
   * is still active (negative = unconditionally).
   *
   * @throws PolicyStoreException CONFLICT when another apply or rollback won the race
   */
  public PolicyVersion rollback(long version, long expectedActive) {
    PolicyVersion old =
        get(version)
            .orElseThrow(
                () -> new PolicyStoreException(PolicyStoreException.Kind.NOT_FOUND, "no policy version " + version, null));
    ActivePolicy.of(old); // the old document must still validate with this software version
    return store(old.yaml(), old.name(), "rollback to v" + version, expectedActive);
  }

  private PolicyVersion store(String yaml, String name, String comment, long expectedActive) {
    requireQuorum();
    try {
      long number = pointer.executeOnKey(POINTER_KEY, new PointerUpdates.Reserve());
      PolicyVersion version = new PolicyVersion(number, name, yaml, controllerName, clock.millis(), comment == null ? "" : comment);
      versions.set(number, version);
      long nowActive = pointer.executeOnKey(POINTER_KEY, new PointerUpdates.Activate(number, expectedActive));
      if (nowActive != number) {
        throw new PolicyStoreException(
            PolicyStoreException.Kind.CONFLICT,
            "active policy is v" + nowActive + ", not v" + expectedActive + " as expected; not applied",
            null);
      }
      log.info("policy {} stored as v{} and activated by {} ({})", name, number, controllerName, version.comment());
      refresh();
      return version;
    } catch (SplitBrainProtectionException e) {
      throw noQuorum(e);
    } catch (HazelcastInstanceNotActiveException e) {
      throw new PolicyStoreException(PolicyStoreException.Kind.UNAVAILABLE, "controller cluster member is shut down", e);
    }
  }

  private void requireQuorum() {
    if (!cluster.hasWriteQuorum()) {
      throw noQuorum(null);
    }
  }

  private PolicyStoreException noQuorum(Throwable cause) {
    return new PolicyStoreException(
        PolicyStoreException.Kind.NO_QUORUM,
        "policy write refused: this controller sees "
            + cluster.visibleMembers()
            + " of the "
            + cluster.config().minimumClusterSize()
            + " cluster members needed (minority side of a split, or peers down); the active policy stays",
        cause);
  }

  /** Version {@code number}, or the active one for 0. */
  public Optional<PolicyVersion> get(long number) {
    if (number == 0) {
      ActivePolicy a = active;
      return a == null ? Optional.empty() : Optional.of(a.version());
    }
    return Optional.ofNullable(versions.get(number));
  }

  /** All stored versions, newest first. */
  public List<PolicyVersion> versions() {
    List<PolicyVersion> all = new ArrayList<>(versions.values());
    all.sort(Comparator.comparingLong(PolicyVersion::version).reversed());
    return all;
  }

  /** The active version number in the cluster (0 = none), read from the cluster. */
  public long activeVersionInCluster() {
    PolicyPointer p = pointer.get(POINTER_KEY);
    return p == null ? 0 : p.activeVersion();
  }

  /** The active policy as compiled on this controller, or null when none was ever applied. */
  public ActivePolicy active() {
    return active;
  }

  /** Called (on the refresh thread) with every newly active policy, and now with the current one if any. */
  public void addListener(Consumer<ActivePolicy> listener) {
    listeners.add(listener);
    ActivePolicy a = active;
    if (a != null) {
      listener.accept(a);
    }
  }

  public void removeListener(Consumer<ActivePolicy> listener) {
    listeners.remove(listener);
  }

  private synchronized void refresh() {
    try {
      if (!cluster.hazelcast().getLifecycleService().isRunning()) {
        return;
      }
      PolicyPointer p = pointer.get(POINTER_KEY);
      if (p == null || p.activeVersion() == 0) {
        return;
      }
      ActivePolicy current = active;
      if (current != null && current.versionNumber() == p.activeVersion()) {
        return;
      }
      PolicyVersion version = versions.get(p.activeVersion());
      if (version == null) {
        log.warn("active policy v{} is missing from the store; keeping v{}", p.activeVersion(), current == null ? 0 : current.versionNumber());
        return;
      }
      ActivePolicy next;
      try {
        next = ActivePolicy.of(version);
      } catch (PolicyException e) {
        log.error("active policy v{} does not compile here ({}); keeping the last good policy", version.version(), e.getMessage());
        return;
      }
      active = next;
      log.info("controller {} now enforces policy {} v{}", controllerName, version.name(), version.version());
      for (Consumer<ActivePolicy> l : listeners) {
        try {
          l.accept(next);
        } catch (RuntimeException e) {
          log.warn("policy listener failed: {}", e.toString());
        }
      }
    } catch (HazelcastInstanceNotActiveException e) {
      // shutting down
    } catch (RuntimeException e) {
      log.warn("policy refresh failed, keeping the last good policy: {}", e.toString());
    }
  }

  @Override
  public void close() {
    refresher.shutdownNow();
    try {
      if (cluster.hazelcast().getLifecycleService().isRunning()) {
        pointer.removeEntryListener(listenerId);
      }
    } catch (RuntimeException e) {
      // the member is going away anyway
    }
  }
}
