package io.tcpopt.cli.node;

import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A per-peer gauge whose rows read the latest figures a refresher saw. A row is registered once,
 * when its peer appears, and removed when the peer goes; a refresh only changes the values it
 * reads. (Re-registering every row on every refresh raced with scrapes: Prometheus once saw a
 * removed row and its replacement together and failed the whole scrape with duplicate labels.)
 *
 * <p>{@link #update} is called by one refresher thread; scrapes read the values from any thread.
 */
final class PeerGauge {
  private final MultiGauge gauge;
  private Map<Tags, Figure> figures = Map.of();

  PeerGauge(MultiGauge gauge) {
    this.gauge = gauge;
  }

  /** The latest value of each row; rows not in {@code latest} are removed. */
  void update(Map<Tags, Double> latest) {
    Map<Tags, Figure> next = new HashMap<>();
    latest.forEach((tags, value) -> next.computeIfAbsent(tags, t -> figures.getOrDefault(t, new Figure())).value = value);
    boolean rowsChanged = !next.keySet().equals(figures.keySet());
    figures = next;
    if (rowsChanged) {
      List<MultiGauge.Row<?>> rows = new ArrayList<>();
      next.forEach((tags, figure) -> rows.add(MultiGauge.Row.of(tags, figure, f -> f.value)));
      gauge.register(rows, false);
    }
  }

  /** One row's latest value. */
  private static final class Figure {
    volatile double value;
  }
}
