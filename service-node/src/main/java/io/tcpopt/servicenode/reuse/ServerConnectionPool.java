package io.tcpopt.servicenode.reuse;

import io.netty.channel.Channel;
import io.netty.channel.EventLoop;
import io.netty.util.concurrent.Future;
import io.tcpopt.common.profile.HttpReuseProfile;
import io.tcpopt.servicenode.reuse.ReuseMetrics.CloseReason;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiConsumer;

/**
 * The idle server connections of one HTTP reuse profile on one event loop, by {@link PoolKey}.
 * Confined to that loop: the flows served there borrow from it without locks, as both legs of a
 * proxied connection share a loop. {@code max-size} counts the idle connections of the profile on
 * all loops together ({@code profileIdle}).
 *
 * <p>A connection is borrowed for one exchange and given back; it is reused most-recently-used
 * first (its congestion window is the warmest, and the surplus idles out). It is closed instead
 * of pooled when the exchange left it unusable, when it served {@code max-reuse} reuses, when it
 * is older than {@code max-age}, or when the pool is full; an idle connection is closed after
 * {@code idle-timeout}, and as soon as the server closes it or sends anything.
 */
public final class ServerConnectionPool {
  private static final AtomicLong IDS = new AtomicLong();

  private final HttpReuseProfile profile;
  private final EventLoop loop;
  private final ServerConnector connector;
  private final AtomicInteger profileIdle;
  private final ReuseMetrics metrics;
  private final Map<PoolKey, ArrayDeque<ServerConnection>> idle = new HashMap<>();
  private boolean closed;

  ServerConnectionPool(HttpReuseProfile profile, EventLoop loop, ServerConnector connector, AtomicInteger profileIdle, ReuseMetrics metrics) {
    this.profile = profile;
    this.loop = loop;
    this.connector = connector;
    this.profileIdle = profileIdle;
    this.metrics = metrics;
  }

  HttpReuseProfile profile() {
    return profile;
  }

  EventLoop loop() {
    return loop;
  }

  /**
   * Lends a connection for {@code key}: a checked idle one, else a new one ({@code fresh} always
   * opens a new one). The callback runs on the loop with the connection, or null and the failure.
   */
  void acquire(PoolKey key, boolean fresh, BiConsumer<ServerConnection, Throwable> callback) {
    assert loop.inEventLoop();
    if (!fresh) {
      ServerConnection c = pollIdle(key);
      if (c != null) {
        metrics.reused.increment();
        c.exchanges++;
        callback.accept(c, null);
        return;
      }
    }
    ServerConnection[] made = new ServerConnection[1];
    Future<Channel> f = connector.connect(key, loop, new HandlerSlot(key, made));
    f.addListener(done -> {
      if (!done.isSuccess()) {
        callback.accept(null, done.cause());
        return;
      }
      ServerConnection c = made[0];
      if (c == null || !c.channel.isActive()) {
        callback.accept(null, new java.io.IOException("server connection closed during setup"));
        return;
      }
      metrics.opened.increment();
      c.exchanges = 1;
      callback.accept(c, null);
    });
  }

  /** Creates the {@link ServerConnection} once the channel exists, as the last pipeline handler. */
  private final class HandlerSlot extends io.netty.channel.ChannelInboundHandlerAdapter {
    private final PoolKey key;
    private final ServerConnection[] made;

    HandlerSlot(PoolKey key, ServerConnection[] made) {
      this.key = key;
      this.made = made;
    }

    @Override
    public void handlerAdded(io.netty.channel.ChannelHandlerContext ctx) {
      ServerConnection c = new ServerConnection(IDS.incrementAndGet(), ctx.channel(), key, ServerConnectionPool.this);
      made[0] = c;
      ctx.pipeline().replace(this, "reuse", c.new Handler());
    }
  }

  private ServerConnection pollIdle(PoolKey key) {
    ArrayDeque<ServerConnection> q = idle.get(key);
    while (q != null && !q.isEmpty()) {
      ServerConnection c = q.pollFirst();
      leftIdle(c);
      if (!c.usable()) {
        close(c, CloseReason.SERVER_CLOSED);
      } else if (c.ageNanos() >= profile.maxAge().toNanos()) {
        close(c, CloseReason.MAX_AGE);
      } else {
        if (q.isEmpty()) {
          idle.remove(key);
        }
        return c;
      }
    }
    idle.remove(key);
    return null;
  }

  private void leftIdle(ServerConnection c) {
    if (c.idleTimer != null) {
      c.idleTimer.cancel(false);
      c.idleTimer = null;
    }
    profileIdle.decrementAndGet();
    metrics.idle.decrementAndGet();
  }

  /** Takes a connection back after an exchange; {@code reusable} when the exchange left it clean. */
  void release(ServerConnection c, boolean reusable) {
    assert loop.inEventLoop();
    c.owner = null;
    if (!reusable || !c.usable()) {
      close(c, reusable ? CloseReason.SERVER_CLOSED : CloseReason.NOT_REUSABLE);
      return;
    }
    if (c.exchanges - 1 >= profile.maxReuse()) {
      close(c, CloseReason.MAX_REUSE);
      return;
    }
    if (c.ageNanos() >= profile.maxAge().toNanos()) {
      close(c, CloseReason.MAX_AGE);
      return;
    }
    if (closed || profileIdle.incrementAndGet() > profile.maxSize()) {
      if (!closed) {
        profileIdle.decrementAndGet();
      }
      close(c, closed ? CloseReason.SHUTDOWN : CloseReason.POOL_FULL);
      return;
    }
    metrics.idle.incrementAndGet();
    if (!c.channel.config().isAutoRead()) {
      c.channel.config().setAutoRead(true); // an idle connection must notice the server closing it
    }
    c.idleTimer = loop.schedule(() -> {
      c.idleTimer = null;
      if (remove(c)) {
        close(c, CloseReason.IDLE_TIMEOUT);
      }
    }, profile.idleTimeout().toNanos(), TimeUnit.NANOSECONDS);
    idle.computeIfAbsent(c.key, k -> new ArrayDeque<>()).addFirst(c);
  }

  /** An idle connection the server closed or spoke on. */
  void unusable(ServerConnection c) {
    if (remove(c)) {
      close(c, CloseReason.SERVER_CLOSED);
    } else if (c.channel.isOpen()) {
      c.channel.close();
    }
  }

  private boolean remove(ServerConnection c) {
    ArrayDeque<ServerConnection> q = idle.get(c.key);
    if (q == null || !q.remove(c)) {
      return false;
    }
    if (q.isEmpty()) {
      idle.remove(c.key);
    }
    leftIdle(c);
    return true;
  }

  private void close(ServerConnection c, CloseReason reason) {
    metrics.closed(reason);
    c.channel.close();
  }

  /** Idle connections held now (all keys); on the loop. */
  int idleCount() {
    int n = 0;
    for (ArrayDeque<ServerConnection> q : idle.values()) {
      n += q.size();
    }
    return n;
  }

  /** Idle connections to {@code key} held now; on the loop. */
  int idleCount(PoolKey key) {
    ArrayDeque<ServerConnection> q = idle.get(key);
    return q == null ? 0 : q.size();
  }

  /** Closes every idle connection; lent ones are closed by their flows. On the loop. */
  void close() {
    closed = true;
    for (Iterator<ArrayDeque<ServerConnection>> it = idle.values().iterator(); it.hasNext(); ) {
      ArrayDeque<ServerConnection> q = it.next();
      it.remove();
      for (ServerConnection c : q) {
        leftIdle(c);
        close(c, CloseReason.SHUTDOWN);
      }
    }
  }
}
