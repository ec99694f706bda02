package io.tcpopt.servicenode.reuse;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class ConnectionCloseRewriteTest {
  @Test
  void renamesConnectionCloseAcrossBuffersWithoutChangingTheLength() {
    String head = "GET / HTTP/1.1\r\nHost: b\r\nConnection: close\r\nX: y\r\n\r\n";
    List<ByteBuf> parts = List.of(buf(head.substring(0, 30)), buf(head.substring(30)));
    assertTrue(ConnectionCloseRewrite.keepServerConnection(parts));
    assertEquals(head.replace("Connection: close", "X-Cnection: close"), text(parts));
    parts.forEach(ByteBuf::release);
  }

  @Test
  void leavesOtherConnectionOptionsAndBodiesAlone() {
    for (String head : List.of("GET / HTTP/1.1\r\nConnection: keep-alive, close\r\n\r\n", "GET / HTTP/1.1\r\nHost: b\r\n\r\n",
        "POST / HTTP/1.1\r\nContent-Length: 19\r\n\r\nConnection: close\r\n")) {
      ByteBuf b = buf(head);
      assertFalse(ConnectionCloseRewrite.keepServerConnection(List.of(b)), head);
      assertEquals(head, text(List.of(b)));
      b.release();
    }
  }

  private static ByteBuf buf(String s) {
    return Unpooled.copiedBuffer(s, StandardCharsets.US_ASCII);
  }

  private static String text(List<ByteBuf> parts) {
    StringBuilder sb = new StringBuilder();
    parts.forEach(p -> sb.append(p.toString(StandardCharsets.US_ASCII)));
    return sb.toString();
  }
}
