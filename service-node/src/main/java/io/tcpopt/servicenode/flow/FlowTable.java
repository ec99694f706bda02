package io.tcpopt.servicenode.flow;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Active flows of this node and a bounded ring of closed ones. Meters (in the injected registry):
 * {@code tcpopt.flows.active} gauge, {@code tcpopt.flows.opened} counter by kind and reason,
 * {@code tcpopt.flow.bytes} counter by direction.
 *
 * <p>What a flow leaves behind is bounded: its entry leaves the active map when it closes, its
 * record stays in a history of at most {@code closedHistory} records, and the {@code reason} label
 * takes at most {@value #MAX_REASON_LABELS} distinct values (reasons may name an address; later ones
 * count as {@code other}), so a million flows to a million destinations cost no more meters than a
 * few.
 */
public final class FlowTable {
  private static final Logger log = LoggerFactory.getLogger(FlowTable.class);

  private final Map<Long, FlowEntry> active = new ConcurrentHashMap<>();
  private final ArrayDeque<FlowRecord> closed = new ArrayDeque<>();
  private final int closedHistory;
  private final AtomicLong ids = new AtomicLong();
  private final MeterRegistry registry;
  private final Counter bytesUp;
  private final Counter bytesDown;
  /** tcpopt.flows.opened by kind and reason label ({@link ReasonLabel}), registered once each. */
  private final Map<String, Counter> openedCounters = new ConcurrentHashMap<>();
  /**
   * The counter of each reason as flows give it, per kind (the label's pattern match runs once per
   * distinct reason, not once per flow); at most {@value #MAX_REMEMBERED_REASONS} reasons each, as
   * reasons may name addresses: later ones are matched every time.
   */
  private final Map<FlowKind, Map<String, Counter>> countersByReason = new EnumMap<>(FlowKind.class);

  static final int MAX_REASON_LABELS = 64;
  static final int MAX_REMEMBERED_REASONS = 256;
  static final String OTHER_REASON = "other";

  public FlowTable(int closedHistory, MeterRegistry registry) {
    this.closedHistory = closedHistory;
    this.registry = registry;
    registry.gauge("tcpopt.flows.active", active, Map::size);
    this.bytesUp = Counter.builder("tcpopt.flow.bytes").tag("direction", "client-to-server").baseUnit("bytes").register(registry);
    this.bytesDown = Counter.builder("tcpopt.flow.bytes").tag("direction", "server-to-client").baseUnit("bytes").register(registry);
    for (FlowKind kind : FlowKind.values()) {
      countersByReason.put(kind, new ConcurrentHashMap<>());
    }
  }

  /** Records a new flow. */
  public FlowEntry open(FlowKind kind, String reason, InetSocketAddress client, InetSocketAddress server) {
    FlowEntry e = new FlowEntry(this, ids.incrementAndGet(), kind, reason, client, server);
    active.put(e.id, e);
    opened(kind, reason == null ? "" : reason).increment();
    if (log.isDebugEnabled()) {
      log.debug("open {}", e.describe());
    }
    return e;
  }

  private Counter opened(FlowKind kind, String reason) {
    Map<String, Counter> remembered = countersByReason.get(kind);
    Counter known = remembered.get(reason);
    if (known != null) {
      return known;
    }
    Counter c = labelled(kind, reason);
    if (remembered.size() < MAX_REMEMBERED_REASONS) {
      remembered.putIfAbsent(reason, c);
    }
    return c;
  }

  private Counter labelled(FlowKind kind, String reason) {
    reason = ReasonLabel.of(reason);
    String key = kind.ordinal() + reason;
    Counter c = openedCounters.get(key);
    if (c != null) {
      return c;
    }
    if (openedCounters.size() >= MAX_REASON_LABELS) {
      reason = OTHER_REASON;
      key = kind.ordinal() + reason;
    }
    String label = reason;
    return openedCounters.computeIfAbsent(key,
        k -> Counter.builder("tcpopt.flows.opened").tag("kind", kind.name().toLowerCase()).tag("reason", label).register(registry));
  }

  public int activeCount() {
    return active.size();
  }

  void countBytes(boolean clientToServer, long n) {
    (clientToServer ? bytesUp : bytesDown).increment(n);
  }

  void closed(FlowEntry e) {
    FlowRecord r = e.snapshot();
    synchronized (closed) {
      closed.addLast(r);
      while (closed.size() > closedHistory) {
        closed.removeFirst();
      }
    }
    // Only now leaves the active set: whoever sees it gone from there finds it in the history.
    active.remove(e.id);
    if (log.isDebugEnabled()) {
      log.debug("close {} after {} bytes: {}", e.describe(), e.totalBytes(), e.closeReason());
    }
  }

  public FlowTableSnapshot snapshot() {
    List<FlowRecord> now = new ArrayList<>();
    for (FlowEntry e : active.values()) {
      now.add(e.snapshot());
    }
    now.sort(Comparator.comparingLong(FlowRecord::id));
    List<FlowRecord> history;
    synchronized (closed) {
      history = new ArrayList<>(closed);
    }
    return new FlowTableSnapshot(now, history);
  }
}
