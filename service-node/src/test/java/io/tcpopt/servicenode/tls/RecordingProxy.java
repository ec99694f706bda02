package io.tcpopt.servicenode.tls;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;

/**
 * A one-connection TCP relay on loopback that records every byte the server sends the client, so
 * a test can read the TLS records as they were on the wire.
 */
final class RecordingProxy implements AutoCloseable {
  /** One TLS record seen on the wire: content type, length (without the 5-byte header), offset in the stream. */
  record TlsRecord(int type, int length, int offset) {
    int wireSize() {
      return length + 5;
    }
  }

  private final ServerSocket listener;
  private final ByteArrayOutputStream toClient = new ByteArrayOutputStream();
  private final List<Thread> threads = new ArrayList<>();
  private volatile Socket client;
  private volatile Socket server;

  RecordingProxy(InetSocketAddress target) throws IOException {
    listener = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
    Thread accept = new Thread(() -> {
      try {
        client = listener.accept();
        server = new Socket(target.getAddress(), target.getPort());
        start(() -> pump(client.getInputStream(), server.getOutputStream(), null, server));
        start(() -> pump(server.getInputStream(), client.getOutputStream(), toClient, client));
      } catch (IOException e) {
        // the test fails on its own when nothing arrives
      }
    }, "recording-proxy");
    accept.setDaemon(true);
    accept.start();
  }

  private interface Pump {
    void run() throws IOException;
  }

  private void start(Pump p) {
    Thread t = new Thread(() -> {
      try {
        p.run();
      } catch (IOException e) {
        // closed
      }
    }, "recording-proxy-pump");
    t.setDaemon(true);
    threads.add(t);
    t.start();
  }

  private void pump(InputStream in, OutputStream out, ByteArrayOutputStream record, Socket to) throws IOException {
    byte[] buf = new byte[65536];
    int n;
    while ((n = in.read(buf)) >= 0) {
      if (record != null) {
        synchronized (record) {
          record.write(buf, 0, n);
        }
      }
      out.write(buf, 0, n);
      out.flush();
    }
    to.shutdownOutput();
  }

  int port() {
    return listener.getLocalPort();
  }

  /** Bytes sent to the client so far. */
  int recorded() {
    synchronized (toClient) {
      return toClient.size();
    }
  }

  /** The TLS records sent to the client, in order. */
  List<TlsRecord> records() {
    byte[] b;
    synchronized (toClient) {
      b = toClient.toByteArray();
    }
    List<TlsRecord> out = new ArrayList<>();
    int i = 0;
    while (i + 5 <= b.length) {
      int length = ((b[i + 3] & 0xff) << 8) | (b[i + 4] & 0xff);
      out.add(new TlsRecord(b[i] & 0xff, length, i));
      i += 5 + length;
    }
    return out;
  }

  @Override
  public void close() throws IOException {
    listener.close();
    if (client != null) {
      client.close();
    }
    if (server != null) {
      server.close();
    }
  }
}
