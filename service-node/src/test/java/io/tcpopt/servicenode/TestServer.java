package io.tcpopt.servicenode;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * A blocking TCP server on loopback port 0 whose per-connection behaviour a test sets; errors
 * thrown by a handler are kept for the test to re-throw.
 */
final class TestServer implements AutoCloseable {
  interface Handler {
    void handle(Socket s) throws Exception;
  }

  private final ServerSocket server;
  private final ExecutorService pool = Executors.newCachedThreadPool(r -> {
    Thread t = new Thread(r, "test-server");
    t.setDaemon(true);
    return t;
  });
  final Queue<Throwable> errors = new ConcurrentLinkedQueue<>();
  private volatile Handler handler;

  TestServer(Handler handler) throws IOException {
    this.handler = handler;
    this.server = new ServerSocket(0, 512, InetAddress.getLoopbackAddress());
    pool.execute(this::acceptLoop);
  }

  void handler(Handler h) {
    this.handler = h;
  }

  InetSocketAddress address() {
    return (InetSocketAddress) server.getLocalSocketAddress();
  }

  ExecutorService pool() {
    return pool;
  }

  private void acceptLoop() {
    while (!server.isClosed()) {
      try {
        Socket s = server.accept();
        Handler h = handler;
        pool.execute(() -> {
          try (s) {
            h.handle(s);
          } catch (Throwable t) {
            errors.add(t);
          }
        });
      } catch (IOException e) {
        return;
      }
    }
  }

  /** Re-throws the first handler error in the test thread. */
  void rethrow() {
    Throwable t = errors.peek();
    if (t != null) {
      throw new AssertionError("server handler failed", t);
    }
  }

  @Override
  public void close() throws IOException {
    server.close();
    pool.shutdownNow();
    try {
      pool.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
