package io.tcpopt.common.netfilter;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An nftables table that lives exactly as long as this JVM. The table is created by a child {@code
 * nft -i} (libnftables' interactive mode: one netlink socket for the child's whole life) with the
 * table flag {@code owner}, so the kernel deletes it when that socket closes. The child's only
 * input is a pipe from this JVM: however the JVM ends (exit, SIGKILL, an OOM exit, a crash), the
 * kernel closes the pipe, {@code nft} reads end-of-file and exits, and the table goes with it. No
 * shutdown hook or supervisor is involved; nothing but this process may change or delete the table
 * meanwhile ({@code EPERM} for everyone else).
 *
 * <p>The table is written in one transaction that first deletes a table of the same name left
 * without an owner (by an older version or a kernel without the flag), so a restart replaces
 * leftovers instead of failing on them. A table owned by another live process is refused with the
 * kernel's "Operation not permitted": two nodes never fight over one table.
 *
 * <p>Kernels before 5.12 lack the flag: the table is then installed without it ({@link
 * Ownership#NONE}), the caller is expected to say so loudly and to add {@code nft delete table} to
 * an {@link ExitGuard}. {@code persist} (Linux 6.9+, which would keep the table after the owner
 * exits) is never set.
 *
 * <p>If the child dies while the JVM lives (killed by hand, OOM killer), the table is gone: the
 * {@code onLost} callback is told once, on a JDK thread; {@link #alive()} turns false.
 */
public final class OwnedTable implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(OwnedTable.class);
  private static final Duration ANSWER_TIMEOUT = Duration.ofSeconds(10);
  private static final Duration EXIT_TIMEOUT = Duration.ofSeconds(5);
  private static final Pattern NAME = Pattern.compile("[A-Za-z][A-Za-z0-9_-]{0,31}");
  private static final SecureRandom RANDOM = new SecureRandom();

  /** Whether the kernel removes the table when the child exits. */
  public enum Ownership {
    /** The table carries the {@code owner} flag: it disappears with the child, within milliseconds of the JVM. */
    KERNEL,
    /** The kernel lacks the flag: only {@link #close()}, a guard or the next install remove the table. */
    NONE
  }

  private final String family;
  private final String name;
  private final Commands commands;
  private final Process nft;
  private final OutputStream stdin;
  private final Ownership ownership;
  private volatile boolean closing;

  private OwnedTable(String family, String name, Commands commands, Process nft, Ownership ownership) {
    this.family = family;
    this.name = name;
    this.commands = commands;
    this.nft = nft;
    this.stdin = nft.getOutputStream();
    this.ownership = ownership;
  }

  /**
   * Creates (or replaces) table {@code family name} with {@code body}: nft statements as they would
   * stand inside {@code table family name { ... }}, one per list item, without comments (they are
   * joined with {@code ;} onto the child's single input line).
   *
   * @param onLost told (once, with the reason) when the child exits before {@link #close()}
   * @throws NetfilterException with nft's error when neither an owned nor a plain table is accepted
   */
  public static OwnedTable install(Commands commands, String family, String name, List<String> body, Consumer<String> onLost) {
    if (!NAME.matcher(family).matches() || !NAME.matcher(name).matches()) {
      throw new IllegalArgumentException("bad nftables family or table name: " + family + " " + name);
    }
    Commands.requireTool("nft", "nftables");
    Process nft = commands.start(false, Commands.which("nft").orElse("nft"), "-i");
    Output output = new Output(nft);
    Ownership ownership = null;
    String error = null;
    try {
      for (Ownership attempt : Ownership.values()) {
        error = tryInstall(nft, output, family, name, body, attempt);
        if (error == null) {
          ownership = attempt;
          break;
        }
        log.debug("nft refused table {} {} ({}): {}", family, name, attempt, error);
      }
    } catch (IOException e) {
      error = "nft exited: " + e.getMessage() + " " + output.errors();
    }
    if (ownership == null) {
      nft.destroyForcibly();
      throw new NetfilterException("nft refused table " + family + " " + name + ": " + error);
    }
    OwnedTable table = new OwnedTable(family, name, commands, nft, ownership);
    nft.onExit().thenRun(() -> {
      if (!table.closing) {
        onLost.accept("nft (pid " + nft.pid() + ", holding table " + family + " " + name + ") exited with status " + nft.exitValue()
            + (table.ownership == Ownership.KERNEL ? "; the kernel removed the table" : "") + " " + output.errors());
      }
    });
    return table;
  }

  /** Sends the transaction, then lists the table: done when the listing carries this attempt's nonce. */
  private static String tryInstall(Process nft, Output output, String family, String name, List<String> body, Ownership attempt)
      throws IOException {
    byte[] random = new byte[6];
    RANDOM.nextBytes(random);
    String nonce = "tcpopt pid " + ProcessHandle.current().pid() + " " + HexFormat.of().formatHex(random);
    String table = family + " " + name;
    String flags = attempt == Ownership.KERNEL ? "flags owner; " : "";
    String transaction = "add table " + table + "; delete table " + table + "; table " + table + " { " + flags
        + "comment \"" + nonce + "\"; " + String.join("; ", body) + "; }";
    String list = "list table " + table;
    int errorsBefore = output.errorLines();
    send(nft.getOutputStream(), transaction + "\n" + list + "\n");
    List<String> listing = output.awaitListing(table, list, ANSWER_TIMEOUT);
    if (listing.stream().anyMatch(l -> l.contains("\"" + nonce + "\""))) {
      return null;
    }
    return output.errorsSince(errorsBefore);
  }

  private static void send(OutputStream stdin, String text) throws IOException {
    stdin.write(text.getBytes(StandardCharsets.UTF_8));
    stdin.flush();
  }

  public Ownership ownership() {
    return ownership;
  }

  /** Whether the child holding the table still runs. */
  public boolean alive() {
    return nft.isAlive();
  }

  /** Deletes the table and lets the child exit; idempotent, never throws (failures are logged). */
  @Override
  public synchronized void close() {
    if (closing) {
      return;
    }
    closing = true;
    try {
      if (nft.isAlive()) {
        send(stdin, "delete table " + family + " " + name + "\n");
      }
    } catch (IOException e) {
      log.debug("nft holding table {} {} already gone: {}", family, name, e.toString());
    }
    try {
      stdin.close();
      if (!nft.waitFor(EXIT_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
        nft.destroyForcibly();
      }
    } catch (IOException e) {
      // the child is gone already
    } catch (InterruptedException e) {
      nft.destroyForcibly();
      Thread.currentThread().interrupt();
    }
    if (ownership == Ownership.NONE) {
      // No owner: make sure the table is gone even if the child died before reading the delete.
      Commands.Result r = commands.run(null, "nft", "delete", "table", family, name);
      if (!r.ok() && !r.stderr().contains("No such file")) {
        log.warn("cannot delete nftables table {} {}: {}", family, name, r.why());
      }
    }
  }

  /** The child's stdout and stderr, read line by line on two daemon threads. */
  private static final class Output {
    private final List<String> out = new ArrayList<>();
    private final List<String> err = new ArrayList<>();
    private final Process process;
    private int streamsOpen = 2;

    Output(Process process) {
      this.process = process;
      pump(process.getInputStream(), out, "stdout");
      pump(process.getErrorStream(), err, "stderr");
    }

    private void pump(InputStream stream, List<String> into, String what) {
      Thread t = new Thread(() -> {
        try (BufferedReader r = new BufferedReader(new InputStreamReader(stream, StandardCharsets.UTF_8))) {
          for (String line = r.readLine(); line != null; line = r.readLine()) {
            synchronized (this) {
              if (into.size() < 10_000) {
                into.add(line);
              }
              notifyAll();
            }
          }
        } catch (IOException e) {
          // the child exited
        } finally {
          synchronized (this) {
            streamsOpen--;
            notifyAll();
          }
        }
      }, "tcpopt-nft-" + what);
      t.setDaemon(true);
      t.start();
    }

    synchronized int errorLines() {
      return err.size();
    }

    /**
     * Waits for the answer to {@code list}: the table's listing on stdout (from its {@code table}
     * line to the closing brace), or nft echoing the command on stderr (its error). Returns the
     * listing, empty on error.
     */
    synchronized List<String> awaitListing(String table, String list, Duration timeout) throws IOException {
      long deadline = System.nanoTime() + timeout.toNanos();
      int from = 0;
      int errFrom = err.size();
      while (true) {
        for (int i = from; i < out.size(); i++) {
          if (out.get(i).startsWith("table " + table + " {")) {
            for (int j = i + 1; j < out.size(); j++) {
              if (out.get(j).equals("}")) {
                List<String> listing = List.copyOf(out.subList(i, j + 1));
                out.subList(0, j + 1).clear();
                return listing;
              }
            }
            break;
          }
        }
        for (int i = errFrom; i < err.size(); i++) {
          if (err.get(i).strip().equals(list)) {
            return List.of();
          }
        }
        long left = deadline - System.nanoTime();
        if (streamsOpen == 0) {
          throw new IOException("status " + (process.isAlive() ? "?" : process.exitValue()));
        }
        if (left <= 0) {
          throw new IOException("no answer within " + timeout.toSeconds() + " s");
        }
        try {
          wait(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IOException("interrupted");
        }
      }
    }

    /** nft's "Error:" lines since {@code index}, on one line. */
    synchronized String errorsSince(int index) {
      List<String> lines = new ArrayList<>();
      for (String line : err.subList(Math.min(index, err.size()), err.size())) {
        if (line.startsWith("Error:")) {
          lines.add(line.substring("Error:".length()).strip());
        }
      }
      return lines.isEmpty() ? "no table listed" : String.join(" | ", lines);
    }

    synchronized String errors() {
      return err.isEmpty() ? "" : "(" + errorsSince(0) + ")";
    }
  }
}
