package io.tcpopt.servicenode.intercept.transparent;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A tiny end host for namespace tests, run as its own process; its stdout lines are its protocol
 * with the test (hence {@code System.out} here).
 *
 * <ul>
 *   <li>{@code server PORT}: echoes every connection; when the client closes, prints {@code CONN
 *       remote=IP:PORT local=IP:PORT bytes=N sha256=HEX} for the bytes it received.
 *   <li>{@code client HOST PORT FLOWS BYTES [hold]}: opens FLOWS concurrent connections, sends each
 *       BYTES of seeded random data and checks the echo byte for byte (SHA-256). With {@code hold}
 *       it keeps all connections open after the echo, prints {@code HOLDING n} and waits for a
 *       line on stdin. Then it closes them, prints one {@code FLOW i ok|failed sha256=HEX ...} line
 *       each and {@code DONE ok=N failed=M}.
 * </ul>
 *
 * Every wait is bounded (connect 10 s, socket reads 60 s, the whole run 120 s).
 */
public final class DigestTool {
  private static final PrintStream OUT = System.out;

  private DigestTool() {}

  public static void main(String[] args) throws Exception {
    if (args.length >= 2 && args[0].equals("server")) {
      server(Integer.parseInt(args[1]));
    } else if (args.length >= 5 && args[0].equals("client")) {
      System.exit(client(args[1], Integer.parseInt(args[2]), Integer.parseInt(args[3]), Integer.parseInt(args[4]), args.length > 5 && args[5].equals("hold")));
    } else {
      System.err.println("usage: server PORT | client HOST PORT FLOWS BYTES [hold]");
      System.exit(2);
    }
  }

  private static void server(int port) throws IOException {
    try (ServerSocket listener = new ServerSocket()) {
      listener.setReuseAddress(true);
      listener.bind(new InetSocketAddress(port), 512);
      say("LISTENING " + listener.getLocalSocketAddress());
      while (true) {
        Socket s = listener.accept();
        Thread t = new Thread(() -> echo(s), "echo");
        t.setDaemon(true);
        t.start();
      }
    }
  }

  private static void echo(Socket s) {
    try (s) {
      s.setSoTimeout(60_000);
      MessageDigest sha = sha256();
      InputStream in = s.getInputStream();
      OutputStream out = s.getOutputStream();
      byte[] buf = new byte[64 * 1024];
      long total = 0;
      for (int n = in.read(buf); n >= 0; n = in.read(buf)) {
        sha.update(buf, 0, n);
        out.write(buf, 0, n);
        total += n;
      }
      say("CONN remote=" + hostPort(s.getRemoteSocketAddress()) + " local=" + hostPort(s.getLocalSocketAddress()) + " bytes=" + total + " sha256=" + hex(sha));
    } catch (IOException e) {
      say("CONNFAIL " + e);
    }
  }

  private static int client(String host, int port, int flows, int bytes, boolean hold) throws Exception {
    CountDownLatch echoed = new CountDownLatch(flows);
    CountDownLatch release = new CountDownLatch(1);
    AtomicInteger ok = new AtomicInteger();
    Thread[] threads = new Thread[flows];
    String[] results = new String[flows];
    for (int i = 0; i < flows; i++) {
      int flow = i;
      threads[i] = new Thread(() -> {
        results[flow] = flow(flow, host, port, bytes, echoed, hold ? release : null);
        if (results[flow].contains(" ok ")) {
          ok.incrementAndGet();
        }
      }, "flow-" + i);
      threads[i].setDaemon(true);
      threads[i].start();
    }
    if (hold) {
      echoed.await(120, TimeUnit.SECONDS);
      say("HOLDING " + (flows - echoed.getCount()));
      new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
      release.countDown();
    }
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
    for (Thread t : threads) {
      t.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
    }
    for (int i = 0; i < flows; i++) {
      say(results[i] == null ? "FLOW " + i + " failed timeout" : results[i]);
    }
    say("DONE ok=" + ok.get() + " failed=" + (flows - ok.get()));
    return ok.get() == flows ? 0 : 1;
  }

  /** One flow: send seeded data while reading the echo, optionally hold, then close both ways. */
  private static String flow(int flow, String host, int port, int bytes, CountDownLatch echoed, CountDownLatch release) {
    boolean counted = false;
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress(host, port), 10_000);
      s.setSoTimeout(60_000);
      MessageDigest sent = sha256();
      MessageDigest received = sha256();
      Thread writer = new Thread(() -> {
        try {
          OutputStream out = s.getOutputStream();
          SplittableRandom random = new SplittableRandom(flow * 7919L + 17);
          byte[] chunk = new byte[16 * 1024];
          for (int left = bytes; left > 0; ) {
            int n = Math.min(left, chunk.length);
            for (int j = 0; j < n; j++) {
              chunk[j] = (byte) random.nextInt(256);
            }
            sent.update(chunk, 0, n);
            out.write(chunk, 0, n);
            left -= n;
          }
          out.flush();
        } catch (IOException e) {
          // the reader sees the broken connection
        }
      }, "writer-" + flow);
      writer.setDaemon(true);
      writer.start();
      InputStream in = s.getInputStream();
      byte[] buf = new byte[64 * 1024];
      long got = 0;
      while (got < bytes) {
        int n = in.read(buf, 0, (int) Math.min(buf.length, bytes - got));
        if (n < 0) {
          break;
        }
        received.update(buf, 0, n);
        got += n;
      }
      writer.join(60_000);
      echoed.countDown();
      counted = true;
      if (release != null) {
        release.await(120, TimeUnit.SECONDS);
      }
      s.shutdownOutput();
      boolean cleanEnd = in.read() < 0;
      String sentHex = hex(sent);
      String receivedHex = hex(received);
      boolean good = got == bytes && sentHex.equals(receivedHex) && cleanEnd;
      return "FLOW " + flow + (good ? " ok " : " failed ") + "sha256=" + sentHex + " echoed=" + receivedHex + " bytes=" + got
          + " local=" + hostPort(s.getLocalSocketAddress()) + " fin=" + cleanEnd;
    } catch (Exception e) {
      return "FLOW " + flow + " failed " + e;
    } finally {
      if (!counted) {
        echoed.countDown();
      }
    }
  }

  private static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  private static String hex(MessageDigest sha) {
    return HexFormat.of().formatHex(sha.digest());
  }

  private static String hostPort(java.net.SocketAddress a) {
    return io.tcpopt.common.net.HostPort.format((InetSocketAddress) a);
  }

  private static synchronized void say(String line) {
    OUT.println(line);
    OUT.flush();
  }
}
