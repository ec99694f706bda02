package io.tcpopt.bench;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.SplittableRandom;

/**
 * One-way transfers between end hosts in the testbed namespaces (JDK only, started with {@code
 * java -cp <test classes>}), each side printing what it got so a test can tell a complete
 * transfer (every byte, SHA-256 equal), a reset, and a clean EOF on short data apart.
 *
 * <pre>
 *   server HOST PORT                       prints LISTENING once bound, then one line per transfer
 *   client HOST PORT MODE BYTES ID [HOLD]  one transfer; prints one RESULT line, exits 0. With HOLD (a
 *                                          file path) the client moves at most 32 KiB per 100 ms
 *                                          until that file exists, then at full speed: a test keeps
 *                                          a transfer running until it has done what it must meanwhile
 * </pre>
 *
 * Modes: {@code D} download (the server sends BYTES, then closes), {@code H} half-closed download
 * (the client sends its request and FIN first; the server reads to EOF, then sends), {@code U}
 * upload (the client sends BYTES and FIN; the server reads to EOF). Lines:
 *
 * <pre>
 *   SENT id=ID bytes=N sha=SHA | SEND-ERROR id=ID bytes=N            (server, D and H)
 *   UPLOAD id=ID outcome=eof|reset bytes=N sha=SHA                    (server, U)
 *   RESULT id=ID mode=M outcome=eof|reset|timeout bytes=N sha=SHA ms=T  (client; for U: what it sent;
 *                                          T: from the connect to the end)
 * </pre>
 *
 * A separate process whose protocol with the test is its output, hence {@code System.out}. Bounded:
 * sockets time out after 90 s without progress.
 */
final class TransferDigestTool {
  private static final int BLOCK = 64 * 1024;
  private static final int TIMEOUT_MILLIS = 90_000;
  /**
   * Accept queue: a burst of connections (a thousand flows set up at once by a DC node) waits here
   * rather than losing SYNs to a full queue while a loaded machine schedules the accepting thread
   * (the default of 50 would make those connects wait for SYN retransmits, seconds each).
   */
  private static final int BACKLOG = 2048;

  private TransferDigestTool() {}

  public static void main(String[] args) throws Exception {
    if (args.length == 3 && args[0].equals("server")) {
      server(args[1], Integer.parseInt(args[2]));
    } else if ((args.length == 6 || args.length == 7) && args[0].equals("client")) {
      Pace pace = args.length == 7 ? new Pace(Path.of(args[6])) : Pace.NONE;
      client(args[1], Integer.parseInt(args[2]), args[3].charAt(0), Long.parseLong(args[4]), Long.parseLong(args[5]), pace);
    } else {
      System.err.println("usage: server HOST PORT | client HOST PORT D|H|U BYTES ID [HOLD]");
      System.exit(2);
    }
  }

  private static void server(String host, int port) throws IOException {
    ServerSocket server = new ServerSocket();
    server.setReuseAddress(true);
    server.bind(new InetSocketAddress(InetAddress.getByName(host), port), BACKLOG);
    say("LISTENING");
    while (true) {
      Socket s = server.accept();
      Thread t = new Thread(() -> serve(s), "transfer");
      t.setDaemon(true);
      t.start();
    }
  }

  private static void serve(Socket s) {
    try (s) {
      s.setSoTimeout(TIMEOUT_MILLIS);
      DataInputStream in = new DataInputStream(s.getInputStream());
      char mode = (char) in.readByte();
      long bytes = in.readLong();
      long id = in.readLong();
      if (mode == 'U') {
        Digest d = readToEnd(in, Pace.NONE);
        say("UPLOAD id=" + id + " outcome=" + d.outcome + " bytes=" + d.bytes + " sha=" + d.sha);
        return;
      }
      if (mode == 'H') {
        readToEnd(in, Pace.NONE); // the client's FIN first
      }
      long[] sent = new long[1];
      try {
        String sha = write(s.getOutputStream(), bytes, id, sent, Pace.NONE);
        say("SENT id=" + id + " bytes=" + bytes + " sha=" + sha);
      } catch (IOException e) {
        say("SEND-ERROR id=" + id + " bytes=" + sent[0]);
      }
    } catch (IOException e) {
      // a request cut short: nothing to report
    }
  }

