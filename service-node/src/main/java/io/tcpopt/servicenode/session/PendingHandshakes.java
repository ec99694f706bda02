package io.tcpopt.servicenode.session;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import io.netty.util.AttributeKey;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Bounds the accepted WAN connections that have not finished TLS + HELLO: at most {@code max} at
 * once; one beyond is reset as it is accepted, before a TLS byte is read, and counted ({@code
 * tcpopt.session.pending.refused}). A connection leaves the count when its peer is admitted at
 * HELLO or when it closes (its handshake timeout closes it otherwise). Dialled connections are not
 * counted: this node chose to open them.
 *
 * <p>Thread-safe: entered on the accepting event loop, left on the connection's.
 */
public final class PendingHandshakes {
  private static final AttributeKey<Boolean> PENDING = AttributeKey.valueOf(PendingHandshakes.class, "pending");

  private final int max;
  private final AtomicInteger pending = new AtomicInteger();
  private final Counter refused;

  public PendingHandshakes(int max, MeterRegistry registry) {
    if (max < 1) {
      throw new IllegalArgumentException("max must be at least 1, got " + max);
    }
    this.max = max;
    this.refused = Counter.builder("tcpopt.session.pending.refused")
        .description("accepted WAN connections reset at once: too many had not finished TLS + HELLO").register(registry);
    Gauge.builder("tcpopt.session.pending", pending, AtomicInteger::get)
        .description("accepted WAN connections that have not finished TLS + HELLO").register(registry);
  }

  /** Counts {@code ch} as pending, or resets it when {@code max} are pending already. Returns whether it may go on. */
  boolean enter(Channel ch) {
    for (int n = pending.get(); ; n = pending.get()) {
      if (n >= max) {
        refused.increment();
        ch.config().setOption(ChannelOption.SO_LINGER, 0);
        ch.close();
        return false;
      }
      if (pending.compareAndSet(n, n + 1)) {
        break;
      }
    }
    ch.attr(PENDING).set(Boolean.TRUE);
    ch.closeFuture().addListener(f -> leave(ch));
    return true;
  }

  /** {@code ch} finished its handshake or closed: it is no longer pending (idempotent). */
  void leave(Channel ch) {
    if (Boolean.TRUE.equals(ch.attr(PENDING).getAndSet(Boolean.FALSE))) {
      pending.decrementAndGet();
    }
  }

  /** Connections pending now. */
  public int pending() {
    return pending.get();
  }

  public int max() {
    return max;
  }
}
