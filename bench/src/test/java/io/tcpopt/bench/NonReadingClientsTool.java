package io.tcpopt.bench;

import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;

/**
 * Clients that ask a {@link TransferDigestTool} server for a download and never read a byte of
 * it, for memory-bound tests in the testbed namespaces (JDK only, {@code java -cp <test classes>}).
 *
 * <pre>
 *   HOST PORT COUNT BYTES   opens COUNT connections one after another (receive buffer 4 KiB, set
 *                           before the connect so the window stays small), sends each a download
 *                           request of BYTES (mode D, ids 100000...), never reads; prints
 *                           "CONNECTED n ms=T" every 100 and "OPEN n failed=f ms=T" once all are
 *                           tried (T: since the first connect); then waits until its stdin ends,
 *                           closes them all and prints "CLOSED"
 * </pre>
 *
 * A separate process whose protocol with the test is its output, hence {@code System.out}.
 */
final class NonReadingClientsTool {
  private static final int RECEIVE_BUFFER = 4 * 1024;

  private NonReadingClientsTool() {}

  public static void main(String[] args) throws Exception {
    if (args.length != 4) {
      System.err.println("usage: HOST PORT COUNT BYTES");
      System.exit(2);
    }
    InetSocketAddress target = new InetSocketAddress(args[0], Integer.parseInt(args[1]));
    int count = Integer.parseInt(args[2]);
    long bytes = Long.parseLong(args[3]);
    List<Socket> open = new ArrayList<>();
    int failed = 0;
    long start = System.nanoTime();
    for (int i = 0; i < count; i++) {
      Socket s = new Socket();
      try {
        s.setReceiveBufferSize(RECEIVE_BUFFER);
        s.connect(target, 10_000);
        DataOutputStream out = new DataOutputStream(s.getOutputStream());
        out.writeByte('D');
        out.writeLong(bytes);
        out.writeLong(100_000 + i);
        out.flush();
        open.add(s);
        if (open.size() % 100 == 0) {
          System.out.println("CONNECTED " + open.size() + " ms=" + (System.nanoTime() - start) / 1_000_000);
        }
      } catch (IOException e) {
        failed++;
        System.out.println("FAILED " + i + " " + e);
        s.close();
      }
    }
    System.out.println("OPEN " + open.size() + " failed=" + failed + " ms=" + (System.nanoTime() - start) / 1_000_000);
    System.out.flush();
    while (System.in.read() >= 0) {
      // held until the test closes our stdin (or stops us)
    }
    for (Socket s : open) {
      s.close();
    }
    System.out.println("CLOSED");
    System.out.flush();
  }
}
