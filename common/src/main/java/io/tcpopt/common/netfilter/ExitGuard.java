package io.tcpopt.common.netfilter;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs cleanup commands when this JVM dies without disarming it: the second line behind {@link
 * OwnedTable}, for kernel state nftables cannot own (policy routing rules and routes). The guard is
 * a child shell in a session of its own ({@code setsid}, when installed) that ignores HUP, INT,
 * TERM and QUIT and blocks reading its stdin, a pipe whose only writer is this JVM. {@link
 * #close()} writes {@code disarm}: the guard exits doing nothing. When the JVM dies in any way the
 * pipe closes, the read sees end-of-file and the guard runs the commands, each independently.
 *
 * <p>Limits: a SIGKILL sent to the guard itself (or to the whole cgroup, as {@code systemctl kill
 * -s KILL} does) skips the cleanup; so do a machine without {@code sh} and a reboot (which clears
 * the state anyway). Commands should therefore be harmless when the state is already gone and match
 * only what this process installed.
 */
public final class ExitGuard implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(ExitGuard.class);
  private static final String DISARM = "disarm";

  private final Process shell;
  private boolean closed;

  private ExitGuard(Process shell) {
    this.shell = shell;
  }

  /**
   * Starts a guard that runs {@code cleanup} (each an argv, run in order through {@code commands}'
   * prefix) when this JVM dies; empty (and logged) when there is no {@code sh} to run it.
   */
  public static Optional<ExitGuard> start(Commands commands, List<List<String>> cleanup) {
    Optional<String> sh = Commands.which("sh");
    if (sh.isEmpty()) {
      log.warn("no sh found: nothing removes {} if this process dies without stopping", describe(cleanup));
      return Optional.empty();
    }
    return Optional.of(new ExitGuard(commands.start(true, Commands.ownSession(sh.get(), "-c", script(cleanup)))));
  }

  /** The guard's shell script: wait for a line or end-of-file; anything but "disarm" runs the commands. */
  static String script(List<List<String>> cleanup) {
    StringBuilder s = new StringBuilder("trap '' HUP INT TERM QUIT PIPE; read -r word; [ \"$word\" = " + DISARM + " ] && exit 0");
    for (List<String> command : cleanup) {
      s.append("; ");
      for (int i = 0; i < command.size(); i++) {
        String arg = i == 0 ? Commands.which(command.get(0)).orElse(command.get(0)) : command.get(i);
        s.append(i == 0 ? "" : " ").append(quote(arg));
      }
    }
    return s.append("; exit 0").toString();
  }

  private static String quote(String arg) {
    return "'" + arg.replace("'", "'\\''") + "'";
  }

  private static String describe(List<List<String>> cleanup) {
    List<String> out = new ArrayList<>();
    cleanup.forEach(c -> out.add(String.join(" ", c)));
    return String.join("; ", out);
  }

  /** Whether the guard still runs (false after {@link #close()} or if it was killed). */
  public boolean alive() {
    return shell.isAlive();
  }

  /** Disarms the guard: it exits without running anything. Idempotent; never throws. */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    try (OutputStream in = shell.getOutputStream()) {
      in.write((DISARM + "\n").getBytes(StandardCharsets.US_ASCII));
    } catch (IOException e) {
      log.debug("exit guard already gone: {}", e.toString());
    }
    try {
      if (!shell.waitFor(5, TimeUnit.SECONDS)) {
        shell.destroyForcibly();
      }
    } catch (InterruptedException e) {
      shell.destroyForcibly();
      Thread.currentThread().interrupt();
    }
  }
}
