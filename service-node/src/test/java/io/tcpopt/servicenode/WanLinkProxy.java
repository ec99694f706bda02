package io.tcpopt.servicenode;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A stand-in for the WAN between a branch node and a DC node on loopback: the branch dials this
 * proxy, which relays each WAN connection to the DC. Optionally it is the bottleneck, like a real
 * link: each direction of each connection moves at most {@code bytesPerSecond}, with small socket
 * buffers on both sides of the proxy so the queue at the bottleneck stays shallow, also when a
 * node is slow to read (bytes wait in the sending node, where its scheduler sees them). A test can sever one connection ({@link #cut}: RST both ways), as a lost
 * WAN connection. Bytes relayed are counted per connection and direction.
 */
final class WanLinkProxy implements AutoCloseable {
  private static final int CHUNK = 16 * 1024;
  /** Socket buffers of the proxy when it is the bottleneck (the kernel doubles them): the link's queue. */
  private static final int SHALLOW_BUFFER = 64 * 1024;

  /** One relayed WAN connection: the branch's side and the DC's side. */
  static final class Link {
    final Socket branchSide;
    final Socket dcSide;
    /** Bytes relayed from the branch to the DC. */
    final AtomicLong branchToDc = new AtomicLong();
    /** Bytes relayed from the DC to the branch. */
    final AtomicLong dcToBranch = new AtomicLong();

    Link(Socket branchSide, Socket dcSide) {
      this.branchSide = branchSide;
      this.dcSide = dcSide;
    }
  }

  private final ServerSocket server;
  private final InetSocketAddress dc;
  private final long bytesPerSecond;
  /** Each byte's one-way delay (half the WAN's round trip), 0 for none. */
  private final long delayNanos;
  private final ExecutorService pool = Executors.newCachedThreadPool(r -> {
    Thread t = new Thread(r, "wan-link-proxy");
    t.setDaemon(true);
    return t;
  });
  final List<Link> links = new CopyOnWriteArrayList<>();
  /** While set, bytes from the branch to the DC are held back (read, not relayed): a round trip that does not end. */
  private volatile boolean holdBranchToDc;

  /** @param bytesPerSecond the rate of each direction of each connection, 0 for no limit */
  WanLinkProxy(InetSocketAddress dc, long bytesPerSecond) throws IOException {
    this(dc, bytesPerSecond, Duration.ZERO);
  }

  /**
   * @param bytesPerSecond the rate of each direction of each connection, 0 for no limit
   * @param oneWayDelay how long every byte takes through the proxy each way (the WAN's round trip is
   *     twice this); with a delay there is no rate limit
   */
  WanLinkProxy(InetSocketAddress dc, long bytesPerSecond, Duration oneWayDelay) throws IOException {
    this.dc = dc;
    this.bytesPerSecond = oneWayDelay.isZero() ? bytesPerSecond : 0;
    this.delayNanos = oneWayDelay.toNanos();
    this.server = new ServerSocket();
    if (bytesPerSecond > 0) {
      server.setReceiveBufferSize(SHALLOW_BUFFER);
    }
    server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 64);
    pool.execute(this::acceptLoop);
  }

  InetSocketAddress address() {
    return (InetSocketAddress) server.getLocalSocketAddress();
  }

  private void acceptLoop() {
    while (!server.isClosed()) {
      Socket branchSide;
      try {
        branchSide = server.accept();
      } catch (IOException e) {
        return;
      }
      Socket dcSide = new Socket();
      try {
        if (bytesPerSecond > 0) {
          dcSide.setReceiveBufferSize(SHALLOW_BUFFER);
          dcSide.setSendBufferSize(SHALLOW_BUFFER);
          branchSide.setSendBufferSize(SHALLOW_BUFFER);
        }
        dcSide.setTcpNoDelay(true);
        branchSide.setTcpNoDelay(true);
        dcSide.connect(dc, 5_000);
      } catch (IOException e) {
        closeQuietly(branchSide);
        closeQuietly(dcSide);
        continue;
      }
      Link link = new Link(branchSide, dcSide);
      links.add(link);
      if (delayNanos > 0) {
        delayed(branchSide, dcSide, link.branchToDc);
        delayed(dcSide, branchSide, link.dcToBranch);
      } else {
        pool.execute(() -> relay(link, branchSide, dcSide, link.branchToDc));
        pool.execute(() -> relay(link, dcSide, branchSide, link.dcToBranch));
      }
    }
  }

  private void relay(Link link, Socket from, Socket to, AtomicLong counter) {
    byte[] buf = new byte[CHUNK];
    long start = System.nanoTime();
    long moved = 0;
    try {
      InputStream in = from.getInputStream();
      OutputStream out = to.getOutputStream();
      int n;
      while ((n = in.read(buf)) >= 0) {
        while (holdBranchToDc && counter == link.branchToDc) {
          TimeUnit.MILLISECONDS.sleep(2);
        }
        out.write(buf, 0, n);
        counter.addAndGet(n);
        moved += n;
        if (bytesPerSecond > 0) {
          long due = start + moved * 1_000_000_000L / bytesPerSecond;
          long wait = due - System.nanoTime();
          if (wait > 0) {
            TimeUnit.NANOSECONDS.sleep(wait);
          } else if (wait < -100_000_000L) {
            start += -wait - 100_000_000L; // no catching up after a stall longer than 100 ms
          }
        }
      }
      to.shutdownOutput();
    } catch (IOException | InterruptedException e) {
      closeQuietly(from);
      closeQuietly(to);
    }
  }

  /**
   * Holds back (or, with false, releases) everything the branch sends the DC from now on: what the
   * DC may send meanwhile is only the credit it already had, as in the first round trip of a path
   * whose round trip is longer than the test.
   */
  void holdBranchToDc(boolean hold) {
    holdBranchToDc = hold;
  }

  /** Bytes read at one time, due at the far side at {@code due} (System.nanoTime); an empty chunk is the end. */
  private record Chunk(long due, byte[] bytes) {}

  /**
   * Relays one direction with the one-way delay: one thread reads and stamps each read with when
   * it is due, another writes it then, so bytes read together arrive together, a delay later.
   */
  private void delayed(Socket from, Socket to, AtomicLong counter) {
    BlockingQueue<Chunk> inFlight = new LinkedBlockingQueue<>();
    pool.execute(() -> {
      byte[] buf = new byte[CHUNK];
      try {
        InputStream in = from.getInputStream();
        int n;
        while ((n = in.read(buf)) >= 0) {
          inFlight.add(new Chunk(System.nanoTime() + delayNanos, Arrays.copyOf(buf, n)));
        }
      } catch (IOException e) {
        // the writer closes both once it reaches the end
      }
      inFlight.add(new Chunk(System.nanoTime() + delayNanos, new byte[0]));
    });
    pool.execute(() -> {
      try {
        OutputStream out = to.getOutputStream();
        for (;;) {
          Chunk c = inFlight.take();
          long wait = c.due() - System.nanoTime();
          if (wait > 0) {
            TimeUnit.NANOSECONDS.sleep(wait);
          }
          if (c.bytes().length == 0) {
            to.shutdownOutput();
            return;
          }
          out.write(c.bytes());
          counter.addAndGet(c.bytes().length);
        }
      } catch (IOException | InterruptedException e) {
        closeQuietly(from);
        closeQuietly(to);
      }
    });
  }

  /** Severs {@code link} as a lost WAN connection: both nodes see a reset. */
  void cut(Link link) {
    for (Socket s : new Socket[] {link.branchSide, link.dcSide}) {
      try {
        s.setSoLinger(true, 0);
      } catch (IOException e) {
        // already closed
      }
      closeQuietly(s);
    }
  }

  private static void closeQuietly(Socket s) {
    try {
      s.close();
    } catch (IOException e) {
      // closing anyway
    }
  }

  @Override
  public void close() throws IOException {
    server.close();
    for (Link l : links) {
      closeQuietly(l.branchSide);
      closeQuietly(l.dcSide);
    }
    pool.shutdownNow();
    try {
      pool.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
