package io.tcpopt.cli.top;

import io.tcpopt.cli.operator.Views;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Each flow's rate now: the growth of its byte counters (both directions) since the previous
 * refresh. A flow seen for the first time counts with its average over its life so far. Remembers
 * only the flows of the last refresh.
 */
final class FlowRates {
  private Map<String, Long> lastBytes = Map.of();
  private long lastNanos;

  /** Rates in bits per second by flow id, for {@code flows} as of {@code nowNanos}. */
  Map<String, Double> update(List<Views.Flow> flows, long nowNanos) {
    double seconds = lastBytes.isEmpty() ? 0 : (nowNanos - lastNanos) / 1e9;
    Map<String, Long> bytes = new HashMap<>();
    Map<String, Double> rates = new HashMap<>();
    for (Views.Flow f : flows) {
      long total = f.bytesFromClient() + f.bytesToClient();
      bytes.put(f.id(), total);
      Long before = lastBytes.get(f.id());
      rates.put(f.id(), before == null || seconds <= 0 ? f.rateBitsPerSecond() : Math.max(0, total - before) * 8 / seconds);
    }
    lastBytes = bytes;
    lastNanos = nowNanos;
    return rates;
  }
}
