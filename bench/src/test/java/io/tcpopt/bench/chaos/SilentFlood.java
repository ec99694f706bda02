package io.tcpopt.bench.chaos;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.util.Iterator;

/**
 * Opens {@code COUNT} TCP connections to {@code HOST PORT} that never send a byte, at most 256
 * connecting at once, and waits until the server has closed every one (end of stream or reset) or
 * {@code LIMIT_MS} passed. Prints {@code FLOOD port=P opened=N failed=N closed=N open=N maxMs=N},
 * where maxMs is the longest time from a connection's establishment to its close by the server.
 * Run inside a testbed namespace; its protocol with the test is its output, hence {@code System.out}.
 */
final class SilentFlood {
  private SilentFlood() {}

  public static void main(String[] args) throws Exception {
    InetSocketAddress target = new InetSocketAddress(args[0], Integer.parseInt(args[1]));
    int count = Integer.parseInt(args[2]);
    long limit = System.nanoTime() + Long.parseLong(args[3]) * 1_000_000L;
    int started = 0;
    int connecting = 0;
    int opened = 0;
    int failed = 0;
    int closed = 0;
    long maxMs = 0;
    ByteBuffer buf = ByteBuffer.allocate(4096);
    try (Selector selector = Selector.open()) {
      while (System.nanoTime() < limit && closed + failed < count) {
        while (started < count && connecting < 256) {
          SocketChannel ch = SocketChannel.open();
          ch.configureBlocking(false);
          ch.connect(target);
          ch.register(selector, SelectionKey.OP_CONNECT);
          started++;
          connecting++;
        }
        selector.select(50);
        for (Iterator<SelectionKey> it = selector.selectedKeys().iterator(); it.hasNext(); ) {
          SelectionKey k = it.next();
          it.remove();
          SocketChannel ch = (SocketChannel) k.channel();
          if (k.isConnectable()) {
            connecting--;
            try {
              ch.finishConnect();
              opened++;
              k.attach(System.nanoTime());
              k.interestOps(SelectionKey.OP_READ);
            } catch (IOException e) {
              failed++;
              ch.close();
            }
          } else if (k.isReadable()) {
            int n;
            try {
              buf.clear();
              n = ch.read(buf);
            } catch (IOException e) {
              n = -1;
            }
            if (n < 0) {
              closed++;
              maxMs = Math.max(maxMs, (System.nanoTime() - (Long) k.attachment()) / 1_000_000);
              ch.close();
            }
          }
        }
      }
      for (SelectionKey k : selector.keys()) {
        k.channel().close();
      }
    }
    System.out.println("FLOOD port=" + target.getPort() + " opened=" + opened + " failed=" + failed + " closed=" + closed + " open="
        + (count - closed - failed) + " maxMs=" + maxMs);
  }
}
