package io.tcpopt.servicenode.reuse;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/** A blocking TCP server on loopback port 0 whose per-connection behaviour a test writes. */
public final class RawBackend implements AutoCloseable {
  public interface Handler {
    void handle(Socket s, int connection) throws Exception;
  }

  private final ServerSocket server;
  private final ExecutorService pool = Executors.newCachedThreadPool(r -> {
    Thread t = new Thread(r, "raw-backend");
    t.setDaemon(true);
    return t;
  });
  final AtomicInteger connections = new AtomicInteger();
  final Queue<Throwable> errors = new ConcurrentLinkedQueue<>();

  public RawBackend(Handler handler) throws IOException {
    server = new ServerSocket(0, 128, InetAddress.getLoopbackAddress());
    pool.execute(() -> {
      while (!server.isClosed()) {
        try {
          Socket s = server.accept();
          int n = connections.incrementAndGet();
          pool.execute(() -> {
            try (s) {
              handler.handle(s, n);
            } catch (Throwable t) {
              errors.add(t);
            }
          });
        } catch (IOException e) {
          return;
        }
      }
    });
  }

  public InetSocketAddress address() {
    return (InetSocketAddress) server.getLocalSocketAddress();
  }

  /** Echoes every byte until the peer half-closes, then half-closes. */
  public static void echo(Socket s, int connection) throws IOException {
    s.getInputStream().transferTo(s.getOutputStream());
    s.shutdownOutput();
  }

  public void rethrow() {
    Throwable t = errors.peek();
    if (t != null) {
      throw new AssertionError("backend failed", t);
    }
  }

  @Override
  public void close() throws IOException {
    server.close();
    pool.shutdownNow();
  }
}
