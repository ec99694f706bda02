package io.tcpopt.controller.api;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tcpopt.common.config.ConfigTree;
import io.tcpopt.controller.ControllerConfig;
import java.io.IOException;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The controller API closes connections that never finish their handshake: a plaintext one that
 * never sends the HTTP/2 preface is closed by {@code handshake-timeout}, and one that sent only the
 * preface is closed by {@code max-connection-idle} (after gRPC's graceful GOAWAY, up to 10 s more).
 */
class GrpcIdleConnectionsTest {
  private static final byte[] PREFACE = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

  private static GrpcServer server() {
    ControllerConfig config = ControllerConfig.from(ConfigTree.parse(
        "listen: 127.0.0.1:0\nhandshake-timeout: 500ms\nmax-connection-idle: 1s\nhazelcast: { cluster-name: idle-test, port: 5799 }\n", "test"),
        "ctl", "branch");
    return GrpcServer.start(config, List.of());
  }

  @Test
  void aSilentConnectionIsClosedByTheHandshakeTimeout() throws Exception {
    try (GrpcServer server = server(); Socket s = new Socket()) {
      s.connect(server.address(), 2_000);
      s.setSoTimeout(20_000);
      long started = System.nanoTime();
      assertTrue(closedByPeer(s), "closed");
      long ms = (System.nanoTime() - started) / 1_000_000;
      assertTrue(ms >= 300 && ms < 3_000, "by the 500 ms handshake timeout: " + ms + " ms");
    }
  }

  @Test
  void aConnectionWithoutCallsIsClosedWhenIdle() throws Exception {
    try (GrpcServer server = server(); Socket s = new Socket()) {
      s.connect(server.address(), 2_000);
      s.setSoTimeout(20_000);
      s.getOutputStream().write(PREFACE);
      s.getOutputStream().write(new byte[] {0, 0, 0, 4, 0, 0, 0, 0, 0}); // an empty SETTINGS frame
      s.getOutputStream().flush();
      long started = System.nanoTime();
      assertTrue(closedByPeer(s), "closed");
      long ms = (System.nanoTime() - started) / 1_000_000;
      // gRPC closes an idle connection gracefully: GOAWAY and a PING, then it waits up to 10 s for the
      // PING's answer (which this client never sends) before it closes.
      assertTrue(ms >= 800 && ms < 16_000, "by max-connection-idle 1 s (+ up to 10 s of graceful GOAWAY): " + ms + " ms");
    }
  }

  /** Reads (and discards the server's SETTINGS, GOAWAY) until the server closes or resets {@code s}. */
  private static boolean closedByPeer(Socket s) throws IOException {
    byte[] buf = new byte[4096];
    try {
      while (s.getInputStream().read(buf) >= 0) {
        // frames the server sends before closing
      }
      return true;
    } catch (SocketTimeoutException e) {
      return false;
    } catch (IOException e) {
      return true;
    }
  }
}
