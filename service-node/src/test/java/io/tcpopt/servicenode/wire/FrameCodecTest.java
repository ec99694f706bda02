package io.tcpopt.servicenode.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.tcpopt.common.policy.DataReduction;
import io.tcpopt.common.policy.DataReduction.Compression;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The codec on EmbeddedChannel: round trips, and every malformed input refused before buffering. */
class FrameCodecTest {
  private static final int MAX = 64 * 1024;

  static HelloFrame hello() {
    return new HelloFrame(HelloFrame.VERSION, MAX, 1 << 20, 100, 0x0123_4567_89ab_cdefL, 3, "branch-1", "branch", 0, 0);
  }

  /** A raw frame with any header fields, to build malformed input. */
  static ByteBuf raw(long length, int type, int flags, int reserved, long stream, byte[] payload) {
    ByteBuf b = Unpooled.buffer();
    b.writeInt((int) length).writeByte(type).writeByte(flags).writeShort(reserved).writeInt((int) stream);
    b.writeBytes(payload);
    return b;
  }

  static ByteBuf encode(Frame... frames) {
    EmbeddedChannel enc = new EmbeddedChannel(new FrameCodec(MAX));
    for (Frame f : frames) {
      assertTrue(enc.writeOutbound(f));
    }
    ByteBuf all = Unpooled.buffer();
    ByteBuf part;
    while ((part = enc.readOutbound()) != null) {
      all.writeBytes(part);
      part.release();
    }
    assertFalse(enc.finishAndReleaseAll());
    return all;
  }

  @Test
  void everyFrameTypeRoundTrips() {
    InetSocketAddress src = new InetSocketAddress("198.18.1.2", 40000);
    InetSocketAddress dst = new InetSocketAddress("198.19.1.2", 5201);
    ByteBuf bytes = encode(
        hello(),
        new OpenFrame(1, 77L, src, dst, 0, Unpooled.copiedBuffer("GET /", StandardCharsets.US_ASCII)),
        new DataFrame(1, 5, Unpooled.copiedBuffer("abc", StandardCharsets.US_ASCII), true),
        new WindowUpdateFrame(1, 65536),
        new WindowUpdateFrame(1, 131072, true),
        new RstStreamFrame(3, WireCodes.CONNECT_REFUSED, "refused"),
        new PingFrame(42L, true),
        new GoAwayFrame(7, WireCodes.GOAWAY_SHUTTING_DOWN, "bye"));
    EmbeddedChannel ch = new EmbeddedChannel(new FrameCodec(MAX));
    // Feed one byte at a time: the decoder must cope with any split.
    while (bytes.isReadable()) {
      ch.writeInbound(bytes.readRetainedSlice(1));
    }
    bytes.release();
    assertEquals(hello(), ch.readInbound());
    OpenFrame open = ch.readInbound();
    assertEquals(77L, open.flowId());
    assertEquals(src, open.source());
    assertEquals(dst, open.destination());
    assertEquals("GET /", open.content().toString(StandardCharsets.US_ASCII));
    open.release();
    DataFrame data = ch.readInbound();
    assertTrue(data.endStream());
    assertEquals(5, data.offset(), "the stream offset survives the round trip");
    assertEquals("abc", data.content().toString(StandardCharsets.US_ASCII));
    data.release();
    assertEquals(new WindowUpdateFrame(1, 65536), ch.readInbound());
    assertEquals(new WindowUpdateFrame(1, 131072, true), ch.readInbound(), "the GROW flag survives the round trip");
    assertEquals(new RstStreamFrame(3, WireCodes.CONNECT_REFUSED, "refused"), ch.readInbound());
    assertEquals(new PingFrame(42L, true), ch.readInbound());
    assertEquals(new GoAwayFrame(7, WireCodes.GOAWAY_SHUTTING_DOWN, "bye"), ch.readInbound());
    assertNull(ch.readInbound());
    assertFalse(ch.finishAndReleaseAll());
  }

