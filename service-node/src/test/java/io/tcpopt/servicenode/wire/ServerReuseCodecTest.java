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
import io.tcpopt.common.profile.HttpReuseProfile;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The server-reuse block of OPEN (open-flags bit 11, docs/wire-format.md §5.2): its bytes as the
 * spec shows them, round trips, a block of an unknown version skipped, and every hostile field
 * refused with the code the spec gives before the stream exists.
 */
class ServerReuseCodecTest {
  private static final InetSocketAddress SRC = new InetSocketAddress("198.18.1.2", 40000);
  private static final InetSocketAddress DST = new InetSocketAddress("198.19.1.2", 8080);
  /** The example's profile: testbed-web of deploy/examples/testbed/oneconnect.yaml. */
  private static final ServerReuse TESTBED_WEB = new ServerReuse(1, 0, 64, 3_600_000, 1000, 4000);

  private static OpenFrame decode(ByteBuf bytes) {
    EmbeddedChannel ch = new EmbeddedChannel(new FrameCodec(1 << 16));
    ch.writeInbound(FrameCodecTest.encode(FrameCodecTest.hello()), bytes);
    assertInstanceOf(HelloFrame.class, ch.readInbound());
    OpenFrame open = ch.readInbound();
    assertFalse(ch.finishAndReleaseAll());
    return open;
  }

  /** An OPEN (IPv4, stream 1) whose payload after the open-flags is {@code tail}. */
  private static ByteBuf openWithTail(int openFlags, byte[] tail) {
    ByteBuf p = Unpooled.buffer();
    p.writeLong(42).writeByte(4).writeBytes(SRC.getAddress().getAddress()).writeShort(SRC.getPort());
    p.writeBytes(DST.getAddress().getAddress()).writeShort(DST.getPort()).writeShort(openFlags).writeBytes(tail);
    byte[] payload = ByteBufUtil.getBytes(p);
    p.release();
    return FrameCodecTest.raw(payload.length, FrameType.OPEN, 0, 0, 1, payload);
  }

  private static byte[] block(int version, int length, int mask, long maxSize, long maxAge, long maxReuse, long idle) {
    ByteBuf b = Unpooled.buffer();
    b.writeByte(version).writeByte(length).writeByte(mask).writeInt((int) maxSize).writeInt((int) maxAge).writeInt((int) maxReuse)
        .writeInt((int) idle);
    byte[] out = ByteBufUtil.getBytes(b);
    b.release();
    return out;
  }

  private static int refusedWith(ByteBuf input) {
    EmbeddedChannel ch = new EmbeddedChannel(new FrameCodec(1 << 16));
    ch.writeInbound(FrameCodecTest.encode(FrameCodecTest.hello()));
    assertInstanceOf(HelloFrame.class, ch.readInbound());
    WireProtocolException e = assertThrows(WireProtocolException.class, () -> ch.writeInbound(input));
    assertNull(ch.readInbound());
    assertFalse(ch.finishAndReleaseAll());
    return e.goAwayCode();
  }

  @Test
  void openHexDumpWithAServerReuseBlockMatchesTheSpec() {
    ByteBuf b = FrameCodecTest.encode(new OpenFrame(1, 42L, SRC, DST, 0, TESTBED_WEB,
        Unpooled.copiedBuffer("GET / HTTP/1.1\r\n", StandardCharsets.US_ASCII)));
    assertEquals("0000003a0100000000000001000000000000002a04c61201029c40c61301021f900800011100000000400036ee80000003e800000fa0"
        + "474554202f20485454502f312e310d0a", ByteBufUtil.hexDump(b));
    OpenFrame open = decode(b);
    assertEquals(TESTBED_WEB, open.serverReuse());
    assertEquals(OpenFrame.FLAG_SERVER_REUSE, open.openFlags());
    assertEquals("GET / HTTP/1.1\r\n", open.content().toString(StandardCharsets.US_ASCII), "first bytes follow the block");
    open.release();
  }

  @Test
  void aProfileRoundTripsWithTheOtherFlags() {
    HttpReuseProfile web = new HttpReuseProfile("web", "oneconnect", 24, 500, Duration.ofDays(100), 1_000_000_000, Duration.ofMillis(2500));
    ServerReuse block = ServerReuse.of(web);
    assertEquals(ServerReuse.MAX_MILLIS, block.maxAgeMillis(), "a max-age beyond the u32 range is sent as its maximum");
    OpenFrame open = decode(FrameCodecTest.encode(new OpenFrame(3, 7L, SRC, DST, OpenFrame.FLAG_TRANSPARENT_SOURCE | 0x0100, block,
        Unpooled.EMPTY_BUFFER)));
    assertEquals(block, open.serverReuse());
    assertEquals(OpenFrame.FLAG_TRANSPARENT_SOURCE | 0x0100 | OpenFrame.FLAG_SERVER_REUSE, open.openFlags());
    assertEquals(0, open.content().readableBytes());
    open.release();
    OpenFrame plain = decode(FrameCodecTest.encode(new OpenFrame(3, 7L, SRC, DST, 0, Unpooled.EMPTY_BUFFER)));
    assertNull(plain.serverReuse(), "no bit 11, no block");
    plain.release();
  }

