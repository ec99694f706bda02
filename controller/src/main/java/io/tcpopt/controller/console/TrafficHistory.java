package io.tcpopt.controller.console;

import io.tcpopt.proto.v1.Flow;
import io.tcpopt.proto.v1.FlowState;
import io.tcpopt.proto.v1.FlowsRequest;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;

/**
 * Throughput over the last minutes, for the overview's live chart: every {@link #sample} (once a
 * second) it reads the flow table through the status service and turns the growth of each flow's
 * byte counters (both directions) into bits per second, split into optimized and pass-through.
 * A flow that closed since the last sample counts with its final bytes from the closed-flow
 * history. Keeps {@link #CAPACITY} samples (10 minutes) and the latest per-flow rates for the flows
 * page. Memory is bounded by the flow table's own limits.
 *
 * <p>External service nodes report their flows with each heartbeat, so their figures move in
 * heartbeat steps, and the last second of a flow that closed there is not seen (their reports
 * carry active flows only).
 */
final class TrafficHistory {
  static final int CAPACITY = 600;
  static final int FLOW_LIMIT = 10_000;
  static final String OPTIMIZED_SERVICE = "tcp-optimization";

  /** One second of traffic; rates in bits per second. */
  record Sample(long atMillis, long optimizedBps, long passThroughBps, int activeOptimized, int activePassThrough) {}

  private final Supplier<List<Flow>> activeFlows;
  private final Supplier<List<Flow>> closedFlows;
  private final ArrayDeque<Sample> samples = new ArrayDeque<>();
  private Map<String, Long> lastBytes = new HashMap<>();
  private Set<String> counted = new HashSet<>();
  private Map<String, Long> flowRates = Map.of();
  private long lastMillis = -1;

  TrafficHistory(Supplier<List<Flow>> activeFlows, Supplier<List<Flow>> closedFlows) {
    this.activeFlows = activeFlows;
    this.closedFlows = closedFlows;
  }

  static TrafficHistory of(ControllerData data) {
    return new TrafficHistory(
        () -> data.flows(FlowsRequest.newBuilder().setLimit(FLOW_LIMIT).build()).getFlowsList(),
        () -> data.flows(FlowsRequest.newBuilder().setClosed(true).setLimit(FLOW_LIMIT).build()).getFlowsList());
  }

  /** Takes one sample at {@code nowMillis}; the first one only sets the baseline. */
  synchronized void sample(long nowMillis) {
    List<Flow> active = activeFlows.get();
    List<Flow> closed = closedFlows.get();
    long optimizedBits = 0;
    long passThroughBits = 0;
    int activeOptimized = 0;
    int activePassThrough = 0;
    Map<String, Long> bytes = new HashMap<>();
    Map<String, Long> rates = new HashMap<>();
    double seconds = lastMillis < 0 ? 0 : Math.max(1, nowMillis - lastMillis) / 1000.0;
    for (Flow f : active) {
      long now = total(f);
      bytes.put(f.getId(), now);
      long delta = Math.max(0, now - lastBytes.getOrDefault(f.getId(), 0L));
      if (optimized(f)) {
        activeOptimized++;
        optimizedBits += delta * 8;
      } else if (f.getState() == FlowState.PASS_THROUGH) {
        activePassThrough++;
        passThroughBits += delta * 8;
      }
      if (seconds > 0) {
        rates.put(f.getId(), Math.round(delta * 8 / seconds));
      }
    }
    Set<String> closedIds = new HashSet<>();
    for (Flow f : closed) {
      closedIds.add(f.getId());
      if (counted.contains(f.getId())) {
        continue;
      }
      Long before = lastBytes.get(f.getId());
      // Seen open before: its last bytes; never seen but ended since the last sample: all of them.
      boolean endedSinceLast = f.getStartedUnixMillis() + f.getDurationMillis() >= lastMillis;
      long delta = before != null ? Math.max(0, total(f) - before) : (lastMillis >= 0 && endedSinceLast ? total(f) : 0);
      if (optimized(f)) {
        optimizedBits += delta * 8;
      } else {
        passThroughBits += delta * 8;
      }
    }
    counted = closedIds;
    lastBytes = bytes;
    flowRates = rates;
    if (lastMillis >= 0) {
      samples.addLast(new Sample(nowMillis, Math.round(optimizedBits / seconds), Math.round(passThroughBits / seconds),
          activeOptimized, activePassThrough));
      while (samples.size() > CAPACITY) {
        samples.removeFirst();
      }
    }
    lastMillis = nowMillis;
  }

  synchronized List<Sample> samples() {
    return new ArrayList<>(samples);
  }

  /** Each active flow's rate over the last sample interval, bits per second, by flow id. */
  synchronized Map<String, Long> flowRates() {
    return flowRates;
  }

  static boolean optimized(Flow f) {
    return f.getState() == FlowState.OPTIMIZED || f.getServicesList().contains(OPTIMIZED_SERVICE);
  }

  private static long total(Flow f) {
    return f.getBytesClientToServer() + f.getBytesServerToClient();
  }
}
