package io.tcpopt.servicenode.admission;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.net.InetAddress;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The node's flow limits, held together so that a flow is admitted against all of them at once:
 * {@code flows.max-active} (every flow the node holds, optimized or pass-through),
 * {@code flows.max-per-client} (flows of one client address), the {@link BufferBudget}, and drain.
 * A granted {@link Claim} holds a slot of each until released, once, when the flow ends.
 *
 * <p>Meters: gauges {@code tcpopt.buffer.budget} and {@code tcpopt.buffer.reserved} (bytes),
 * {@code tcpopt.flows.draining} (1 while draining), counter {@code tcpopt.admission.limited} by
 * {@code limit} (one of {@link Limit}'s names, a fixed set).
 *
 * <p>Thread-safe: called from every event loop. Counts are taken first and given back when a later
 * limit refuses, so concurrent admissions never overshoot a limit.
 */
public final class Admission {
  /** The limit that stopped a flow. */
  public enum Limit {
    MAX_ACTIVE("max-active"),
    PER_CLIENT("per-client"),
    BUFFER_BUDGET("buffer-budget");

    private final String label;

    Limit(String label) {
      this.label = label;
    }

    public String label() {
      return label;
    }
  }

  private final int maxActive;
  private final int maxPerClient;
  private final BufferBudget budget;
  private final AtomicInteger active = new AtomicInteger();
  private final Map<InetAddress, Integer> perClient = new ConcurrentHashMap<>();
  private final Map<Limit, Counter> limited = new EnumMap<>(Limit.class);
  private volatile boolean draining;

  public Admission(int maxActive, int maxPerClient, long bufferBudget, MeterRegistry registry) {
    this.maxActive = maxActive;
    this.maxPerClient = maxPerClient;
    this.budget = new BufferBudget(bufferBudget);
    Gauge.builder("tcpopt.buffer.budget", budget, BufferBudget::budget).baseUnit("bytes").register(registry);
    Gauge.builder("tcpopt.buffer.reserved", budget, BufferBudget::reserved).baseUnit("bytes").register(registry);
    Gauge.builder("tcpopt.flows.draining", this, a -> a.draining ? 1 : 0).register(registry);
    for (Limit l : Limit.values()) {
      limited.put(l, Counter.builder("tcpopt.admission.limited").tag("limit", l.label()).register(registry));
    }
  }

  /**
   * Admits one flow of {@code client} that may buffer up to {@code bytes}, an optimized flow or a
   * pass-through one (see {@link BufferBudget}): a granted claim, or a refused one naming the limit
   * and why.
   */
  public Claim admit(InetAddress client, long bytes, boolean optimized) {
    if (perClient.merge(client, 1, Integer::sum) > maxPerClient) {
      giveBack(client);
      return refused(Limit.PER_CLIENT, "client " + client.getHostAddress() + " at flows.max-per-client (" + maxPerClient + ")");
    }
    if (active.incrementAndGet() > maxActive) {
      active.decrementAndGet();
      giveBack(client);
      return refused(Limit.MAX_ACTIVE, "node at flows.max-active (" + maxActive + ", pass-through flows included)");
    }
    if (!budget.tryReserve(bytes, optimized)) {
      active.decrementAndGet();
      giveBack(client);
      // Fixed text (no live figures): reasons end up in logs, flow records and counts.
      return refused(Limit.BUFFER_BUDGET, optimized
          ? "node buffer budget: optimized flows' share full (" + MemoryLimits.mib(BufferBudget.optimizedShare(budget.budget())) + ")"
          : "node buffer budget full (" + MemoryLimits.mib(budget.budget()) + ")");
    }
    return new Claim(this, client, bytes, optimized, null, null);
  }

  private Claim refused(Limit limit, String reason) {
    limited.get(limit).increment();
    return new Claim(this, null, 0, false, limit, reason);
  }

  private void giveBack(InetAddress client) {
    perClient.computeIfPresent(client, (c, n) -> n <= 1 ? null : n - 1);
  }

  private void release(Claim c) {
    budget.release(c.bytes(), c.optimized, c.startHeld());
    active.decrementAndGet();
    giveBack(c.client);
  }

  /** Starts or ends a drain: while draining, new flows are not optimized (the router passes them through). */
  public void draining(boolean on) {
    draining = on;
  }

  public boolean draining() {
    return draining;
  }

  /** Flows holding a claim. */
  public int active() {
    return active.get();
  }

  public BufferBudget budget() {
    return budget;
  }

  /** The outcome of one admission; a granted claim is released once, when its flow ends. */
  public static final class Claim {
    private final Admission owner;
    private final InetAddress client;
    private long bytes;
    /** What was reserved at admission: {@link #shrink} never goes below it. */
    private final long admitted;
    /** Start credit held ({@link #grantStart}), released first. */
    private long start;
    private final boolean optimized;
    private final Limit limit;
    private final String reason;
    private final AtomicBoolean released = new AtomicBoolean();

    private Claim(Admission owner, InetAddress client, long bytes, boolean optimized, Limit limit, String reason) {
      this.owner = owner;
      this.client = client;
      this.bytes = bytes;
      this.admitted = bytes;
      this.optimized = optimized;
      this.limit = limit;
      this.reason = reason;
    }

    public boolean granted() {
      return limit == null;
    }

    /** The limit that refused it; null when granted. */
    public Limit limit() {
      return limit;
    }

    /** Why it was refused, for the flow table and the logs; null when granted. */
    public String reason() {
      return reason;
    }

    /**
     * Reserves {@code more} bytes of the buffer budget for the flow (its stream's window grows);
     * false, and nothing reserved, when they do not fit or the claim was refused or released.
     */
    public synchronized boolean grow(long more) {
      if (!granted() || released.get() || !owner.budget.tryReserve(more, optimized)) {
        return false;
      }
      bytes += more;
      return true;
    }

    /**
     * Reserves {@code more} bytes of start credit for the flow's new stream (see {@link
     * StartCredit}); false, and nothing reserved, when they do not fit the budget or the pool.
     */
    public synchronized boolean grantStart(long more) {
      if (!granted() || released.get() || !optimized || !owner.budget.tryReserveStart(more)) {
        return false;
      }
      bytes += more;
      start += more;
      return true;
    }

    /**
     * Gives back {@code less} bytes the claim reserved beyond its admission (credit the peer
     * returned unused, a send queue that shrank), start credit first; never below what was
     * admitted. A no-op once released.
     */
    public synchronized void shrink(long less) {
      if (!granted() || released.get() || less <= 0) {
        return;
      }
      long n = Math.min(less, bytes - admitted);
      long s = Math.min(n, start);
      bytes -= n;
      start -= s;
      owner.budget.release(n, optimized, s);
    }

    /** The start credit a new stream of this flow may get now, at most {@code most} ({@link BufferBudget#startCredit}); 0 unless granted. */
    public long startCredit(long most) {
      return granted() && !released.get() && optimized ? owner.budget.startCredit(most) : 0;
    }

    synchronized long startHeld() {
      return start;
    }

    /** Bytes of the budget the claim holds. */
    public synchronized long bytes() {
      return bytes;
    }

    /** Gives the slots back; idempotent, a no-op for a refused claim. */
    public synchronized void release() {
      if (granted() && released.compareAndSet(false, true)) {
        owner.release(this);
      }
    }
  }
}
