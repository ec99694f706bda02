package io.tcpopt.bench;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A stand-alone echo server and client run inside the testbed namespaces (JDK only, started with
 * {@code java -cp <test classes>}), so every flow's bytes can be checked end to end.
 *
 * <pre>
 *   server HOST PORT...            echoes every connection until EOF; prints LISTENING once bound
 *   client HOST PORT FLOWS BYTES   per flow: sends BYTES random bytes while reading the echo back;
 *                                  prints "FLOW port=P local=IP:PORT sent=SHA received=SHA" and
 *                                  finally "DONE ok=N failed=M" (exit 0 only if all matched)
 * </pre>
 *
 * <p>A separate process whose protocol with the test is its output lines, hence {@code System.out}.
 * The client reads exactly as many bytes as it sent and then closes, so no half-close is needed
 * on the path. Bounded: the client's sockets time out after 20 s without progress.
 */
final class EchoDigestTool {
  private static final int CHUNK = 64 * 1024;
  private static final int TIMEOUT_MILLIS = 20_000;

  private EchoDigestTool() {}

  public static void main(String[] args) throws Exception {
    if (args.length >= 3 && args[0].equals("server")) {
      server(args);
    } else if (args.length == 5 && args[0].equals("client")) {
      System.exit(client(args[1], Integer.parseInt(args[2]), Integer.parseInt(args[3]), Integer.parseInt(args[4])));
    } else {
      System.err.println("usage: server HOST PORT... | client HOST PORT FLOWS BYTES");
      System.exit(2);
    }
  }

  private static void server(String[] args) throws IOException {
    InetAddress host = InetAddress.getByName(args[1]);
    List<ServerSocket> sockets = new ArrayList<>();
    for (int i = 2; i < args.length; i++) {
      ServerSocket s = new ServerSocket();
      s.setReuseAddress(true);
      s.bind(new InetSocketAddress(host, Integer.parseInt(args[i])));
      sockets.add(s);
    }
    for (ServerSocket s : sockets) {
      Thread acceptor = new Thread(() -> accept(s), "accept-" + s.getLocalPort());
      acceptor.start();
    }
    System.out.println("LISTENING");
    System.out.flush();
  }

  private static void accept(ServerSocket server) {
    while (true) {
      try {
        Socket s = server.accept();
        System.out.println("CONN port=" + server.getLocalPort() + " remote=" + s.getRemoteSocketAddress());
        System.out.flush();
        Thread echo = new Thread(() -> echo(s), "echo");
        echo.setDaemon(true);
        echo.start();
      } catch (IOException e) {
        return;
      }
    }
  }

  private static void echo(Socket s) {
    byte[] buffer = new byte[CHUNK];
    try (s; InputStream in = s.getInputStream(); OutputStream out = s.getOutputStream()) {
      for (int n; (n = in.read(buffer)) > 0; ) {
        out.write(buffer, 0, n);
      }
    } catch (IOException e) {
      // the client went away; nothing to echo any more
    }
  }

  private static int client(String host, int port, int flows, int bytes) throws Exception {
    int ok = 0;
    for (int i = 0; i < flows; i++) {
      if (oneFlow(host, port, bytes, i)) {
        ok++;
      }
    }
    System.out.println("DONE ok=" + ok + " failed=" + (flows - ok));
    return ok == flows ? 0 : 1;
  }

  private static boolean oneFlow(String host, int port, int bytes, int seed) throws Exception {
    byte[] payload = new byte[bytes];
    new Random(port * 1_000L + seed).nextBytes(payload);
    MessageDigest received = sha256();
    try (Socket s = new Socket()) {
      s.setSoTimeout(TIMEOUT_MILLIS);
      s.connect(new InetSocketAddress(host, port), TIMEOUT_MILLIS);
      AtomicReference<IOException> sendError = new AtomicReference<>();
      Thread sender = new Thread(() -> {
        try {
          OutputStream out = s.getOutputStream();
          for (int off = 0; off < bytes; off += CHUNK) {
            out.write(payload, off, Math.min(CHUNK, bytes - off));
          }
          out.flush();
        } catch (IOException e) {
          sendError.set(e);
        }
      }, "send");
      sender.start();
      byte[] buffer = new byte[CHUNK];
      long total = 0;
      InputStream in = s.getInputStream();
      while (total < bytes) {
        int n = in.read(buffer, 0, (int) Math.min(buffer.length, bytes - total));
        if (n < 0) {
          break;
        }
        received.update(buffer, 0, n);
        total += n;
      }
      sender.join(TIMEOUT_MILLIS);
      String local = s.getLocalAddress().getHostAddress() + ":" + s.getLocalPort();
      String sent = HexFormat.of().formatHex(sha256().digest(payload));
      String got = HexFormat.of().formatHex(received.digest());
      System.out.println("FLOW port=" + port + " local=" + local + " sent=" + sent + " received=" + got
          + " bytes=" + total + (sendError.get() == null ? "" : " send-error=" + sendError.get()));
      System.out.flush();
      return total == bytes && sent.equals(got) && sendError.get() == null;
    } catch (IOException e) {
      System.out.println("FLOW port=" + port + " error=" + e);
      return false;
    }
  }

  private static MessageDigest sha256() throws NoSuchAlgorithmException {
    return MessageDigest.getInstance("SHA-256");
  }
}