  @Test
  void ipv6OpenRoundTrips() {
    InetSocketAddress src = new InetSocketAddress("2001:db8::1", 1);
    InetSocketAddress dst = new InetSocketAddress("2001:db8::2", 65535);
    EmbeddedChannel ch = new EmbeddedChannel(new FrameCodec(MAX));
    ch.writeInbound(encode(hello(), new OpenFrame(5, -1L, src, dst, OpenFrame.FLAG_TRANSPARENT_SOURCE, Unpooled.EMPTY_BUFFER)));
    assertInstanceOf(HelloFrame.class, ch.readInbound());
    OpenFrame open = ch.readInbound();
    assertEquals(dst, open.destination());
    assertEquals(OpenFrame.FLAG_TRANSPARENT_SOURCE, open.openFlags());
    assertEquals(-1L, open.flowId());
    open.release();
    assertFalse(ch.finishAndReleaseAll());
  }

  /** Feeds {@code input} (after a valid HELLO when {@code afterHello}) and expects a connection error. */
  private static WireProtocolException refused(boolean afterHello, ByteBuf input) {
    EmbeddedChannel ch = new EmbeddedChannel(new FrameCodec(MAX));
    if (afterHello) {
      ch.writeInbound(encode(hello()));
      assertInstanceOf(HelloFrame.class, ch.readInbound());
    }
    WireProtocolException e = assertThrows(WireProtocolException.class, () -> ch.writeInbound(input));
    // Once failed, the decoder swallows everything after.
    ch.writeInbound(encode(hello()));
    assertNull(ch.readInbound());
    assertFalse(ch.finishAndReleaseAll());
    return e;
  }

  private static ByteBuf helloWithVersion(int version) {
    ByteBuf good = encode(hello());
    good.setShort(FrameType.HEADER_LENGTH + 4, version);
    return good;
  }

  @Test
  void wrongVersionIsRefused() {
    WireProtocolException e = refused(false, helloWithVersion(3));
    assertEquals(WireCodes.GOAWAY_VERSION, e.goAwayCode());
    assertTrue(e.getMessage().contains("version 3"), e.getMessage());
  }

  /** A version-1 node's HELLO (as it wrote it, docs/wire-format.md's example): refused by its version, saying why. */
  @Test
  void aVersionOneHelloIsRefusedByItsVersion() {
    ByteBuf v1 = Unpooled.wrappedBuffer(ByteBufUtil.decodeHexDump(
        "0000002400000000000000005443504f00010000000100000080000000001000086272616e63682d31066272616e6368"));
    WireProtocolException e = refused(false, v1);
    assertEquals(WireCodes.GOAWAY_VERSION, e.goAwayCode());
    assertTrue(e.getMessage().contains("version 1 refused") && e.getMessage().contains("upgrade the peer"), e.getMessage());
    // The shortest version-1 HELLO (empty names, 22 bytes) too: refused by its version, not its length.
    ByteBuf shortest = Unpooled.wrappedBuffer(ByteBufUtil.decodeHexDump("00000016000000000000000054435" + "04f00010000000100000080000000001000" + "0000"));
    assertEquals(WireCodes.GOAWAY_VERSION, refused(false, shortest).goAwayCode());
  }

  @Test
  void aHelloCutBeforeItsSessionIsRefused() {
    ByteBuf cut = Unpooled.buffer();
    cut.writeInt(22).writeByte(FrameType.HELLO).writeByte(0).writeShort(0).writeInt(0);
    cut.writeInt(HelloFrame.MAGIC).writeShort(HelloFrame.VERSION).writeShort(0).writeInt(65536).writeInt(1 << 20).writeInt(100).writeShort(0);
    WireProtocolException e = refused(false, cut);
    assertEquals(WireCodes.GOAWAY_FRAME_SIZE, e.goAwayCode());
    assertTrue(e.getMessage().contains("session"), e.getMessage());
  }

