package io.tcpopt.cli.node;

import io.tcpopt.cli.CliContext;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Keeps a long-running command ({@code run}, {@code demo}) alive until SIGINT/SIGTERM, the stop flag
 * of its {@link CliContext}, or an optional time limit. The shutdown hook waits until the command
 * has closed everything (rules removed, sockets closed) so that the JVM does not exit half-way.
 */
public final class UntilStopped implements AutoCloseable {
  private static final Duration CLOSE_GRACE = Duration.ofSeconds(15);

  private final CliContext context;
  private final CountDownLatch closed = new CountDownLatch(1);
  private final Thread hook;

  public UntilStopped(CliContext context) {
    this.context = context;
    this.hook = new Thread(() -> {
      context.stop().set(true);
      try {
        closed.await(CLOSE_GRACE.toMillis(), TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }, "tcpopt-shutdown");
    Runtime.getRuntime().addShutdownHook(hook);
  }

  /** Blocks until stopped or until {@code limit} (null: no limit) has passed. */
  public void await(Duration limit) throws InterruptedException {
    long deadline = limit == null ? Long.MAX_VALUE : System.nanoTime() + limit.toNanos();
    while (!context.stop().get() && System.nanoTime() - deadline < 0) {
      Thread.sleep(50);
    }
  }

  public boolean stopRequested() {
    return context.stop().get();
  }

  /** Call after everything is closed: releases a waiting shutdown hook, or removes the hook. */
  @Override
  public void close() {
    closed.countDown();
    try {
      Runtime.getRuntime().removeShutdownHook(hook);
    } catch (IllegalStateException e) {
      // The JVM is shutting down: the hook is running and has just been released.
    }
  }
}
