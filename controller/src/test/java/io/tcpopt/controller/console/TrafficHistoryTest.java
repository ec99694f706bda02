package io.tcpopt.controller.console;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.tcpopt.proto.v1.Flow;
import io.tcpopt.proto.v1.FlowState;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Throughput from the growth of flow byte counters, split optimized / pass-through, bounded history. */
class TrafficHistoryTest {
  private final List<Flow> active = new ArrayList<>();
  private final List<Flow> closed = new ArrayList<>();
  private final TrafficHistory history = new TrafficHistory(() -> List.copyOf(active), () -> List.copyOf(closed));

  private static Flow flow(String id, FlowState state, long bytes, long startMillis, long durationMillis) {
    Flow.Builder f = Flow.newBuilder().setId(id).setState(state).setBytesClientToServer(bytes / 2).setBytesServerToClient(bytes - bytes / 2)
        .setStartedUnixMillis(startMillis).setDurationMillis(durationMillis);
    if (state == FlowState.OPTIMIZED) {
      f.addServices(TrafficHistory.OPTIMIZED_SERVICE);
    }
    return f.build();
  }

  @Test
  void ratesComeFromByteGrowthIncludingFlowsThatClosedSinceTheLastSample() {
    active.add(flow("a", FlowState.OPTIMIZED, 1_000, 0, 0));
    active.add(flow("p", FlowState.PASS_THROUGH, 500, 0, 0));
    closed.add(flow("old", FlowState.CLOSED, 99_999, 0, 10)); // closed before the first sample: never counted
    history.sample(10_000);
    assertEquals(List.of(), history.samples(), "the first sample is only the baseline");

    active.clear();
    active.add(flow("a", FlowState.OPTIMIZED, 126_000, 0, 0)); // +125,000 bytes = 1 Mbit
    active.add(flow("p", FlowState.PASS_THROUGH, 13_000, 0, 0)); // +12,500 bytes = 100 kbit
    history.sample(11_000);
    TrafficHistory.Sample s = history.samples().get(0);
    assertEquals(1_000_000, s.optimizedBps());
    assertEquals(100_000, s.passThroughBps());
    assertEquals(1, s.activeOptimized());
    assertEquals(1, s.activePassThrough());
    assertEquals(1_000_000L, history.flowRates().get("a"));

    // "a" closes with 250,000 more bytes; "b" opens and closes within the second (all its bytes count).
    active.removeIf(f -> f.getId().equals("a"));
    closed.add(flow("a", FlowState.CLOSED, 376_000, 0, 11_500).toBuilder().addServices(TrafficHistory.OPTIMIZED_SERVICE).build());
    closed.add(flow("b", FlowState.CLOSED, 125_000, 11_200, 300).toBuilder().addServices(TrafficHistory.OPTIMIZED_SERVICE).build());
    history.sample(12_000);
    assertEquals(3_000_000, history.samples().get(1).optimizedBps());
    assertEquals(0, history.samples().get(1).activeOptimized());

    history.sample(13_000);
    assertEquals(0, history.samples().get(2).optimizedBps(), "a closed flow counts once");
  }

  @Test
  void keepsTenMinutesOfSamples() {
    for (int i = 0; i <= TrafficHistory.CAPACITY + 50; i++) {
      history.sample(i * 1000L);
    }
    assertEquals(TrafficHistory.CAPACITY, history.samples().size());
    assertEquals((TrafficHistory.CAPACITY + 50) * 1000L, history.samples().get(TrafficHistory.CAPACITY - 1).atMillis());
  }
}
