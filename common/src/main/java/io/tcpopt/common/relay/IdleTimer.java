package io.tcpopt.common.relay;

import io.netty.channel.EventLoop;
import io.netty.util.concurrent.ScheduledFuture;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * A flow's idle timeout: one task on the flow's loop, re-armed for the remaining time when it finds
 * bytes moved since it was armed. Activity costs a {@link System#nanoTime()} store and nothing else
 * (no handler in the leg's pipeline, no listener per write, no task per read), which is what an idle
 * flow among thousands should cost. Confined to {@code loop}.
 */
final class IdleTimer {
  private final EventLoop loop;
  private final long timeoutNanos;
  private final Runnable onIdle;
  private long lastActivity = System.nanoTime();
  private ScheduledFuture<?> task;
  private boolean stopped;

  private IdleTimer(EventLoop loop, Duration timeout, Runnable onIdle) {
    this.loop = loop;
    this.timeoutNanos = timeout.toNanos();
    this.onIdle = onIdle;
  }

  /** Starts a timer calling {@code onIdle} (on {@code loop}) after no activity for {@code timeout}; null when the timeout is zero (never). */
  static IdleTimer start(EventLoop loop, Duration timeout, Runnable onIdle) {
    if (timeout.isZero()) {
      return null;
    }
    IdleTimer t = new IdleTimer(loop, timeout, onIdle);
    t.arm(t.timeoutNanos);
    return t;
  }

  /** Bytes moved. */
  void touch() {
    lastActivity = System.nanoTime();
  }

  /** No more calls to {@code onIdle}. Idempotent. */
  void stop() {
    stopped = true;
    if (task != null) {
      task.cancel(false);
      task = null;
    }
  }

  private void arm(long delayNanos) {
    task = loop.schedule(this::check, delayNanos, TimeUnit.NANOSECONDS);
  }

  private void check() {
    task = null;
    if (stopped) {
      return;
    }
    long idle = System.nanoTime() - lastActivity;
    if (idle >= timeoutNanos) {
      stopped = true;
      onIdle.run();
    } else {
      arm(timeoutNanos - idle);
    }
  }
}
