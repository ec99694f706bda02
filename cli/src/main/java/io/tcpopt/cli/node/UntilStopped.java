package io.tcpopt.cli.node;

import io.tcpopt.cli.CliContext;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Keeps a long-running command ({@code run}, {@code demo}) alive until SIGINT/SIGTERM, the stop flag
 * of its {@link CliContext}, or an optional time limit. The shutdown hook waits until the command
 * has closed everything (rules removed, sockets closed) so that the JVM does not exit half-way,
 * then ends the process with status 0.
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
      boolean done = false;
      try {
        done = closed.await(CLOSE_GRACE.toMillis(), TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      if (done) {
        // Stopped by SIGINT/SIGTERM and everything is closed: that is a clean stop, so exit 0
        // rather than the JVM's 128+signal. (The command thread cannot System.exit any more.)
        context.out().flush();
        context.err().flush();
        Runtime.getRuntime().halt(0);
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
