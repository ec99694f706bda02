package io.tcpopt.servicenode;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * A TCP relay on loopback standing in for the WAN between two nodes: it forwards each connection
 * to {@code target}, can stop forwarding one way ({@link #freezeTowardsTarget}: bytes pile up in
 * the socket buffers, as on a blackholed path) and can cut every connection with a reset both ways
 * ({@link #cut}: the nodes see their WAN connections fail at once).
 */
final class WanRelay implements AutoCloseable {
  private final ServerSocket server;
  private final InetSocketAddress target;
  private final List<Socket> sockets = new CopyOnWriteArrayList<>();
  private final ExecutorService pool = Executors.newCachedThreadPool(r -> {
    Thread t = new Thread(r, "wan-relay");
    t.setDaemon(true);
    return t;
  });
  private volatile boolean frozenTowardsTarget;

  WanRelay(InetSocketAddress target) throws IOException {
    this.target = target;
    this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    pool.execute(this::acceptLoop);
  }

  InetSocketAddress address() {
    return new InetSocketAddress("127.0.0.1", server.getLocalPort());
  }

  private void acceptLoop() {
    while (!server.isClosed()) {
      try {
        Socket in = server.accept();
        Socket out = new Socket();
        out.connect(target, 5_000);
        sockets.add(in);
        sockets.add(out);
        pool.execute(() -> pump(in, out, true));
        pool.execute(() -> pump(out, in, false));
      } catch (IOException e) {
        return;
      }
    }
  }

  private void pump(Socket from, Socket to, boolean towardsTarget) {
    byte[] buf = new byte[64 * 1024];
    try {
      InputStream in = from.getInputStream();
      OutputStream out = to.getOutputStream();
      while (true) {
        while (towardsTarget && frozenTowardsTarget && !from.isClosed()) {
          Thread.sleep(5);
        }
        int n = in.read(buf);
        if (n < 0) {
          to.shutdownOutput();
          return;
        }
        out.write(buf, 0, n);
      }
    } catch (IOException | InterruptedException e) {
      // cut, or the node closed its end
    }
  }

  /** Stops forwarding from the dialling node to the target: what it sends stays in the buffers. */
  void freezeTowardsTarget() {
    frozenTowardsTarget = true;
  }

  /** Resets every relayed connection both ways, as a WAN failure the nodes notice at once. */
  void cut() {
    frozenTowardsTarget = false;
    for (Socket s : sockets) {
      try {
        s.setSoLinger(true, 0);
        s.close();
      } catch (IOException e) {
        // already gone
      }
    }
    sockets.clear();
  }

  @Override
  public void close() throws IOException {
    server.close();
    cut();
    pool.shutdownNow();
    try {
      pool.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
