package io.tcpopt.servicenode.session;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.tcpopt.servicenode.trust.PeerAdmission;
import io.tcpopt.servicenode.wire.DataFrame;
import io.tcpopt.servicenode.wire.Frame;
import io.tcpopt.servicenode.wire.FrameCodec;
import io.tcpopt.servicenode.wire.HelloFrame;
import io.tcpopt.servicenode.wire.OpenFrame;
import java.net.InetSocketAddress;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Wire format 2's per-stream reassembly (issue 9): a stream's DATA frames, cut at random sizes and
 * fed in random orders (as frames spread over several WAN connections arrive), come out in stream
 * order byte-exact (SHA-256 of every byte), with the END_STREAM last and only once every byte before
 * it arrived; overlapping offsets and bytes beyond the end are refused. First on {@link
 * StreamReassembly} alone, then through the real decoder and multiplexer.
 */
class StreamReassemblyTest {
  private static final int CASES = 300;

  /**
   * A stream's bytes cut into DATA frames at random sizes (the last one with the END; a sender sends
   * DATA without bytes only to carry it), then shuffled.
   */
  private static List<DataFrame> shuffledFrames(int streamId, byte[] bytes, int from, Random random) {
    List<DataFrame> frames = new ArrayList<>();
    int at = from;
    do {
      int n = Math.min(bytes.length - at, random.nextInt(4) == 0 ? 1 + random.nextInt(8) : 1 + random.nextInt(20_000));
      boolean end = at + n == bytes.length;
      frames.add(new DataFrame(streamId, at, Unpooled.wrappedBuffer(bytes, at, n), end));
      at += n;
    } while (at < bytes.length);
    if (!frames.get(frames.size() - 1).endStream()) {
      frames.add(new DataFrame(streamId, at, Unpooled.EMPTY_BUFFER, true));
    }
    Collections.shuffle(frames, random);
    return frames;
  }

  private static byte[] sha256(byte[] b) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(b);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  @Test
  void randomOrdersOfAStreamsFramesReassembleByteExact() {
    Random random = new Random(20261202L);
    for (int c = 0; c < CASES; c++) {
      byte[] bytes = new byte[random.nextInt(4) == 0 ? random.nextInt(100) : random.nextInt(400_000)];
      random.nextBytes(bytes);
      int first = random.nextBoolean() ? 0 : Math.min(bytes.length, random.nextInt(1000)); // an OPEN's first bytes
      StreamReassembly reassembly = new StreamReassembly(first);
      ByteBuf out = Unpooled.buffer(bytes.length);
      out.writeBytes(bytes, 0, first);
      int[] ends = {0};
      String context = "case " + c + " (" + bytes.length + " bytes, " + first + " in the OPEN)";
      for (DataFrame f : shuffledFrames(1, bytes, first, random)) {
        assertEquals(0, ends[0], "nothing after the END: " + context);
        assertEquals(StreamReassembly.Outcome.TAKEN, reassembly.offer(f, d -> {
          assertEquals(out.writerIndex(), d.offset(), "delivered in stream order: " + context);
          out.writeBytes(d.content());
          ends[0] += d.endStream() ? 1 : 0;
          d.release();
        }), context);
        assertTrue(reassembly.heldLength() <= bytes.length, context);
      }
      assertEquals(1, ends[0], "the END delivered once, last: " + context);
      assertTrue(reassembly.endDelivered(), context);
      assertFalse(reassembly.hasGap(), context);
      byte[] got = new byte[out.readableBytes()];
      out.readBytes(got);
      out.release();
      assertArrayEquals(sha256(bytes), sha256(got), "SHA-256 of the reassembled bytes: " + context);
    }
  }

  @Test
  void theEndWaitsForTheGapBeforeIt() {
    StreamReassembly r = new StreamReassembly(0);
    List<String> delivered = new ArrayList<>();
    assertEquals(StreamReassembly.Outcome.TAKEN, r.offer(frame(10, 5, true), d -> delivered.add(d.offset() + (d.endStream() ? " end" : ""))));
    assertEquals(StreamReassembly.Outcome.TAKEN, r.offer(frame(0, 4, false), d -> delivered.add(d.offset() + (d.endStream() ? " end" : ""))));
    assertEquals(List.of("0"), delivered, "bytes 0..4 go; the END at 15 waits for 4..10");
    assertTrue(r.hasGap());
    assertFalse(r.endDelivered(), "never a FIN on a gap");
    assertEquals(StreamReassembly.Outcome.TAKEN, r.offer(frame(4, 6, false), d -> delivered.add(d.offset() + (d.endStream() ? " end" : ""))));
    assertEquals(List.of("0", "4", "10 end"), delivered);
    assertTrue(r.endDelivered());
  }

