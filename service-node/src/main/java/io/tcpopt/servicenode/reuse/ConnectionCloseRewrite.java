package io.tcpopt.servicenode.reuse;

import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * The OneConnect transformation (F5's name): a request whose client wants the connection closed
 * after it ({@code Connection: close}) would make the server close a connection the pool could
 * reuse. The request's {@code Connection} headers are renamed in place, without changing a byte
 * count, to {@code X-Cnection} (the name F5 uses), so the server keeps the connection; the flow
 * still ends after the response, as the client asked.
 *
 * <p>Only when every {@code Connection} header of the head says just {@code close}: any other
 * connection option (keep-alive, a hop-by-hop header's name) leaves the head untouched.
 */
final class ConnectionCloseRewrite {
  private static final byte[] NAME = "connection:".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] RENAMED = "X-Cnection".getBytes(StandardCharsets.US_ASCII);

  private ConnectionCloseRewrite() {}

  /**
   * Renames the {@code Connection: close} headers of the request head at the start of {@code
   * bytes} (the head complete in them, possibly followed by body bytes). Returns whether it did.
   */
  static boolean keepServerConnection(Collection<ByteBuf> bytes) {
    Bytes b = new Bytes(bytes);
    List<Integer> headers = new ArrayList<>();
    int line = b.indexOfCrlf(0) + 2; // past the request line
    while (line > 1 && line < b.length) {
      int end = b.indexOfCrlf(line);
      if (end < 0 || end == line) {
        break; // the empty line ending the head
      }
      if (b.startsWithIgnoreCase(line, NAME)) {
        if (!b.text(line + NAME.length, end).trim().equalsIgnoreCase("close")) {
          return false;
        }
        headers.add(line);
      }
      line = end + 2;
    }
    for (int at : headers) {
      b.set(at, RENAMED);
    }
    return !headers.isEmpty();
  }

  /** A few buffers read as one byte sequence, by absolute index from their reader indexes. */
  private static final class Bytes {
    private final List<ByteBuf> parts;
    final int length;

    Bytes(Collection<ByteBuf> parts) {
      this.parts = List.copyOf(parts);
      int n = 0;
      for (ByteBuf p : parts) {
        n += p.readableBytes();
      }
      this.length = n;
    }

    byte get(int i) {
      for (ByteBuf p : parts) {
        if (i < p.readableBytes()) {
          return p.getByte(p.readerIndex() + i);
        }
        i -= p.readableBytes();
      }
      throw new IndexOutOfBoundsException();
    }

    void set(int at, byte[] value) {
      for (int k = 0; k < value.length; k++) {
        int i = at + k;
        for (ByteBuf p : parts) {
          if (i < p.readableBytes()) {
            p.setByte(p.readerIndex() + i, value[k]);
            break;
          }
          i -= p.readableBytes();
        }
      }
    }

    int indexOfCrlf(int from) {
      for (int i = from; i + 1 < length; i++) {
        if (get(i) == '\r' && get(i + 1) == '\n') {
          return i;
        }
      }
      return -1;
    }

    boolean startsWithIgnoreCase(int at, byte[] prefix) {
      if (at + prefix.length > length) {
        return false;
      }
      for (int k = 0; k < prefix.length; k++) {
        if (Character.toLowerCase(get(at + k)) != prefix[k]) {
          return false;
        }
      }
      return true;
    }

    String text(int from, int to) {
      byte[] out = new byte[to - from];
      for (int i = from; i < to; i++) {
        out[i - from] = get(i);
      }
      return new String(out, StandardCharsets.US_ASCII);
    }
  }
}
