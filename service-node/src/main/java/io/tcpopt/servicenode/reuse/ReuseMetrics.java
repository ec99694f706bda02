package io.tcpopt.servicenode.reuse;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The node's HTTP reuse counters (Prometheus {@code tcpopt_http_reuse_*}). Labels take values from
 * the fixed sets of {@link Fallback} and {@link CloseReason} only.
 */
public final class ReuseMetrics {
  /** Why a server connection left the pool or was not returned to it. */
  enum CloseReason {
    NOT_REUSABLE("not-reusable"),
    MAX_REUSE("max-reuse"),
    MAX_AGE("max-age"),
    POOL_FULL("pool-full"),
    IDLE_TIMEOUT("idle-timeout"),
    SERVER_CLOSED("server-closed"),
    SHUTDOWN("shutdown");

    final String label;

    CloseReason(String label) {
      this.label = label;
    }
  }

  final Counter requests;
  final Counter opened;
  final Counter reused;
  final Counter retries;
  private final Map<Fallback, Counter> fallbacks = new EnumMap<>(Fallback.class);
  private final Map<CloseReason, Counter> closed = new EnumMap<>(CloseReason.class);
  final AtomicInteger idle = new AtomicInteger();

  public ReuseMetrics(MeterRegistry registry) {
    requests = Counter.builder("tcpopt.http.reuse.requests").description("HTTP requests sent on pooled server connections").register(registry);
    opened = Counter.builder("tcpopt.http.reuse.connections.opened").description("server connections opened by HTTP reuse").register(registry);
    reused = Counter.builder("tcpopt.http.reuse.connections.reused").description("requests sent on an idle pooled connection").register(registry);
    retries = Counter.builder("tcpopt.http.reuse.retries")
        .description("idempotent requests re-sent on a new connection after a pooled one closed unanswered").register(registry);
    for (Fallback f : Fallback.values()) {
      fallbacks.put(f, Counter.builder("tcpopt.http.reuse.fallbacks").tag("reason", f.label())
          .description("flows carried as a plain relay instead of request by request").register(registry));
    }
    for (CloseReason r : CloseReason.values()) {
      closed.put(r, Counter.builder("tcpopt.http.reuse.connections.closed").tag("reason", r.label)
          .description("server connections closed by HTTP reuse").register(registry));
    }
    Gauge.builder("tcpopt.http.reuse.pool.idle", idle, AtomicInteger::get).description("idle server connections held in pools")
        .register(registry);
  }

  void fallback(Fallback f) {
    fallbacks.get(f).increment();
  }

  void closed(CloseReason r) {
    closed.get(r).increment();
  }

  /** Idle connections held now, all pools. */
  public int idleConnections() {
    return idle.get();
  }
}