  private static void client(String host, int port, char mode, long bytes, long id, Pace pace) throws Exception {
    try (Socket s = new Socket()) {
      s.setSoTimeout(TIMEOUT_MILLIS);
      long start = System.nanoTime();
      s.connect(new InetSocketAddress(host, port), 10_000);
      DataOutputStream out = new DataOutputStream(s.getOutputStream());
      out.writeByte(mode);
      out.writeLong(bytes);
      out.writeLong(id);
      out.flush();
      if (mode == 'U') {
        long[] sent = new long[1];
        String outcome = "eof";
        String sha = "-";
        try {
          sha = write(out, bytes, id, sent, pace);
          s.shutdownOutput();
          readToEnd(s.getInputStream(), Pace.NONE);
        } catch (IOException e) {
          outcome = e instanceof SocketTimeoutException ? "timeout" : "reset";
        }
        say("RESULT id=" + id + " mode=U outcome=" + outcome + " bytes=" + sent[0] + " sha=" + sha + " ms=" + (System.nanoTime() - start) / 1_000_000);
        return;
      }
      if (mode == 'H') {
        s.shutdownOutput();
      }
      Digest d = readToEnd(s.getInputStream(), pace);
      say("RESULT id=" + id + " mode=" + mode + " outcome=" + d.outcome + " bytes=" + d.bytes + " sha=" + d.sha + " ms="
          + (System.nanoTime() - start) / 1_000_000);
    } catch (IOException e) {
      say("RESULT id=" + id + " mode=" + mode + " outcome=connect-failed bytes=0 sha=- error=" + e);
    }
  }

  private record Digest(String outcome, long bytes, String sha) {}

  /** Holds a transfer to 32 KiB per 100 ms until its file exists ({@code until} null: never). */
  private record Pace(Path until) {
    static final Pace NONE = new Pace(null);
    private static final int SLOW_BYTES = 32 * 1024;

    private boolean slow() {
      return until != null && !Files.exists(until);
    }

    /** How much to move next, at most {@code max}. */
    int next(int max) {
      return slow() ? Math.min(max, SLOW_BYTES) : max;
    }

    /** After moving a piece: waits while slow. */
    void pause() throws IOException {
      if (slow()) {
        try {
          Thread.sleep(100);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IOException("interrupted", e);
        }
      }
    }
  }

  /** Reads to EOF: outcome "eof", or "reset"/"timeout" when the stream ended with an error. */
  private static Digest readToEnd(InputStream in, Pace pace) {
    MessageDigest md = sha256();
    byte[] buf = new byte[BLOCK];
    long total = 0;
    String outcome = "eof";
    try {
      for (int n; (n = in.read(buf, 0, pace.next(buf.length))) >= 0; ) {
        md.update(buf, 0, n);
        total += n;
        pace.pause();
      }
    } catch (SocketTimeoutException e) {
      outcome = "timeout";
    } catch (IOException e) {
      outcome = "reset";
    }
    return new Digest(outcome, total, HexFormat.of().formatHex(md.digest()));
  }

  /** Writes {@code bytes} bytes derived from {@code id}; returns their SHA-256. {@code sent[0]} counts what was written. */
  private static String write(OutputStream out, long bytes, long id, long[] sent, Pace pace) throws IOException {
    MessageDigest md = sha256();
    byte[] block = new byte[BLOCK];
    new SplittableRandom(id).nextBytes(block);
    long n = 0;
    while (sent[0] < bytes) {
      long stamp = id * 1_000_003L + n++;
      for (int i = 0; i < 8; i++) {
        block[i] = (byte) (stamp >>> (8 * i));
      }
      int len = (int) Math.min(BLOCK, bytes - sent[0]);
      for (int off = 0; off < len; ) {
        int piece = pace.next(len - off);
        out.write(block, off, piece);
        md.update(block, off, piece);
        off += piece;
        sent[0] += piece;
        pace.pause();
      }
    }
    out.flush();
    return HexFormat.of().formatHex(md.digest());
  }

  private static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  private static synchronized void say(String line) {
    System.out.println(line);
    System.out.flush();
  }
}
