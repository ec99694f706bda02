package io.tcpopt.bench.chaos;

import io.tcpopt.common.tls.TlsContexts;
import io.tcpopt.common.tls.TlsFiles;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;

/**
 * Opens {@code COUNT} WAN connections to a node, each with TLS (the given certificate) and a HELLO
 * naming a node of its own ({@code PREFIX-i}, site {@code SITE}), and reads until the node closes
 * it. Prints {@code HELLOS sent=N goaway={CODE=N...} failed=N ms=N}, where CODE is the GOAWAY code
 * the node answered with (docs/wire-format.md, section 6). {@code THREADS} at once. Run in a
 * testbed namespace (classpath: the test classes and the tcpopt jar, for the PEM loading); its
 * protocol with the test is its output, hence {@code System.out}.
 *
 * <pre>
 *   HOST PORT CERT KEY CA PREFIX SITE COUNT THREADS
 * </pre>
 */
final class HelloNames {
  private HelloNames() {}

  public static void main(String[] args) throws Exception {
    InetSocketAddress target = new InetSocketAddress(args[0], Integer.parseInt(args[1]));
    SSLContext tls = TlsContexts.jdkServer(new TlsFiles(Path.of(args[2]), Path.of(args[3]), Path.of(args[4])));
    String prefix = args[5];
    String site = args[6];
    int count = Integer.parseInt(args[7]);
    int threads = Integer.parseInt(args[8]);
    Map<Integer, LongAdder> codes = new ConcurrentHashMap<>();
    AtomicInteger next = new AtomicInteger();
    AtomicInteger failed = new AtomicInteger();
    long t0 = System.nanoTime();
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    for (int t = 0; t < threads; t++) {
      pool.execute(() -> {
        int i;
        while ((i = next.getAndIncrement()) < count) {
          int code = hello(tls, target, prefix + "-" + i, site);
          if (code < 0) {
            failed.incrementAndGet();
          } else {
            codes.computeIfAbsent(code, c -> new LongAdder()).increment();
          }
        }
      });
    }
    pool.shutdown();
    pool.awaitTermination(10, TimeUnit.MINUTES);
    Map<Integer, Long> sorted = new TreeMap<>();
    codes.forEach((c, n) -> sorted.put(c, n.sum()));
    System.out.println("HELLOS sent=" + count + " goaway=" + sorted + " failed=" + failed + " ms=" + (System.nanoTime() - t0) / 1_000_000);
    System.exit(0);
  }

  /** The GOAWAY code the node answered {@code name}'s HELLO with; -1 when it closed without one or failed. */
  private static int hello(SSLContext tls, InetSocketAddress target, String name, String site) {
    try (SSLSocket s = (SSLSocket) tls.getSocketFactory().createSocket()) {
      s.connect(target, 5_000);
      s.setSoTimeout(15_000);
      s.startHandshake();
      OutputStream out = s.getOutputStream();
      out.write(helloFrame(name, site));
      out.flush();
      DataInputStream in = new DataInputStream(s.getInputStream());
      while (true) {
        int length = in.readInt();
        int type = in.readUnsignedByte();
        in.skipNBytes(7);
        if (length > 1 << 20) {
          return -1;
        }
        byte[] payload = in.readNBytes(length);
        if (type == 6 && payload.length >= 8) {
          return ByteBuffer.wrap(payload).getInt(4);
        }
      }
    } catch (IOException e) {
      return -1;
    }
  }

  /** HELLO (docs/wire-format.md 5.1): version 2, 16 KiB frames, 64 KiB window, 100 streams, session 1 connection 0, name, site. */
  static byte[] helloFrame(String name, String site) {
    byte[] n = name.getBytes(StandardCharsets.UTF_8);
    byte[] s = site.getBytes(StandardCharsets.UTF_8);
    int length = 34 + n.length + s.length;
    ByteBuffer b = ByteBuffer.allocate(12 + length);
    b.putInt(length).put((byte) 0).put((byte) 0).putShort((short) 0).putInt(0);
    b.putInt(0x5443504F).putShort((short) 2).putShort((short) 0).putInt(16384).putInt(65536).putInt(100);
    b.putLong(1).putInt(0);
    b.put((byte) n.length).put(n).put((byte) s.length).put(s);
    return b.array();
  }
}
