package io.tcpopt.servicenode;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.tcpopt.servicenode.trust.TrustedPeer;
import io.tcpopt.servicenode.wire.FrameType;
import io.tcpopt.servicenode.wire.HelloFrame;
import io.tcpopt.servicenode.wire.WireCodes;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Hostile bytes on the WAN port, on real sockets: garbage gets GOAWAY and a close; a peer that
 * completes the handshake, opens a stream and then stops reading is declared dead by keepalive;
 * a normal flow through the same DC works throughout.
 */
class HostilePeerTest {
  static TestServer server;
  static TestNodes nodes;

  @BeforeAll
  static void start() throws Exception {
    server = new TestServer(s -> {
      long size = new DataInputStream(s.getInputStream()).readLong();
      try {
        Payload.write(s.getOutputStream(), size, 5);
        s.shutdownOutput();
      } catch (IOException e) {
        // the rogue's flow is reset when the DC drops it
      }
    });
    nodes = TestNodes.start(null, 1, List.of(server.address()), "    keepalive: 1s\n", "");
    nodes.dc.registeredPeers(List.of(new TrustedPeer("rogue", "branch"))); // a known peer that turns hostile
  }

  @AfterAll
  static void stop() throws Exception {
    TestNodes.closeAll(nodes, server);
  }

  private static void normalFlowWorks() throws Exception {
    try (Socket s = new Socket()) {
      s.connect(nodes.listener(0), 5_000);
      s.setSoTimeout(10_000);
      new DataOutputStream(s.getOutputStream()).writeLong(4 << 20);
      java.io.ByteArrayOutputStream expected = new java.io.ByteArrayOutputStream();
      String want = Payload.write(expected, 4 << 20, 5);
      assertEquals(want, Payload.readAll(s.getInputStream()).sha256());
    }
  }

  @Test
  void garbageGetsGoAwayAndTheNodeKeepsServing() throws Exception {
    try (Socket s = new Socket()) {
      s.connect(nodes.dc.wanAddress(), 5_000);
      s.setSoTimeout(5_000);
      s.getOutputStream().write("GET / HTTP/1.1\r\nHost: dc\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
      byte[] all = readToEnd(s.getInputStream());
      ByteBuffer b = ByteBuffer.wrap(all);
      int helloLength = b.getInt(0);
      assertEquals(FrameType.HELLO, b.get(4));
      int goAway = FrameType.HEADER_LENGTH + helloLength;
      assertEquals(FrameType.GOAWAY, b.get(goAway + 4), "second frame is GOAWAY");
      assertEquals(WireCodes.GOAWAY_PROTOCOL_ERROR, b.getInt(goAway + FrameType.HEADER_LENGTH + 4));
    }
    normalFlowWorks();
  }

  @Test
  void peerThatStopsReadingIsDroppedWhileOthersFlow() throws Exception {
    try (Socket rogue = new Socket()) {
      rogue.setReceiveBufferSize(16 * 1024);
      rogue.connect(nodes.dc.wanAddress(), 5_000);
      DataOutputStream out = new DataOutputStream(rogue.getOutputStream());
      writeHello(out, "rogue");
      writeOpen(out, 1, server.address().getPort(), 64L << 20);
      out.flush();
      TestNodes.await(() -> up("rogue") == 1, 5_000, "the rogue's session");
      normalFlowWorks();
      // Never reading: its PINGs go unanswered and the DC closes the connection.
      TestNodes.await(() -> up("rogue") == 0, 10_000, "the rogue to be dropped");
      normalFlowWorks();
      assertEquals(nodes.pooled(), nodes.upAtBranch(), "the branch's connections survived");
    }
  }

  private static int up(String peer) {
    return nodes.dc.sessions().stream().filter(p -> p.name().equals(peer)).mapToInt(PeerSessionStatus::connectionsUp).sum();
  }

  private static void writeHello(DataOutputStream out, String name) throws IOException {
    byte[] n = name.getBytes(StandardCharsets.UTF_8);
    byte[] site = "branch".getBytes(StandardCharsets.UTF_8);
    out.writeInt(34 + n.length + site.length);
    out.writeInt(0);
    out.writeInt(0);
    out.writeInt(HelloFrame.MAGIC);
    out.writeShort(HelloFrame.VERSION);
    out.writeShort(0);
    out.writeInt(64 * 1024);
    out.writeInt(1 << 20);
    out.writeInt(100);
    out.writeLong(0x0bad_5e55_10e0_0001L); // session (this "dialler"'s pool)
    out.writeInt(0); // connection index
    out.writeByte(n.length);
    out.write(n);
    out.writeByte(site.length);
    out.write(site);
  }

  /** OPEN carrying the 8-byte request (download size) as first bytes. */
  private static void writeOpen(DataOutputStream out, int stream, int port, long size) throws IOException {
    out.writeInt(8 + 1 + 6 + 6 + 2 + 8);
    out.writeByte(FrameType.OPEN);
    out.writeByte(0);
    out.writeShort(0);
    out.writeInt(stream);
    out.writeLong(99);
    out.writeByte(4);
    out.write(new byte[] {127, 0, 0, 1});
    out.writeShort(40000);
    out.write(new byte[] {127, 0, 0, 1});
    out.writeShort(port);
    out.writeShort(0);
    out.writeLong(size);
  }

  private static byte[] readToEnd(InputStream in) throws IOException {
    ByteArrayOutputStream all = new ByteArrayOutputStream();
    byte[] buf = new byte[4096];
    int n;
    while ((n = in.read(buf)) >= 0) {
      all.write(buf, 0, n);
    }
    return all.toByteArray();
  }
}
