package io.tcpopt.servicenode.intercept.transparent;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * A tool running in a namespace, driven line by line: its stdout lines are collected for {@link
 * #awaitLine}, its stderr kept for failure messages (and checked for Netty {@code LEAK:} reports).
 */
final class ChildProcess implements AutoCloseable {
  private final String name;
  private final Process process;
  private final List<String> out = new ArrayList<>();
  private final StringBuilder err = new StringBuilder();

  ChildProcess(String name, Process process) {
    this.name = name;
    this.process = process;
    daemon(name + "-stdout", () -> pump(new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8)), true));
    daemon(name + "-stderr", () -> pump(new BufferedReader(new InputStreamReader(process.getErrorStream(), StandardCharsets.UTF_8)), false));
  }

  private void pump(BufferedReader reader, boolean stdout) {
    try (reader) {
      for (String line = reader.readLine(); line != null; line = reader.readLine()) {
        synchronized (this) {
          if (stdout) {
            out.add(line);
          } else if (err.length() < 200_000) {
            err.append(line).append('\n');
          }
          notifyAll();
        }
      }
    } catch (IOException e) {
      // process gone
    } finally {
      synchronized (this) {
        notifyAll();
      }
    }
  }

  /** Waits for the first stdout line (from the start) matching {@code match}. */
  synchronized String awaitLine(Predicate<String> match, Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    int seen = 0;
    while (true) {
      for (; seen < out.size(); seen++) {
        if (match.test(out.get(seen))) {
          return out.get(seen);
        }
      }
      long left = deadline - System.nanoTime();
      if (left <= 0 || (!process.isAlive() && seen == out.size())) {
        throw new AssertionError(name + ": no matching line within " + timeout.toSeconds() + "s (alive=" + process.isAlive() + ")\nstdout:\n"
            + String.join("\n", out) + "\nstderr:\n" + tail(err.toString()));
      }
      wait(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
    }
  }

  synchronized List<String> lines() {
    return List.copyOf(out);
  }

  synchronized String stderr() {
    return err.toString();
  }

  /** Sends one line to the tool's stdin. */
  void send(String line) throws IOException {
    OutputStream in = process.getOutputStream();
    in.write((line + "\n").getBytes(StandardCharsets.UTF_8));
    in.flush();
  }

  /** Waits for a clean exit; returns the exit code, or fails. */
  int awaitExit(Duration timeout) throws InterruptedException {
    if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
      throw new AssertionError(name + " did not exit within " + timeout.toSeconds() + "s\nstderr:\n" + tail(stderr()));
    }
    return process.exitValue();
  }

  /** SIGKILL, as a crash or the OOM killer would: no shutdown hook runs. Returns once the process is gone. */
  void kill() throws InterruptedException {
    process.destroyForcibly();
    process.waitFor(10, TimeUnit.SECONDS);
  }

  /** Kills the tool and everything it started (the JVM under {@code ip netns exec}). */
  @Override
  public void close() {
    process.descendants().forEach(ProcessHandle::destroy);
    process.destroy();
    try {
      if (!process.waitFor(5, TimeUnit.SECONDS)) {
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
        process.waitFor(5, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  String name() {
    return name;
  }

  private static String tail(String s) {
    return s.length() <= 8000 ? s : "..." + s.substring(s.length() - 8000);
  }

  private static void daemon(String name, Runnable r) {
    Thread t = new Thread(r, name);
    t.setDaemon(true);
    t.start();
  }
}