  @Test
  void dataOffsetsRoundTripAndAnOffsetBeyond2To63IsRefused() {
    EmbeddedChannel ch = new EmbeddedChannel(new FrameCodec(MAX));
    ch.writeInbound(encode(hello(), new DataFrame(3, Long.MAX_VALUE, Unpooled.EMPTY_BUFFER, true)));
    assertInstanceOf(HelloFrame.class, ch.readInbound());
    DataFrame d = ch.readInbound();
    assertEquals(Long.MAX_VALUE, d.offset());
    assertEquals(0, d.content().readableBytes());
    d.release();
    assertFalse(ch.finishAndReleaseAll());
    ByteBuf beyond = raw(10, FrameType.DATA, 0, 0, 1, new byte[] {(byte) 0x80, 0, 0, 0, 0, 0, 0, 0, 1, 2});
    assertEquals(WireCodes.GOAWAY_FLOW_CONTROL, refused(true, beyond).goAwayCode());
    // Shorter than the offset: FRAME_SIZE from the header alone.
    assertEquals(WireCodes.GOAWAY_FRAME_SIZE, refused(true, raw(7, FrameType.DATA, 0, 0, 1, new byte[7])).goAwayCode());
  }

  @Test
  void garbageBeforeHelloIsRefused() {
    WireProtocolException e = refused(false, Unpooled.copiedBuffer("GET / HTTP/1.1\r\nHost: x\r\n\r\n", StandardCharsets.US_ASCII));
    assertEquals(WireCodes.GOAWAY_PROTOCOL_ERROR, e.goAwayCode());
  }

  @Test
  void frameBeforeHelloIsRefused() {
    WireProtocolException e = refused(false, raw(3, FrameType.DATA, 0, 0, 1, new byte[3]));
    assertTrue(e.getMessage().contains("before HELLO"), e.getMessage());
  }

  @Test
  void badMagicIsRefused() {
    ByteBuf bad = encode(hello());
    bad.setInt(FrameType.HEADER_LENGTH, 0x12345678);
    assertTrue(refused(false, bad).getMessage().contains("magic"));
  }

  @Test
  void oversizedLengthIsRefusedFromTheHeaderAlone() {
    // Only the 12 header bytes arrive: the decoder must refuse without waiting for the payload.
    WireProtocolException e = refused(true, raw(MAX + 1, FrameType.DATA, 0, 0, 1, new byte[0]));
    assertEquals(WireCodes.GOAWAY_FRAME_SIZE, e.goAwayCode());
  }

  @Test
  void hugeAndNegativeLengthsAreRefused() {
    assertEquals(WireCodes.GOAWAY_FRAME_SIZE, refused(true, raw(0xFFFF_FFFFL, FrameType.DATA, 0, 0, 1, new byte[0])).goAwayCode());
    assertEquals(WireCodes.GOAWAY_FRAME_SIZE, refused(true, raw(0x8000_0000L, FrameType.DATA, 0, 0, 1, new byte[0])).goAwayCode());
    // An oversized HELLO is refused before the handshake too.
    assertEquals(WireCodes.GOAWAY_FRAME_SIZE, refused(false, raw(1 << 20, FrameType.HELLO, 0, 0, 0, new byte[0])).goAwayCode());
  }

  @Test
  void unknownTypeIsRefused() {
    WireProtocolException e = refused(true, raw(0, 0x8, 0, 0, 1, new byte[0]));
    assertTrue(e.getMessage().contains("unknown frame type"), e.getMessage());
  }

  @Test
  void reservedBitsAreRefused() {
    assertTrue(refused(true, raw(0, FrameType.DATA, 0, 0x0100, 1, new byte[0])).getMessage().contains("reserved"));
    assertTrue(refused(true, raw(0, FrameType.DATA, 0, 0, 0x8000_0001L, new byte[0])).getMessage().contains("high bit"));
    assertTrue(refused(true, raw(0, FrameType.DATA, 0x8, 0, 1, new byte[0])).getMessage().contains("flags"));
  }

