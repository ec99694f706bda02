package io.tcpopt.reduction;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tcpopt.common.policy.DataReduction;
import io.tcpopt.common.policy.DataReduction.Compression;
import io.tcpopt.reduction.store.Crc;
import io.tcpopt.reduction.store.Fingerprint;
import io.tcpopt.reduction.store.FingerprintFunction;
import io.tcpopt.reduction.store.StoreSettings;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The segment and control formats as docs/data-reduction.md specifies them: segments assembled by
 * hand decode as documented, and no malformed input makes the decoder fail other than with {@link
 * ReductionException}.
 */
class SegmentFormatTest {
  private static final HexFormat HEX = HexFormat.of();

  private static ReductionEngine engine() {
    return ReductionEngine.open(ReductionSettings.of(StoreSettings.memory(4 << 20)));
  }

  private static byte[] hex(String s) {
    return HEX.parseHex(s.replaceAll("\\s+", ""));
  }

  @Test
  void aPlainLiteralSegment() {
    // docs/data-reduction.md, example 1: "hello" as one LITERAL, no compression, no deduplication.
    byte[] segment = hex("""
        01 00 0001 00000005 00000005 00000005
        01 00000005
        68656c6c6f
        """);
    try (ReductionEngine b = engine()) {
      StreamDecoder d = b.peer("a").openDecoder(null);
      assertEquals(5, StreamDecoder.decodedLength(segment));
      d.offer(segment);
      assertArrayEquals("hello".getBytes(StandardCharsets.US_ASCII), d.poll());
      assertNull(d.poll());
    }
  }

  @Test
  void aChunkThenAReferenceToIt() {
    // docs/data-reduction.md, example 2: the chunk "hello world, hello!" sent as a literal (the
    // receiver stores it under its fingerprint), then sent again as a 25-byte reference.
    byte[] chunk = "hello world, hello!".getBytes(StandardCharsets.US_ASCII);
    Fingerprint f = FingerprintFunction.SHA256_128.of(chunk, 0, chunk.length);
    assertEquals("2b60042012fe91b989b9cf59baaf23f2", f.toString(), "the first 16 bytes of SHA-256");
    try (ReductionEngine b = engine()) {
      long epochB = b.epoch();
      long epochA = 0x1122334455667788L;
      PeerReduction fromA = b.peer("a");
      fromA.peerEpoch(epochA, 1 << 20);
      StreamDecoder d = fromA.openDecoder(null);
      String epochs = "1122334455667788" + String.format("%016x", epochB);
      byte[] first = hex("01 01 0002 00000013 00000013 00000013" + epochs + "01 00000013" + "02" + HEX.formatHex(chunk));
      byte[] second = hex("01 01 0001 00000013 00000000 00000000" + epochs + "03" + f + "00000013"
          + String.format("%08x", Crc.of(chunk)));
      d.offer(first);
      assertArrayEquals(chunk, d.poll());
      d.offer(second);
      assertArrayEquals(chunk, d.poll());
      // b learned that a holds the chunk: its own encoder may now send it to a as a reference.
      assertTrue(fromA.referenceEpoch(f, chunk.length, Crc.of(chunk), null) == epochA);
    }
  }

  @Test
  void malformedSegmentsAreRefusedWithOneException() {
    Random r = new Random(5);
    List<byte[]> valid = new ArrayList<>();
    try (ReductionEngine a = engine()) {
      a.peer("b").peerEpoch(77, 1 << 20);
      for (DataReduction mode : new DataReduction[] {DataReduction.OFF, new DataReduction(Compression.LZ4, true),
          new DataReduction(Compression.ZSTD, true), new DataReduction(Compression.ZSTD, false)}) {
        StreamEncoder e = a.peer("b").openEncoder(mode, 8192);
        byte[] text = TestData.text(6, 100_000);
        e.write(text, 0, text.length);
        e.write(text, 0, 20_000);
        e.finish();
        for (byte[] s; (s = e.poll()) != null; ) {
          valid.add(s);
        }
      }
    }
    int refused = 0;
    try (ReductionEngine b = engine()) {
      for (int i = 0; i < 3000; i++) {
        byte[] s = valid.get(r.nextInt(valid.size())).clone();
        switch (i % 4) {
          case 0:
            s[r.nextInt(Math.min(s.length, 48))] ^= (byte) (1 << r.nextInt(8));
            break;
          case 1:
            s = java.util.Arrays.copyOf(s, r.nextInt(s.length));
            break;
          case 2:
            s[r.nextInt(s.length)] = (byte) r.nextInt(256);
            break;
          default:
            s = java.util.Arrays.copyOf(s, s.length + 1 + r.nextInt(10));
            break;
        }
        StreamDecoder d = b.peer("a").openDecoder(null);
        try {
          StreamDecoder.decodedLength(s);
          d.offer(s);
          d.poll();
        } catch (ReductionException expected) {
          refused++;
        } finally {
          d.close();
        }
      }
    }
    assertTrue(refused > 1500, "refused " + refused);
  }

  @Test
  void controlMessagesRoundTripAndMalformedOnesAreRefused() {
    try (ReductionEngine a = engine(); ReductionEngine b = engine()) {
      byte[] epoch = a.peer("b").pollControl(1024);
      assertEquals(ControlMessage.EPOCH, epoch[0]);
      assertEquals(20, epoch.length);
      b.peer("a").onControl(epoch);
      assertEquals(a.epoch(), b.peer("a").peerEpoch());
      assertNull(a.peer("b").pollControl(1024));
      Random r = new Random(7);
      for (int i = 0; i < 2000; i++) {
        byte[] m = epoch.clone();
        if (i % 2 == 0) {
          m[r.nextInt(m.length)] ^= (byte) (1 << r.nextInt(8));
        } else {
          m = java.util.Arrays.copyOf(m, r.nextInt(40));
        }
        if (m.length > 0) {
          m[0] = (byte) (1 + r.nextInt(5));
        }
        try {
          b.peer("x").onControl(m);
        } catch (ReductionException expected) {
          // refused
        }
      }
      assertThrows(ReductionException.class, () -> b.peer("a").onControl(new byte[] {9, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}));
    }
  }
}
