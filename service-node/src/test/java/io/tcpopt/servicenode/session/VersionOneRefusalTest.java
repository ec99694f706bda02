package io.tcpopt.servicenode.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.tcpopt.servicenode.trust.PeerAdmission;
import io.tcpopt.servicenode.wire.Frame;
import io.tcpopt.servicenode.wire.FrameCodec;
import io.tcpopt.servicenode.wire.GoAwayFrame;
import io.tcpopt.servicenode.wire.HelloFrame;
import io.tcpopt.servicenode.wire.WireCodes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A version-1 node dials a version-2 node (docs/wire-format.md section 4, "Versions"): the
 * multiplexer answers its HELLO with GOAWAY VERSION whose reason says which versions and what to
 * do, closes the connection, and never brings a session up or opens a stream. FrameCodecTest
 * checks the decoder's refusal; this checks what the peer is sent.
 */
class VersionOneRefusalTest {
  /** A version-1 branch node's HELLO, as it wrote it (the example of docs/wire-format.md, version 1). */
  private static final String VERSION_ONE_HELLO =
      "0000002400000000000000005443504f00010000000100000080000000001000086272616e63682d31066272616e6368";

  @Test
  void aVersionOneHelloGetsGoAwayVersionSayingWhyAndNoSession() {
    List<String> events = new ArrayList<>();
    SessionSettings settings = new SessionSettings("dc-1", "dc", 1 << 20, 1 << 20, 10, Duration.ofSeconds(5), Duration.ofSeconds(10));
    StreamAcceptor acceptor = (stream, open) -> {
      events.add("stream " + stream.id());
      open.release();
    };
    SessionListener listener = new SessionListener() {
      @Override
      public void sessionUp(StreamMultiplexer c) {
        events.add("up");
      }

      @Override
      public void sessionDown(StreamMultiplexer c, String reason) {
        events.add("down");
      }
    };
    EmbeddedChannel ch = new EmbeddedChannel(new FrameCodec(1 << 20),
        new StreamMultiplexer(settings, false, acceptor, listener, (identity, name, site) -> PeerAdmission.admitted(name, site)));
    ch.writeInbound(Unpooled.wrappedBuffer(ByteBufUtil.decodeHexDump(VERSION_ONE_HELLO)));
    ch.runPendingTasks();

    EmbeddedChannel peer = new EmbeddedChannel(new FrameCodec(1 << 20));
    ByteBuf b;
    while ((b = ch.readOutbound()) != null) {
      peer.writeInbound(b);
    }
    List<Frame> sent = new ArrayList<>();
    Object f;
    while ((f = peer.readInbound()) != null) {
      sent.add((Frame) f);
    }
    assertEquals(2, sent.size(), "its own HELLO, then the GOAWAY: " + sent);
    assertEquals(HelloFrame.VERSION, assertInstanceOf(HelloFrame.class, sent.get(0)).version());
    GoAwayFrame goAway = assertInstanceOf(GoAwayFrame.class, sent.get(1));
    assertEquals(WireCodes.GOAWAY_VERSION, goAway.code());
    assertTrue(goAway.reason().contains("wire format version 1 refused: this node speaks version 2 only") && goAway.reason().contains("upgrade the peer"),
        goAway.reason());
    assertFalse(ch.isOpen(), "the connection is closed after the GOAWAY");
    assertFalse(events.contains("up"), "no session with a version-1 peer: " + events);
    assertFalse(events.stream().anyMatch(e -> e.startsWith("stream")), events.toString());
    assertFalse(ch.finishAndReleaseAll());
    assertFalse(peer.finishAndReleaseAll());
  }
}
