package io.tcpopt.cli.demo;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.security.MessageDigest;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The server "behind the DC" in the demo, on loopback. A client sends one command byte: {@code D}
 * followed by an 8-byte length gets that many bytes of deterministic data (then the server closes);
 * {@code E} gets everything echoed back until it closes. Blocking sockets on daemon threads: it is
 * a fixture, not part of the data path.
 */
public final class SampleServer implements AutoCloseable {
  private final ServerSocket socket;
  private final ExecutorService threads;

  private SampleServer(ServerSocket socket) {
    this.socket = socket;
    AtomicInteger n = new AtomicInteger();
    this.threads = Executors.newCachedThreadPool(r -> {
      Thread t = new Thread(r, "tcpopt-demo-server-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    });
  }

  public static SampleServer start() throws IOException {
    ServerSocket socket = new ServerSocket();
    socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
    SampleServer server = new SampleServer(socket);
    server.threads.execute(server::acceptLoop);
    return server;
  }

  public InetSocketAddress address() {
    return (InetSocketAddress) socket.getLocalSocketAddress();
  }

  private void acceptLoop() {
    while (!socket.isClosed()) {
      try {
        Socket client = socket.accept();
        threads.execute(() -> serve(client));
      } catch (IOException e) {
        return;
      }
    }
  }

  private static void serve(Socket client) {
    try (client; InputStream in = client.getInputStream(); OutputStream out = client.getOutputStream()) {
      int command = in.read();
      if (command == 'D') {
        long length = 0;
        for (int i = 0; i < 8; i++) {
          length = (length << 8) | (in.read() & 0xff);
        }
        byte[] chunk = new byte[64 * 1024];
        DataPattern pattern = new DataPattern();
        for (long sent = 0; sent < length; ) {
          int n = (int) Math.min(chunk.length, length - sent);
          pattern.fill(chunk, n);
          out.write(chunk, 0, n);
          sent += n;
        }
        out.flush();
      } else if (command == 'E') {
        in.transferTo(out);
      }
    } catch (IOException e) {
      // The client went away; nothing to clean up beyond the socket.
    }
  }

  @Override
  public void close() throws IOException {
    socket.close();
    threads.shutdownNow();
  }

  /** A reproducible byte stream (xorshift), so the receiver can check every byte by digest. */
  static final class DataPattern {
    private long state = 0x9E3779B97F4A7C15L;

    void fill(byte[] buffer, int length) {
      for (int i = 0; i < length; i++) {
        state ^= state << 13;
        state ^= state >>> 7;
        state ^= state << 17;
        buffer[i] = (byte) state;
      }
    }

    /** SHA-256 of the first {@code length} bytes of the pattern. */
    static byte[] digest(long length) {
      try {
        MessageDigest sha = MessageDigest.getInstance("SHA-256");
        DataPattern p = new DataPattern();
        byte[] chunk = new byte[64 * 1024];
        for (long done = 0; done < length; ) {
          int n = (int) Math.min(chunk.length, length - done);
          p.fill(chunk, n);
          sha.update(chunk, 0, n);
          done += n;
        }
        return sha.digest();
      } catch (java.security.NoSuchAlgorithmException e) {
        throw new IllegalStateException(e);
      }
    }
  }
}
