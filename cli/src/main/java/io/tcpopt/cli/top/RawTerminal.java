package io.tcpopt.cli.top;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/**
 * The controlling terminal in the mode {@code top} needs: keys arrive one at a time without echo
 * ({@code stty -icanon -echo}; Ctrl-C still interrupts), the alternate screen is used and the cursor
 * hidden. {@link #close()} puts everything back as it was ({@code stty} with the saved settings),
 * and so does the shutdown path after Ctrl-C, which closes it too. Needs {@code stty} and {@code
 * /dev/tty}: any Unix terminal, local or over SSH.
 */
final class RawTerminal implements AutoCloseable {
  private static final File TTY = new File("/dev/tty");
  private static final String ENTER = "\033[?1049h\033[?25l";
  private static final String LEAVE = "\033[?25h\033[?1049l";

  private final PrintStream out;
  private final InputStream in;
  private final String saved;
  private boolean closed;

  private RawTerminal(PrintStream out, InputStream in, String saved) {
    this.out = out;
    this.in = in;
    this.saved = saved;
  }

  static RawTerminal open(PrintStream out, InputStream in) throws IOException {
    String saved = stty("-g").trim();
    stty("-icanon", "-echo", "min", "1", "time", "0");
    out.print(ENTER);
    out.flush();
    return new RawTerminal(out, in, saved);
  }

  /** Columns and rows, or 80x24 when the terminal does not say. */
  int[] size() {
    try {
      String[] rowsCols = stty("size").trim().split("\\s+");
      int rows = Integer.parseInt(rowsCols[0]);
      int cols = Integer.parseInt(rowsCols[1]);
      return new int[] {cols > 0 ? cols : 80, rows > 0 ? rows : 24};
    } catch (IOException | RuntimeException e) {
      return new int[] {80, 24};
    }
  }

  /** Replaces the screen's content with {@code lines}. */
  void draw(java.util.List<String> lines) {
    StringBuilder b = new StringBuilder("\033[H");
    for (String line : lines) {
      b.append(line).append("\033[K\r\n");
    }
    b.append("\033[J");
    out.print(b);
    out.flush();
  }

  /** A key typed since the last call, or -1. Never blocks. */
  int key() throws IOException {
    return in.available() > 0 ? in.read() : -1;
  }

  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    out.print(LEAVE);
    out.flush();
    try {
      stty(saved);
    } catch (IOException e) {
      out.println("tcpopt: could not restore the terminal (run 'stty sane'): " + e.getMessage());
    }
  }

  private static String stty(String... args) throws IOException {
    String[] command = new String[args.length + 1];
    command[0] = "stty";
    System.arraycopy(args, 0, command, 1, args.length);
    Process p = new ProcessBuilder(command).redirectInput(TTY).redirectError(ProcessBuilder.Redirect.INHERIT).start();
    try {
      String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!p.waitFor(5, TimeUnit.SECONDS) || p.exitValue() != 0) {
        throw new IOException("stty " + String.join(" ", args) + " failed");
      }
      return output;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while running stty", e);
    }
  }
}