  @Test
  void overlapsAndBytesBeyondTheEndAreRefused() {
    StreamReassembly r = new StreamReassembly(0);
    assertEquals(StreamReassembly.Outcome.TAKEN, r.offer(frame(0, 10, false), DataFrame::release));
    assertEquals(StreamReassembly.Outcome.TAKEN, r.offer(frame(20, 10, false), DataFrame::release));
    assertRefused(r, frame(5, 2, false), StreamReassembly.Outcome.OVERLAP, "below the delivered offset");
    assertRefused(r, frame(15, 6, false), StreamReassembly.Outcome.OVERLAP, "into a held frame");
    assertRefused(r, frame(25, 1, false), StreamReassembly.Outcome.OVERLAP, "inside a held frame");
    assertRefused(r, frame(10, 30, false), StreamReassembly.Outcome.OVERLAP, "across a held frame");
    assertRefused(r, frame(12, 0, true), StreamReassembly.Outcome.BEYOND_END, "an END below bytes received");
    assertEquals(StreamReassembly.Outcome.TAKEN, r.offer(frame(30, 0, true), DataFrame::release));
    assertRefused(r, frame(30, 1, false), StreamReassembly.Outcome.BEYOND_END, "bytes beyond the END");
    assertRefused(r, frame(10, 2, true), StreamReassembly.Outcome.BEYOND_END, "a second END");
    assertRefused(r, frame(12, 0, false), StreamReassembly.Outcome.BEYOND_END, "an empty DATA after the END");
    r.clear();
  }

  private static void assertRefused(StreamReassembly r, DataFrame f, StreamReassembly.Outcome expected, String what) {
    assertEquals(expected, r.offer(f, DataFrame::release), what);
    assertEquals(1, f.refCnt(), what + ": the caller still owns a refused frame");
    f.release();
  }

  private static DataFrame frame(long offset, int n, boolean end) {
    return new DataFrame(1, offset, Unpooled.wrappedBuffer(new byte[n]), end);
  }

  /**
   * Through the real decoder and multiplexer (acceptor side): OPEN with first bytes, then the
   * stream's DATA in a random order; the handler sees every byte in order (SHA-256) and the END last.
   */
  @Test
  void theMultiplexerHandsAShuffledStreamToItsLegInOrder() {
    Random random = new Random(9L);
    int window = 1 << 20;
    for (int c = 0; c < 20; c++) {
      byte[] bytes = new byte[1 + random.nextInt(window - 1)];
      random.nextBytes(bytes);
      int first = Math.min(bytes.length, random.nextInt(2000));
      ByteBuf received = Unpooled.buffer(bytes.length);
      List<String> ends = new ArrayList<>();
      SessionSettings settings = new SessionSettings("dc-1", "dc", 1 << 20, window, 10, Duration.ofSeconds(5), Duration.ofSeconds(10));
      StreamAcceptor acceptor = (stream, open) -> {
        received.writeBytes(open.content());
        open.release();
        stream.handler(new DiscardingStreamHandler() {
          @Override
          public void onData(ByteBuf data, boolean endStream) {
            received.writeBytes(data);
            data.release();
            if (endStream) {
              ends.add("end at " + received.writerIndex());
            }
          }

          @Override
          public void onReset(int code, String reason) {
            ends.add("reset " + reason);
          }
        });
      };
      EmbeddedChannel ch = new EmbeddedChannel(new FrameCodec(1 << 20),
          new StreamMultiplexer(settings, false, acceptor, new SessionListener() {
            @Override
            public void sessionUp(StreamMultiplexer connection) {}

            @Override
            public void sessionDown(StreamMultiplexer connection, String reason) {}
          }, (identity, name, site) -> PeerAdmission.admitted(name, site)));
      List<Frame> frames = new ArrayList<>();
      frames.add(new HelloFrame(HelloFrame.VERSION, 1 << 20, window, 10, 1, 0, "branch-1", "branch", 0, 0));
      frames.add(new OpenFrame(1, 1, new InetSocketAddress("198.18.1.2", 40000), new InetSocketAddress("198.19.1.2", 80), 0,
          Unpooled.wrappedBuffer(bytes, 0, first)));
      frames.addAll(shuffledFrames(1, bytes, first, random));
      WireFeed.feed(ch, frames);
      assertTrue(ch.isOpen(), "case " + c);
      assertEquals(List.of("end at " + bytes.length), ends, "case " + c);
      byte[] got = new byte[received.readableBytes()];
      received.readBytes(got);
      received.release();
      assertArrayEquals(sha256(bytes), sha256(got), "case " + c + ": SHA-256 of what the leg got");
      ch.finishAndReleaseAll();
    }
  }
}
