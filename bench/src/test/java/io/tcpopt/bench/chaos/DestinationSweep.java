package io.tcpopt.bench.chaos;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Opens {@code FLOWS} short flows, each to its own destination: flow {@code i} (counted from
 * {@code FIRST_FLOW}) goes to the {@code i / PORTS}-th address after {@code BASE} (skipping host
 * parts .0 and .255) on the {@code i % PORTS}-th port, sends 8 bytes, reads them back, closes.
 * {@code THREADS} flows at once; stops at {@code LIMIT_MS}. Prints {@code SWEEP flows=N ok=N
 * failed=N ms=N last=ADDR:PORT}. Run in the client namespace of the testbed; its protocol with the
 * test is its output, hence {@code System.out}.
 *
 * <pre>
 *   BASE PORTS(comma-separated) FIRST_FLOW FLOWS THREADS LIMIT_MS
 * </pre>
 */
final class DestinationSweep {
  private DestinationSweep() {}

  public static void main(String[] args) throws Exception {
    int base = ByteBuffer.wrap(InetAddress.getByName(args[0]).getAddress()).getInt();
    int[] ports = Arrays.stream(args[1].split(",")).mapToInt(Integer::parseInt).toArray();
    int first = Integer.parseInt(args[2]);
    int flows = Integer.parseInt(args[3]);
    int threads = Integer.parseInt(args[4]);
    long deadline = System.nanoTime() + Long.parseLong(args[5]) * 1_000_000L;
    AtomicInteger next = new AtomicInteger(first);
    AtomicInteger ok = new AtomicInteger();
    AtomicInteger failed = new AtomicInteger();
    long t0 = System.nanoTime();
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    for (int t = 0; t < threads; t++) {
      pool.execute(() -> {
        int i;
        while ((i = next.getAndIncrement()) < first + flows && System.nanoTime() < deadline) {
          if (flow(destination(base, i / ports.length, ports[i % ports.length]), i)) {
            ok.incrementAndGet();
          } else {
            failed.incrementAndGet();
          }
        }
      });
    }
    pool.shutdown();
    pool.awaitTermination(Long.parseLong(args[5]) + 20_000, TimeUnit.MILLISECONDS);
    int last = first + ok.get() + failed.get() - 1;
    System.out.println("SWEEP flows=" + (ok.get() + failed.get()) + " ok=" + ok + " failed=" + failed + " ms="
        + (System.nanoTime() - t0) / 1_000_000 + " last=" + destination(base, last / ports.length, ports[last % ports.length]));
    System.exit(0);
  }

  /** The {@code n}-th usable address after {@code base} (254 per /24: .1 to .254). */
  static InetSocketAddress destination(int base, int n, int port) {
    int address = base + (n / 254) * 256 + 1 + n % 254;
    byte[] b = ByteBuffer.allocate(4).putInt(address).array();
    try {
      return new InetSocketAddress(InetAddress.getByAddress(b), port);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  private static boolean flow(InetSocketAddress to, int i) {
    byte[] sent = ByteBuffer.allocate(8).putLong(i * 0x9E3779B97F4A7C15L).array();
    try (Socket s = new Socket()) {
      s.connect(to, 5_000);
      s.setSoTimeout(10_000);
      s.getOutputStream().write(sent);
      byte[] got = s.getInputStream().readNBytes(8);
      return Arrays.equals(sent, got);
    } catch (IOException e) {
      return false;
    }
  }
}
