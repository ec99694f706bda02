package io.tcpopt.servicenode.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.util.ReferenceCountUtil;
import io.tcpopt.servicenode.session.WireMutator;
import io.tcpopt.servicenode.session.WireOracle;
import io.tcpopt.servicenode.session.WireSeeds;
import java.io.ByteArrayOutputStream;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Issue 8, chaos scenario 4, the bulk: a million mutated frames straight into {@link FrameDecoder}
 * (no channel: one decoder per connection, as a connection has), each compared with {@link
 * WireOracle} reading docs/wire-format.md: the frames delivered before the first violation and the
 * GOAWAY code of that violation, which the multiplexer sends as it is (checked, with the session's
 * own rules, by {@code FrameFuzzTest}). Every buffer must be released after the case.
 */
class FrameDecoderFuzzTest {
  private static final Logger log = LoggerFactory.getLogger(FrameDecoderFuzzTest.class);
  private static final int MAX = 65536;
  private static final long SEED = Long.getLong("tcpopt.fuzz.seed", 20261201L);
  private static final int FRAMES = Integer.getInteger("tcpopt.fuzz.decoderFrames", 1_000_000);

  @Test
  void aMillionMutatedFramesDecodeOrFailWithTheCodeTheWireFormatPrescribes() {
    Map<String, byte[]> corpus = WireSeeds.corpus();
    List<byte[]> seeds = new ArrayList<>(corpus.values());
    byte[] hello = corpus.get("hello");
    WireMutator mutator = new WireMutator(SEED + 1, seeds);
    Random random = mutator.random();
    UnpooledByteBufAllocator alloc = new UnpooledByteBufAllocator(false);
    Map<String, Integer> outcomes = new TreeMap<>();
    long cpuStart = ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime();
    int frames = 0;
    int cases = 0;
    while (frames < FRAMES) {
      ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      if (random.nextInt(8) == 0) {
        bytes.writeBytes(mutator.mutate(hello));
        frames++;
      } else {
        bytes.writeBytes(hello);
      }
      for (int n = 1 + random.nextInt(3); n > 0; n--) {
        bytes.writeBytes(mutator.mutate(seeds.get(random.nextInt(seeds.size()))));
        frames++;
      }
      byte[] input = bytes.toByteArray();
      WireOracle oracle = new WireOracle("dc-1", Map.of(), MAX, 1, 1).decoderOnly();
      oracle.feed(input);
      FrameDecoder decoder = new FrameDecoder(MAX);
      ByteBuf in = alloc.heapBuffer(input.length).writeBytes(input);
      List<Object> out = new ArrayList<>();
      int code = -1;
      try {
        decoder.decode(null, in, out);
      } catch (WireProtocolException e) {
        code = e.goAwayCode();
      }
      int decoded = out.size();
      out.forEach(ReferenceCountUtil::release);
      boolean released = in.release();
      if (code != oracle.errorCode() || decoded != oracle.frames() || !released || alloc.metric().usedHeapMemory() != 0) {
        fail("case " + cases + ": the decoder delivered " + decoded + " frames and failed with " + code + ", the wire format says " + oracle.frames()
            + " and " + oracle.errorCode() + (released ? "" : "; a frame still holds the input") + ": " + HexFormat.of().formatHex(input));
      }
      outcomes.merge(code < 0 ? (oracle.incomplete() ? "incomplete" : "complete") : "GOAWAY " + code, 1, Integer::sum);
      cases++;
    }
    double cpu = (ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime() - cpuStart) / 1e9;
    log.info("decoder fuzz: {} mutated frames in {} connections, {} s CPU; outcomes {}", frames, cases, String.format("%.1f", cpu), outcomes);
    for (String o : List.of("GOAWAY 1", "GOAWAY 2", "GOAWAY 3", "GOAWAY 4", "complete", "incomplete")) {
      assertTrue(outcomes.getOrDefault(o, 0) > 0, "never reached " + o + ": " + outcomes);
    }
    assertEquals(0, alloc.metric().usedHeapMemory());
  }
}