  @Test
  void badLengthsPerTypeAreRefused() {
    assertEquals(WireCodes.GOAWAY_FRAME_SIZE, refused(true, raw(3, FrameType.WINDOW_UPDATE, 0, 0, 1, new byte[3])).goAwayCode());
    assertEquals(WireCodes.GOAWAY_FRAME_SIZE, refused(true, raw(9, FrameType.PING, 0, 0, 0, new byte[9])).goAwayCode());
    assertEquals(WireCodes.GOAWAY_FRAME_SIZE, refused(true, raw(8, FrameType.RST_STREAM, 0, 0, 1, new byte[] {0, 0, 0, 1, 0, 9, 0, 0}))
        .goAwayCode());
    assertEquals(WireCodes.GOAWAY_PROTOCOL_ERROR, refused(true, raw(4, FrameType.WINDOW_UPDATE, 0, 0, 1, new byte[4])).goAwayCode());
    assertEquals(WireCodes.GOAWAY_PROTOCOL_ERROR, refused(true, raw(8, FrameType.PING, 0, 0, 3, new byte[8])).goAwayCode());
  }

  @Test
  void secondHelloIsRefused() {
    assertTrue(refused(true, encode(hello())).getMessage().contains("second HELLO"));
  }

  @Test
  void helloHexDumpMatchesTheSpec() {
    ByteBuf b = encode(new HelloFrame(2, 65536, 8 << 20, 4096, 0x5a17_c0de_0000_0001L, 2, "branch-1", "branch", 0, 0));
    assertEquals("0000003000000000000000005443504f00020000000100000080000000001000" + "5a17c0de00000001" + "00000002"
        + "086272616e63682d31066272616e6368", ByteBufUtil.hexDump(b));
    b.release();
    b = encode(new HelloFrame(2, 65536, 8 << 20, 4096, 0x5a17_c0de_0000_0001L, 2, "branch-1", "branch", 0x1122334455667788L, 256L << 20));
    assertEquals("0000004000000000000000005443504f00020000000100000080000000001000" + "5a17c0de00000001" + "00000002"
        + "086272616e63682d31066272616e6368" + "1122334455667788" + "0000000010000000", ByteBufUtil.hexDump(b));
    b.release();
  }

  @Test
  void aDataAwayFromItsStreamsConnectionNamesItsHome() {
    EmbeddedChannel ch = new EmbeddedChannel(new FrameCodec(MAX));
    ByteBuf away = encode(new DataFrame(5, 100, Unpooled.copiedBuffer("xyz", StandardCharsets.US_ASCII), false, false, 3));
    assertEquals("0000000f0204000000000005" + "0000000000000064" + "00000003" + "78797a", ByteBufUtil.hexDump(away));
    ch.writeInbound(encode(hello()), away);
    assertInstanceOf(HelloFrame.class, ch.readInbound());
    DataFrame d = ch.readInbound();
    assertEquals(3, d.home());
    assertEquals(100, d.offset());
    assertEquals("xyz", d.content().toString(StandardCharsets.US_ASCII));
    d.release();
    assertFalse(ch.finishAndReleaseAll());
    // END_STREAM stays on the stream's own connection; the home field must fit; a home of 2^31 or more is refused.
    assertEquals(WireCodes.GOAWAY_PROTOCOL_ERROR,
        refused(true, raw(12, FrameType.DATA, FrameType.FLAG_END_STREAM | FrameType.FLAG_HOME, 0, 1, new byte[12])).goAwayCode());
    assertEquals(WireCodes.GOAWAY_FRAME_SIZE, refused(true, raw(11, FrameType.DATA, FrameType.FLAG_HOME, 0, 1, new byte[11])).goAwayCode());
    assertEquals(WireCodes.GOAWAY_FRAME_SIZE,
        refused(true, raw(27, FrameType.DATA, FrameType.FLAG_HOME | FrameType.FLAG_ENCODED, 0, 1, new byte[27])).goAwayCode());
    byte[] bigHome = new byte[12];
    bigHome[8] = (byte) 0x80;
    assertEquals(WireCodes.GOAWAY_PROTOCOL_ERROR, refused(true, raw(12, FrameType.DATA, FrameType.FLAG_HOME, 0, 1, bigHome)).goAwayCode());
  }

