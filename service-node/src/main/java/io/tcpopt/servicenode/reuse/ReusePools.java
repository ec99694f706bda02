package io.tcpopt.servicenode.reuse;

import io.netty.channel.EventLoop;
import io.tcpopt.common.profile.HttpReuseProfile;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The node's server-connection pools: one per HTTP reuse profile and event loop, created on first
 * use. A profile is identified by all its settings, so a policy that changes a profile's settings
 * starts new pools; the old ones empty through their idle timeout.
 */
public final class ReusePools implements AutoCloseable {
  private final ServerConnector connector;
  private final ReuseMetrics metrics;
  private final Map<HttpReuseProfile, PerProfile> profiles = new ConcurrentHashMap<>();

  private static final class PerProfile {
    final AtomicInteger idle = new AtomicInteger();
    final Map<EventLoop, ServerConnectionPool> byLoop = new ConcurrentHashMap<>();
  }

  public ReusePools(ServerConnector connector, ReuseMetrics metrics) {
    this.connector = connector;
    this.metrics = metrics;
  }

  public ReuseMetrics metrics() {
    return metrics;
  }

  /** The pool of {@code profile} on {@code loop}; use it on that loop only. */
  public ServerConnectionPool pool(HttpReuseProfile profile, EventLoop loop) {
    PerProfile p = profiles.computeIfAbsent(profile, k -> new PerProfile());
    return p.byLoop.computeIfAbsent(loop, l -> new ServerConnectionPool(profile, l, connector, p.idle, metrics));
  }

  /**
   * Whether a pool of {@code profile} exists or may be created while the node holds at most {@code
   * max} profiles here: to make room, a profile without idle connections is forgotten (connections
   * its flows still use empty through their idle timeout, as after a policy change). About {@code
   * max}: racing callers may each add one.
   */
  public boolean roomFor(HttpReuseProfile profile, int max) {
    if (profiles.containsKey(profile) || profiles.size() < max) {
      return true;
    }
    for (Map.Entry<HttpReuseProfile, PerProfile> e : profiles.entrySet()) {
      if (e.getValue().idle.get() == 0 && profiles.remove(e.getKey(), e.getValue())) {
        return true;
      }
    }
    return false;
  }

  /** Profiles with pools here. */
  public int profileCount() {
    return profiles.size();
  }

  /** Closes every idle connection (each on its own loop). */
  @Override
  public void close() {
    for (PerProfile p : profiles.values()) {
      for (ServerConnectionPool pool : p.byLoop.values()) {
        if (pool.loop().inEventLoop()) {
          pool.close();
        } else if (!pool.loop().isShuttingDown()) {
          pool.loop().execute(pool::close);
        }
      }
    }
  }
}
