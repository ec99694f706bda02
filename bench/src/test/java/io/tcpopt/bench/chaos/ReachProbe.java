package io.tcpopt.bench.chaos;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/**
 * Measures how soon a new connection gets through, run inside the client namespace before the
 * failure so that JVM start-up is not measured: on a {@code go} line on stdin it connects to {@code
 * HOST PORT} again and again (200 ms connect timeout, 20 ms apart) until one round trip of one byte
 * through an echo server succeeds, then prints {@code REACHED ms=N attempts=N}; after {@code
 * LIMIT_MS} it prints {@code UNREACHED ms=N attempts=N}. Its protocol with the test is its output,
 * hence {@code System.out}.
 */
final class ReachProbe {
  private ReachProbe() {}

  public static void main(String[] args) throws Exception {
    InetSocketAddress target = new InetSocketAddress(args[0], Integer.parseInt(args[1]));
    long limitMillis = Long.parseLong(args[2]);
    System.out.println("WAITING");
    System.out.flush();
    BufferedReader stdin = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    if (!"go".equals(stdin.readLine())) {
      return;
    }
    long start = System.nanoTime();
    int attempts = 0;
    while (true) {
      attempts++;
      long elapsed = (System.nanoTime() - start) / 1_000_000;
      if (elapsed > limitMillis) {
        System.out.println("UNREACHED ms=" + elapsed + " attempts=" + attempts);
        return;
      }
      if (roundTrip(target)) {
        System.out.println("REACHED ms=" + (System.nanoTime() - start) / 1_000_000 + " attempts=" + attempts);
        return;
      }
      Thread.sleep(20);
    }
  }

  private static boolean roundTrip(InetSocketAddress target) {
    try (Socket s = new Socket()) {
      s.connect(target, 200);
      s.setSoTimeout(500);
      s.getOutputStream().write('x');
      return s.getInputStream().read() == 'x';
    } catch (IOException e) {
      return false;
    }
  }
}
