package io.tcpopt.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.BindException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

/**
 * Opens flows one after another to an echo server from one source address and holds them open,
 * for flow-limit tests in the testbed namespaces (JDK only, {@code java -cp <test classes>}).
 *
 * <pre>
 *   HOST PORT SOURCE COUNT    per flow: connect from SOURCE, send 1 KiB, read the echo back;
 *                             prints "FLOW n ok|reset|eof|timeout|connect-failed"; then "HELD k"
 *                             (k flows echoed) and waits for a line on stdin; then echoes once more
 *                             on every held flow ("STILL k" alive), closes them all, prints "CLOSED"
 * </pre>
 *
 * A separate process whose protocol with the test is its output, hence {@code System.out}.
 * Bounded: each read times out after 10 s.
 */
final class HoldFlowsTool {
  private static final int MESSAGE = 1024;

  private HoldFlowsTool() {}

  public static void main(String[] args) throws Exception {
    if (args.length != 4) {
      System.err.println("usage: HOST PORT SOURCE COUNT");
      System.exit(2);
    }
    InetSocketAddress target = new InetSocketAddress(args[0], Integer.parseInt(args[1]));
    InetAddress source = InetAddress.getByName(args[2]);
    int count = Integer.parseInt(args[3]);
    List<Socket> held = new ArrayList<>();
    for (int i = 1; i <= count; i++) {
      Socket s = new Socket();
      String outcome;
      try {
        s.setSoTimeout(10_000);
        s.bind(new InetSocketAddress(source, 0));
        s.connect(target, 10_000);
        outcome = echo(s, i);
      } catch (BindException | ConnectException | SocketTimeoutException e) {
        outcome = "connect-failed";
      } catch (IOException e) {
        // The handshake completed and the node reset the flow at once: a timed connect reads the socket's error
        // after its poll returns, so on a starved machine the reset can overtake the connect's completion.
        outcome = "reset";
      }
      System.out.println("FLOW " + i + " " + outcome);
      System.out.flush();
      if (outcome.equals("ok")) {
        held.add(s);
      } else {
        s.close();
      }
    }
    System.out.println("HELD " + held.size());
    System.out.flush();
    new BufferedReader(new InputStreamReader(System.in, StandardCharsets.US_ASCII)).readLine();
    int alive = 0;
    for (Socket s : held) {
      if (echo(s, 1000 + alive).equals("ok")) {
        alive++;
      }
      s.close();
    }
    System.out.println("STILL " + alive);
    System.out.println("CLOSED");
    System.out.flush();
  }

  /** One 1 KiB round trip: "ok" when the echo is identical. */
  private static String echo(Socket s, long seed) {
    byte[] out = new byte[MESSAGE];
    new Random(seed).nextBytes(out);
    byte[] in = new byte[MESSAGE];
    try {
      s.getOutputStream().write(out);
      InputStream is = s.getInputStream();
      int got = 0;
      while (got < MESSAGE) {
        int n = is.read(in, got, MESSAGE - got);
        if (n < 0) {
          return "eof";
        }
        got += n;
      }
      return Arrays.equals(in, out) ? "ok" : "corrupt";
    } catch (SocketTimeoutException e) {
      return "timeout";
    } catch (IOException e) {
      return "reset";
    }
  }
}