  @Test
  void dataHexDumpMatchesTheSpec() {
    ByteBuf b = encode(new DataFrame(1, 16, Unpooled.copiedBuffer("Host: x\r\n", StandardCharsets.US_ASCII), false));
    assertEquals("0000001102000000" + "00000001" + "0000000000000010" + "486f73743a20780d0a", ByteBufUtil.hexDump(b));
    b.release();
  }

  @Test
  void cacheFieldsEncodedDataAndReductionFramesRoundTrip() {
    EmbeddedChannel ch = new EmbeddedChannel(new FrameCodec(MAX));
    ch.writeInbound(encode(new HelloFrame(HelloFrame.VERSION, MAX, 1 << 20, 100, 0, 0, "dc-1", "dc", 42, 1 << 30)));
    HelloFrame h = (HelloFrame) ch.readInbound();
    assertEquals(42, h.cacheEpoch());
    assertEquals(1 << 30, h.cacheCapacity());
    byte[] segment = new byte[20];
    segment[7] = 99; // decoded length 99
    ch.writeInbound(encode(new DataFrame(3, 1000, Unpooled.wrappedBuffer(segment), true, true)));
    DataFrame d = (DataFrame) ch.readInbound();
    assertTrue(d.encoded() && d.endStream());
    assertEquals(99, d.creditLength());
    d.release();
    ch.writeInbound(encode(new ReductionFrame(new byte[] {1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 7, 5})));
    assertEquals(13, ((ReductionFrame) ch.readInbound()).message().length);
    assertFalse(ch.finish());
  }

  @Test
  void malformedReductionFieldsAreRefused() {
    assertEquals(WireCodes.GOAWAY_FRAME_SIZE, refused(true, raw(8, FrameType.DATA, FrameType.FLAG_ENCODED, 0, 1, new byte[8])).goAwayCode());
    assertEquals(WireCodes.GOAWAY_FRAME_SIZE, refused(true, raw(23, FrameType.DATA, FrameType.FLAG_ENCODED, 0, 1, new byte[23])).goAwayCode());
    assertEquals(WireCodes.GOAWAY_PROTOCOL_ERROR, refused(true, raw(12, FrameType.REDUCTION, 0, 0, 1, new byte[12])).goAwayCode());
    assertEquals(WireCodes.GOAWAY_FRAME_SIZE, refused(true, raw(4, FrameType.REDUCTION, 0, 0, 0, new byte[4])).goAwayCode());
  }

  @Test
  void openFlagsCarryTheDataReduction() {
    for (Compression c : Compression.values()) {
      for (boolean dedup : new boolean[] {false, true}) {
        DataReduction mode = new DataReduction(c, dedup);
        assertEquals(mode.isOff() ? DataReduction.OFF : mode, OpenFrame.dataReduction(OpenFrame.flags(mode)));
      }
    }
    assertEquals(0x0600, OpenFrame.flags(new DataReduction(Compression.ZSTD, true)));
  }

  @Test
  void openHexDumpMatchesTheSpec() {
    ByteBuf b = encode(new OpenFrame(1, 42L, new InetSocketAddress("198.18.1.2", 40000), new InetSocketAddress("198.19.1.2", 5201), 0,
        Unpooled.copiedBuffer("GET / HTTP/1.1\r\n", StandardCharsets.US_ASCII)));
    assertEquals("000000270100000000000001000000000000002a04c61201029c40c613010214510000474554202f20485454502f312e310d0a",
        ByteBufUtil.hexDump(b));
    b.release();
  }
}
