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
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
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
 * meanwhile ({@code EPERM} for everyone else). The child runs in a session of its own, so a
 * terminal's Ctrl-C reaches only the JVM, which then removes the table itself.
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
 * <p>If the child dies while the JVM lives (killed by hand, OOM killer), the table is gone with it:
 * that is logged, {@link #problem()} says so, and the table is installed again with a fresh child,
 * retrying with a backoff (1 s doubling to 30 s) until it succeeds or {@link #close()} is called.
 */
public final class OwnedTable implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(OwnedTable.class);
  private static final Duration ANSWER_TIMEOUT = Duration.ofSeconds(10);
  private static final Duration EXIT_TIMEOUT = Duration.ofSeconds(5);
  private static final Duration MAX_BACKOFF = Duration.ofSeconds(30);
  private static final Pattern NAME = Pattern.compile("[A-Za-z][A-Za-z0-9_-]{0,31}");
  private static final SecureRandom RANDOM = new SecureRandom();
  private static final ScheduledExecutorService REINSTALLER = Executors.newSingleThreadScheduledExecutor(r -> {
    Thread t = new Thread(r, "tcpopt-nft-reinstall");
    t.setDaemon(true);
    return t;
  });

  /** Whether the kernel removes the table when the child exits. */
  public enum Ownership {
    /** The table carries the {@code owner} flag: it disappears with the child, within milliseconds of the JVM. */
    KERNEL,
    /** The kernel lacks the flag: only {@link #close()}, a guard or the next install remove the table. */
    NONE
  }

  private final Commands commands;
  private final String family;
  private final String name;
  private volatile List<String> body;
  private volatile Process nft;
  private volatile Output output;
  private volatile Ownership ownership;
  private volatile String problem;
  private volatile boolean closing;
  private long backoffMillis = 1000;

  private OwnedTable(Commands commands, String family, String name, List<String> body) {
    this.commands = commands;
    this.family = family;
    this.name = name;
    this.body = List.copyOf(body);
  }

  /**
   * Creates (or replaces) table {@code family name} with {@code body}: nft statements as they would
   * stand inside {@code table family name { ... }}, one per list item, without comments (they are
   * joined with {@code ;} onto the child's single input line).
   *
   * @throws NetfilterException with nft's error when neither an owned nor a plain table is accepted
   */
  public static OwnedTable install(Commands commands, String family, String name, List<String> body) {
    if (!NAME.matcher(family).matches() || !NAME.matcher(name).matches()) {
      throw new IllegalArgumentException("bad nftables family or table name: " + family + " " + name);
    }
    Commands.requireTool("nft", "nftables");
    OwnedTable table = new OwnedTable(commands, family, name, body);
    table.start();
    return table;
  }

  /** Starts a child and installs the table through it: owned if the kernel can, else plain. */
  private synchronized void start() {
    Process child = commands.start(false, Commands.ownSession(Commands.which("nft").orElse("nft"), "-i"));
    Output output = new Output(child);
    Ownership installed = null;
    String error = null;
    try {
      for (Ownership attempt : Ownership.values()) {
        error = tryInstall(child, output, attempt);
        if (error == null) {
          installed = attempt;
          break;
        }
        log.debug("nft refused table {} {} ({}): {}", family, name, attempt, error);
      }
    } catch (IOException e) {
      error = "nft exited: " + e.getMessage() + " " + output.errors();
    }
    if (installed == null) {
      child.destroyForcibly();
      throw new NetfilterException("nft refused table " + family + " " + name + ": " + error);
    }
    nft = child;
    this.output = output;
    ownership = installed;
    problem = null;
    child.onExit().thenRun(() -> died(child, output));
  }

  private void died(Process child, Output output) {
    if (closing) {
      return;
    }
    problem = "nft (pid " + child.pid() + ", holding table " + family + " " + name + ") exited with status " + child.exitValue()
        + (ownership == Ownership.KERNEL ? ", taking the table with it" : "") + output.errors();
    log.error("{}; installing it again", problem);
    scheduleReinstall();
  }

  private synchronized void scheduleReinstall() {
    long delay = backoffMillis;
    backoffMillis = Math.min(backoffMillis * 2, MAX_BACKOFF.toMillis());
    REINSTALLER.schedule(this::reinstall, delay, TimeUnit.MILLISECONDS);
  }

  private void reinstall() {
    if (closing) {
      return;
    }
    try {
      start();
      synchronized (this) {
        backoffMillis = 1000;
      }
      log.warn("nftables table {} {} installed again", family, name);
    } catch (NetfilterException e) {
      log.error("installing nftables table {} {} again failed: {}", family, name, e.getMessage());
      scheduleReinstall();
    }
  }

  /** Sends the transaction, then lists the table: done when the listing carries this attempt's nonce. */
  private String tryInstall(Process child, Output output, Ownership attempt) throws IOException {
    byte[] random = new byte[6];
    RANDOM.nextBytes(random);
    String nonce = "tcpopt pid " + ProcessHandle.current().pid() + " " + HexFormat.of().formatHex(random);
    String table = family + " " + name;
    String flags = attempt == Ownership.KERNEL ? "flags owner; " : "";
    String transaction = "add table " + table + "; delete table " + table + "; table " + table + " { " + flags
        + "comment \"" + nonce + "\"; " + String.join("; ", body) + "; }";
    String list = "list table " + table;
    int errorsBefore = output.errorLines();
    send(child.getOutputStream(), transaction + "\n" + list + "\n");
    List<String> listing = output.awaitListing(table, list, errorsBefore, ANSWER_TIMEOUT);
    if (listing.stream().anyMatch(l -> l.contains("\"" + nonce + "\""))) {
      return null;
    }
    return output.errorsSince(errorsBefore, Duration.ofMillis(500));
  }

  /**
   * Flushes the table's rules and adds the new body in one transaction (the kernel refuses to
   * delete and re-create an owned table in one transaction, and its comment cannot change, so no
   * nonce): then lists a table that does not exist, whose error nft echoes on stderr after any
   * error of the transaction. Returns the transaction's errors, or null.
   */
  private String tryReplace(Process child, Output output) throws IOException {
    byte[] random = new byte[6];
    RANDOM.nextBytes(random);
    String table = family + " " + name;
    String absent = name + "-" + HexFormat.of().formatHex(random);
    String marker = "list table " + family + " " + absent;
    String flags = ownership == Ownership.KERNEL ? "flags owner; " : "";
    String transaction = "flush table " + table + "; table " + table + " { " + flags + String.join("; ", body) + "; }";
    int errorsBefore = output.errorLines();
    send(child.getOutputStream(), transaction + "\n" + marker + "\n");
    output.awaitListing(family + " " + absent, marker, errorsBefore, ANSWER_TIMEOUT);
    List<String> errors = output.errorMessagesSince(errorsBefore);
    return errors.size() <= 1 ? null : String.join(" | ", errors.subList(0, errors.size() - 1)); // the last is the marker's
  }

  private static void send(OutputStream stdin, String text) throws IOException {
    stdin.write(text.getBytes(StandardCharsets.UTF_8));
    stdin.flush();
  }

  /**
   * Replaces the table's contents with {@code newBody} in one transaction through the owning child
   * (connections already diverted keep their sockets; nothing is ever without a table). A table
   * being installed again after its child died gets the new body too.
   *
   * @throws NetfilterException with nft's error when the new body is refused (the old one stays)
   */
  public synchronized void replace(List<String> newBody) {
    List<String> previous = body;
    body = List.copyOf(newBody);
    if (closing || nft == null || !nft.isAlive()) {
      return; // the reinstall (or nothing, when closing) uses the new body
    }
    String error;
    try {
      error = tryReplace(nft, output);
    } catch (IOException e) {
      error = "nft exited: " + e.getMessage();
    }
    if (error != null) {
      body = previous;
      throw new NetfilterException("nft refused the new contents of table " + family + " " + name + ": " + error);
    }
  }

  public Ownership ownership() {
    return ownership;
  }

  /** Why the table is not in place right now (its child died; being installed again), or null. */
  public String problem() {
    return problem;
  }

  /** Whether the child holding the table runs. */
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
    Process child = nft;
    try {
      if (child.isAlive()) {
        send(child.getOutputStream(), "delete table " + family + " " + name + "\n");
      }
    } catch (IOException e) {
      log.debug("nft holding table {} {} already gone: {}", family, name, e.toString());
    }
    try {
      child.getOutputStream().close();
      if (!child.waitFor(EXIT_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
        child.destroyForcibly();
      }
    } catch (IOException e) {
      // the child is gone already
    } catch (InterruptedException e) {
      child.destroyForcibly();
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
     * listing, empty on error. {@code errFrom}: the number of error lines before the command was
     * sent (taken before sending: nft may answer on stderr before this is called).
     */
    synchronized List<String> awaitListing(String table, String list, int errFrom, Duration timeout) throws IOException {
      long deadline = System.nanoTime() + timeout.toNanos();
      int from = 0;
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

    /**
     * nft's "Error:" lines since {@code index}, on one line. A refused transaction's errors come on
     * stderr, read by another thread than the listing on stdout: waits up to {@code timeout} for
     * the first of them.
     */
    synchronized String errorsSince(int index, Duration timeout) {
      long deadline = System.nanoTime() + timeout.toNanos();
      List<String> lines = errorMessagesSince(index);
      while (lines.isEmpty() && streamsOpen > 0) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          break;
        }
        try {
          wait(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          break;
        }
        lines = errorMessagesSince(index);
      }
      return lines.isEmpty() ? "no table listed" : String.join(" | ", lines);
    }

    /** nft's "Error:" messages since {@code index}. */
    synchronized List<String> errorMessagesSince(int index) {
      List<String> lines = new ArrayList<>();
      for (String line : err.subList(Math.min(index, err.size()), err.size())) {
        if (line.startsWith("Error:")) {
          lines.add(line.substring("Error:".length()).strip());
        }
      }
      return lines;
    }

    synchronized String errors() {
      List<String> lines = errorMessagesSince(0);
      return err.isEmpty() ? "" : " (" + (lines.isEmpty() ? "no table listed" : String.join(" | ", lines)) + ")";
    }
  }
}
