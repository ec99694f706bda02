package io.tcpopt.servicenode.session;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.util.ReferenceCountUtil;
import io.tcpopt.servicenode.wire.Frame;
import io.tcpopt.servicenode.wire.FrameCodec;
import java.util.Map;
import java.util.function.Supplier;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * The committed seed corpus of the frame fuzz is still what the encoder writes, and still decodes.
 * After a deliberate wire change, regenerate it and review the diff:
 * {@code mvn -o -pl service-node test -Dtest=FuzzCorpusTest -Dtcpopt.fuzz.writeSeeds=src/test/resources/fuzz/wire}.
 */
class FuzzCorpusTest {
  @Test
  void writeSeedsWhenAsked() throws Exception {
    String dir = System.getProperty("tcpopt.fuzz.writeSeeds");
    Assumptions.assumeTrue(dir != null, "regenerates the corpus only with -Dtcpopt.fuzz.writeSeeds=DIR");
    WireSeeds.main(new String[] {dir});
  }

  @Test
  void everySeedIsTheEncodersBytesAndDecodesAfterAHello() {
    Map<String, byte[]> corpus = WireSeeds.corpus();
    byte[] hello = corpus.get("hello");
    for (Map.Entry<String, Supplier<Frame>> e : WireSeeds.frames().entrySet()) {
      byte[] seed = corpus.get(e.getKey());
      assertArrayEquals(WireSeeds.encode(e.getValue().get()), seed, "fuzz/wire/" + e.getKey() + ".bin is not what the encoder writes");
      EmbeddedChannel ch = new EmbeddedChannel(new FrameCodec(1 << 20));
      boolean isHello = e.getKey().startsWith("hello");
      ch.writeInbound(Unpooled.wrappedBuffer(isHello ? seed : FrameFuzzTest.concat(hello, seed)));
      if (!isHello) {
        ReferenceCountUtil.release(ch.readInbound());
      }
      Object decoded = ch.readInbound();
      Frame expected = e.getValue().get();
      assertEquals(expected.getClass(), decoded.getClass(), e.getKey());
      assertEquals(expected.streamId(), ((Frame) decoded).streamId(), e.getKey());
      ReferenceCountUtil.release(decoded);
      ReferenceCountUtil.release(expected);
      assertFalse(ch.finishAndReleaseAll(), e.getKey() + ": one frame, nothing left");
    }
  }

  @Test
  void theOracleAcceptsTheCorpus() {
    Map<String, byte[]> corpus = WireSeeds.corpus();
    WireOracle oracle = FrameFuzzTest.oracle();
    assertEquals(0, oracle.feed(FrameFuzzTest.prefix(corpus.get("hello"))).size());
    assertEquals(2, oracle.accepted().size());
    assertEquals("[PING_ACK " + FrameFuzzTest.PROBE + " 0]", oracle.feed(FrameFuzzTest.probe()).toString());
    assertFalse(oracle.closed());
  }
}
