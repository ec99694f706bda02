package io.tcpopt.servicenode;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * WAN connections that never finish TLS + HELLO, on a live mutual-TLS pair on loopback whose DC
 * allows 4 of them at once for 500 ms: the fifth is reset as it is accepted; the four are closed by
 * the handshake timeout; the branch's session and its flows carry on, byte-exact.
 */
class PendingHandshakesTest {
  @TempDir Path certs;

  @Test
  void beyondTheCapConnectionsAreResetAtOnceAndTheRestTimeOut() throws Exception {
    try (TestServer echo = new TestServer(s -> {
      s.getInputStream().transferTo(s.getOutputStream());
      s.shutdownOutput();
    });
        TestNodes nodes = TestNodes.start(certs, 1, List.of(echo.address()), "    handshake-timeout: 500ms\n    max-pending-handshakes: 4\n", "")) {
      List<Socket> silent = new ArrayList<>();
      try {
        for (int i = 0; i < 4; i++) {
          Socket s = new Socket();
          s.connect(nodes.dc.wanAddress(), 2_000);
          silent.add(s);
        }
        TestNodes.await(() -> pending(nodes) == 4, 5_000, "4 pending at the DC");
        long started = System.nanoTime();
        try (Socket fifth = new Socket()) {
          boolean reset;
          try {
            fifth.connect(nodes.dc.wanAddress(), 2_000);
            fifth.setSoTimeout(5_000);
            reset = closedByPeer(fifth);
          } catch (IOException e) {
            reset = true; // the reset can overtake the connect's completion on loopback
          }
          assertTrue(reset, "the fifth is closed");
          long ms = (System.nanoTime() - started) / 1_000_000;
          assertTrue(ms < 400, "at once, not by the 500 ms timeout: " + ms + " ms");
        }
        assertEquals(1.0, nodes.dcMeters.get("tcpopt.session.pending.refused").counter().count());
        for (Socket s : silent) {
          s.setSoTimeout(5_000);
          assertTrue(closedByPeer(s), "closed by the handshake timeout");
        }
        long ms = (System.nanoTime() - started) / 1_000_000;
        assertTrue(ms >= 300 && ms < 3_000, "closed by the 500 ms timeout: " + ms + " ms");
        TestNodes.await(() -> pending(nodes) == 0, 5_000, "none pending");
      } finally {
        for (Socket s : silent) {
          s.close();
        }
      }
      assertEquals(nodes.pooled(), nodes.upAtDc(), "the branch's connections are untouched");
      try (Socket s = new Socket()) {
        s.connect(nodes.listener(0), 5_000);
        s.setSoTimeout(10_000);
        String sent = Payload.write(s.getOutputStream(), 1 << 20, 3);
        s.shutdownOutput();
        assertEquals(sent, Payload.readAll(s.getInputStream()).sha256(), "a flow after the flood, byte-exact");
      }
    }
  }

  private static double pending(TestNodes nodes) {
    return nodes.dcMeters.get("tcpopt.session.pending").gauge().value();
  }

  /** Whether the peer closed or reset {@code s} (end of stream or a reset) before its read timeout. */
  private static boolean closedByPeer(Socket s) throws IOException {
    try {
      return s.getInputStream().read() < 0;
    } catch (SocketTimeoutException e) {
      return false;
    } catch (IOException e) {
      return true; // connection reset
    }
  }
}