  @Test
  void aBlockOfAnotherVersionIsSkippedByItsLengthAndMarkedNotUnderstood() {
    byte[] tail = new byte[2 + 40 + 3];
    tail[0] = 2;
    tail[1] = 40;
    tail[42] = 'a';
    tail[43] = 'b';
    tail[44] = 'c';
    OpenFrame open = decode(openWithTail(OpenFrame.FLAG_SERVER_REUSE, tail));
    assertFalse(open.serverReuse().understood());
    assertEquals(2, open.serverReuse().version());
    assertEquals("abc", open.content().toString(StandardCharsets.US_ASCII));
    open.release();
    assertThrows(io.netty.handler.codec.EncoderException.class, () -> FrameCodecTest.encode(new OpenFrame(1, 1, SRC, DST, 0, ServerReuse.notUnderstood(2),
        Unpooled.EMPTY_BUFFER)));
  }

  @Test
  void hostileBlocksAreConnectionErrors() {
    int frameSize = WireCodes.GOAWAY_FRAME_SIZE;
    int protocol = WireCodes.GOAWAY_PROTOCOL_ERROR;
    assertEquals(frameSize, refusedWith(openWithTail(OpenFrame.FLAG_SERVER_REUSE, new byte[0])), "bit 11 without a block");
    assertEquals(frameSize, refusedWith(openWithTail(OpenFrame.FLAG_SERVER_REUSE, new byte[] {1})), "half a block header");
    assertEquals(frameSize, refusedWith(openWithTail(OpenFrame.FLAG_SERVER_REUSE, new byte[] {1, 17, 0, 0})), "length beyond the payload");
    byte[] tooLong = new byte[2 + 65];
    tooLong[0] = 9;
    tooLong[1] = 65;
    assertEquals(protocol, refusedWith(openWithTail(OpenFrame.FLAG_SERVER_REUSE, tooLong)), "any version: at most 64 bytes");
    byte[] shortV1 = new byte[2 + 16];
    shortV1[0] = 1;
    shortV1[1] = 16;
    assertEquals(protocol, refusedWith(openWithTail(OpenFrame.FLAG_SERVER_REUSE, shortV1)), "version 1 is 17 bytes");
    assertEquals(protocol, refusedWith(openWithTail(OpenFrame.FLAG_SERVER_REUSE, block(1, 17, 33, 64, 3_600_000, 1000, 4000))), "mask 33");
    assertEquals(protocol, refusedWith(openWithTail(OpenFrame.FLAG_SERVER_REUSE, block(1, 17, 255, 64, 3_600_000, 1000, 4000))), "mask 255");
    assertEquals(protocol, refusedWith(openWithTail(OpenFrame.FLAG_SERVER_REUSE, block(1, 17, 0, 0, 3_600_000, 1000, 4000))), "max-size 0");
    assertEquals(protocol, refusedWith(openWithTail(OpenFrame.FLAG_SERVER_REUSE, block(1, 17, 0, 0xffff_ffffL, 3_600_000, 1000, 4000))),
        "max-size 2^32-1");
    assertEquals(protocol, refusedWith(openWithTail(OpenFrame.FLAG_SERVER_REUSE, block(1, 17, 0, 64, 999, 1000, 4000))), "max-age 999ms");
    assertEquals(protocol, refusedWith(openWithTail(OpenFrame.FLAG_SERVER_REUSE, block(1, 17, 0, 64, 3_600_000, 0, 4000))), "max-reuse 0");
    assertEquals(protocol, refusedWith(openWithTail(OpenFrame.FLAG_SERVER_REUSE, block(1, 17, 0, 64, 3_600_000, 0x8000_0000L, 4000))),
        "max-reuse 2^31");
    assertEquals(protocol, refusedWith(openWithTail(OpenFrame.FLAG_SERVER_REUSE, block(1, 17, 0, 64, 3_600_000, 1000, 99))), "idle-timeout 99ms");
    assertEquals(protocol, refusedWith(openWithTail(0x1000, new byte[0])), "bit 12 is still unknown");
  }

  @Test
  void theLargestFieldsTheWireAllowsDecode() {
    OpenFrame open = decode(openWithTail(OpenFrame.FLAG_SERVER_REUSE, block(1, 17, 32, 1_000_000, 0xffff_ffffL, 1_000_000_000, 0xffff_ffffL)));
    assertEquals(new ServerReuse(1, 32, 1_000_000, 0xffff_ffffL, 1_000_000_000, 0xffff_ffffL), open.serverReuse());
    assertTrue(open.serverReuse().understood());
    open.release();
  }
}
