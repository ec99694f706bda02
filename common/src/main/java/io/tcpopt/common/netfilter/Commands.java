package io.tcpopt.common.netfilter;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Runs {@code nft} and {@code ip} with a bounded wait, or starts them as long-lived children. A
 * prefix (e.g. {@code ip netns exec NS}) lets tests run the same commands inside a namespace of
 * their own.
 */
public final class Commands {
  private static final Duration TIMEOUT = Duration.ofSeconds(10);
  private static final List<String> SEARCH = List.of("/usr/sbin", "/sbin", "/usr/bin", "/bin", "/usr/local/sbin", "/usr/local/bin");

  private final List<String> prefix;

  /** Commands run as they are ({@code List.of()}) or behind {@code prefix}. */
  public Commands(List<String> prefix) {
    this.prefix = List.copyOf(prefix);
  }

  /** The outcome of one command. */
  public record Result(int exitCode, String stdout, String stderr) {
    public boolean ok() {
      return exitCode == 0;
    }

    /** stderr (or stdout) on one line, for exception messages. */
    public String why() {
      String s = stderr.isBlank() ? stdout : stderr;
      return s.strip().replaceAll("\\s*\\R\\s*", " | ");
    }
  }

  /** Runs {@code command}, feeding {@code stdin} when not null. */
  public Result run(String stdin, String... command) {
    List<String> argv = new ArrayList<>(prefix);
    argv.addAll(List.of(command));
    Process p;
    try {
      p = new ProcessBuilder(argv).start();
    } catch (IOException e) {
      throw new NetfilterException("cannot run " + String.join(" ", argv) + ": " + e.getMessage(), e);
    }
    CompletableFuture<String> out = drain(p.getInputStream());
    CompletableFuture<String> err = drain(p.getErrorStream());
    try (OutputStream in = p.getOutputStream()) {
      if (stdin != null) {
        in.write(stdin.getBytes(StandardCharsets.UTF_8));
      }
    } catch (IOException e) {
      // the process exited early; its stderr says why
    }
    try {
      if (!p.waitFor(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
        p.destroyForcibly();
        throw new NetfilterException(String.join(" ", argv) + " did not finish within " + TIMEOUT.toSeconds() + "s");
      }
      return new Result(p.exitValue(), out.get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS), err.get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS));
    } catch (InterruptedException e) {
      p.destroyForcibly();
      Thread.currentThread().interrupt();
      throw new NetfilterException("interrupted while running " + String.join(" ", argv), e);
    } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
      throw new NetfilterException("cannot read the output of " + String.join(" ", argv) + ": " + e.getMessage(), e);
    }
  }

  /** Fails with a clear line when {@code tool} is not installed. */
  public static void requireTool(String tool, String debianPackage) {
    if (which(tool).isEmpty()) {
      throw new NetfilterException("needs the " + tool + " command; install " + debianPackage + " (apt-get install " + debianPackage + ")");
    }
  }

  /** The absolute path of {@code tool} on the PATH or in the usual system directories, if any. */
  public static Optional<String> which(String tool) {
    String path = System.getenv("PATH") == null ? "" : System.getenv("PATH");
    List<String> dirs = new ArrayList<>(List.of(path.split(":")));
    dirs.addAll(SEARCH);
    for (String dir : dirs) {
      if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, tool))) {
        return Optional.of(Path.of(dir, tool).toString());
      }
    }
    return Optional.empty();
  }

  /**
   * Starts {@code command} (behind the prefix) as a long-lived child whose stdin stays open for the
   * caller; {@code discardOutput} sends its stdout and stderr to /dev/null.
   */
  public Process start(boolean discardOutput, String... command) {
    List<String> argv = new ArrayList<>(prefix);
    argv.addAll(List.of(command));
    ProcessBuilder builder = new ProcessBuilder(argv);
    if (discardOutput) {
      builder.redirectOutput(ProcessBuilder.Redirect.DISCARD).redirectError(ProcessBuilder.Redirect.DISCARD);
    }
    try {
      return builder.start();
    } catch (IOException e) {
      throw new NetfilterException("cannot run " + String.join(" ", argv) + ": " + e.getMessage(), e);
    }
  }

  /**
   * {@code command} prefixed with {@code setsid -w} when installed: the child gets a session of its
   * own, so signals for the JVM's process group (a terminal's Ctrl-C) do not reach it; it still ends
   * when its stdin, a pipe from this JVM, closes.
   */
  public static String[] ownSession(String... command) {
    Optional<String> setsid = which("setsid");
    if (setsid.isEmpty()) {
      return command;
    }
    List<String> argv = new ArrayList<>(List.of(setsid.get(), "-w"));
    argv.addAll(List.of(command));
    return argv.toArray(String[]::new);
  }

  private static CompletableFuture<String> drain(InputStream stream) {
    return CompletableFuture.supplyAsync(() -> {
      try (InputStream in = stream) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        in.transferTo(bytes);
        return bytes.toString(StandardCharsets.UTF_8);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }, Commands::startDaemon);
  }

  /** One short-lived thread per stream: the common pool may have a single thread on small hosts. */
  private static void startDaemon(Runnable r) {
    Thread t = new Thread(r, "tcpopt-command-output");
    t.setDaemon(true);
    t.start();
  }
}
