package io.tcpopt.cli.demo;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.Arrays;
import java.util.function.LongConsumer;

/** A download from the {@link SampleServer} through a listener, checked by SHA-256 of every byte. */
public final class Transfer {
  /** What a download achieved. */
  public record Result(long bytes, Duration elapsed, boolean digestMatches) {
    public double bitsPerSecond() {
      return elapsed.toNanos() == 0 ? 0 : bytes * 8e9 / elapsed.toNanos();
    }
  }

  private Transfer() {}

  /** Downloads {@code length} bytes via {@code address}; {@code progress} hears the running byte count. */
  public static Result download(InetSocketAddress address, long length, Duration timeout, LongConsumer progress) throws IOException {
    MessageDigest sha = sha256();
    long start = System.nanoTime();
    long received = 0;
    try (Socket socket = new Socket()) {
      socket.connect(address, (int) timeout.toMillis());
      socket.setSoTimeout((int) timeout.toMillis());
      OutputStream out = socket.getOutputStream();
      byte[] request = new byte[9];
      request[0] = 'D';
      for (int i = 0; i < 8; i++) {
        request[1 + i] = (byte) (length >>> (56 - 8 * i));
      }
      out.write(request);
      out.flush();
      InputStream in = socket.getInputStream();
      byte[] buffer = new byte[256 * 1024];
      long reported = 0;
      for (int n; (n = in.read(buffer)) > 0; ) {
        sha.update(buffer, 0, n);
        received += n;
        if (received - reported >= length / 8 || received == length) {
          progress.accept(received);
          reported = received;
        }
      }
    }
    Duration elapsed = Duration.ofNanos(System.nanoTime() - start);
    boolean ok = received == length && Arrays.equals(sha.digest(), SampleServer.DataPattern.digest(length));
    return new Result(received, elapsed, ok);
  }

  /** Opens an echo connection (an interactive flow that stays open) and checks one round trip. */
  public static Socket openEcho(InetSocketAddress address, Duration timeout) throws IOException {
    Socket socket = new Socket();
    try {
      socket.connect(address, (int) timeout.toMillis());
      socket.setSoTimeout((int) timeout.toMillis());
      byte[] hello = "Ehello tcpopt\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
      socket.getOutputStream().write(hello);
      socket.getOutputStream().flush();
      byte[] echoed = socket.getInputStream().readNBytes(hello.length - 1);
      if (!Arrays.equals(echoed, Arrays.copyOfRange(hello, 1, hello.length))) {
        throw new IOException("echo through the tunnel returned different bytes");
      }
      return socket;
    } catch (IOException e) {
      socket.close();
      throw e;
    }
  }

  private static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
