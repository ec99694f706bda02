package io.tcpopt.servicenode.tls;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.io.ByteArrayOutputStream;
import org.junit.jupiter.api.Test;

class TlsRecordCounterTest {
  private static byte[] record(int type, int length) {
    byte[] r = new byte[5 + length];
    r[0] = (byte) type;
    r[1] = 3;
    r[2] = 3;
    r[3] = (byte) (length >> 8);
    r[4] = (byte) length;
    return r;
  }

  @Test
  void countsApplicationRecordsBySizeAcrossWritesAndPassesBytesUnchanged() {
    TlsRecordCounter counter = new TlsRecordCounter(1400);
    EmbeddedChannel ch = new EmbeddedChannel(counter);
    ByteArrayOutputStream wire = new ByteArrayOutputStream();
    wire.writeBytes(record(22, 300)); // handshake: not counted
    wire.writeBytes(record(23, 1395)); // 1400 on the wire: small
    wire.writeBytes(record(23, 1396)); // 1401: large
    wire.writeBytes(record(23, 16401));
    wire.writeBytes(record(21, 2)); // alert
    wire.writeBytes(record(23, 40));
    byte[] all = wire.toByteArray();
    // Written in pieces that split headers and bodies anywhere.
    int[] cuts = {1, 3, 7, 306, 2000, 2001, 19000, all.length};
    int from = 0;
    for (int cut : cuts) {
      ch.writeOutbound(Unpooled.wrappedBuffer(all, from, cut - from));
      from = cut;
    }
    assertEquals(2, counter.smallRecords());
    assertEquals(2, counter.largeRecords());
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (ByteBuf b = ch.readOutbound(); b != null; b = ch.readOutbound()) {
      byte[] bytes = new byte[b.readableBytes()];
      b.readBytes(bytes);
      out.writeBytes(bytes);
      b.release();
    }
    assertArrayEquals(all, out.toByteArray());
    assertFalse(ch.finishAndReleaseAll());
  }
}
