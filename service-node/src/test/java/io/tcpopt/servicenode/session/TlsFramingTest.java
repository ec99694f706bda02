package io.tcpopt.servicenode.session;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.ChannelFuture;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.ReferenceCountUtil;
import io.tcpopt.common.tls.DemoCertificates;
import io.tcpopt.common.tls.TlsContexts;
import io.tcpopt.common.tls.TlsFiles;
import io.tcpopt.servicenode.wire.DataFrame;
import io.tcpopt.servicenode.wire.FrameCodec;
import io.tcpopt.servicenode.wire.HelloFrame;
import io.tcpopt.servicenode.wire.WindowUpdateFrame;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The WAN pipeline's TLS and frame codec with the wrap size of {@link WanChannelInitializer}: DATA
 * frames of every size (slices of larger reads, as a leg's bytes are), END_STREAMs and
 * WINDOW_UPDATEs in between, flushed in batches of any length, arrive byte for byte (SHA-256 of the
 * payloads, in order, and every frame's fields). The frames of a flush reach the TLS handler as one
 * buffer that holds them where they were written ({@link TlsWriteGather}), so it never copies them.
 */
class TlsFramingTest {
  private static final int MAX = 64 * 1024;

  @TempDir static Path certs;

  @Test
  void framesThroughTlsArriveByteForByte() throws Exception {
    Map<String, TlsFiles> tls = DemoCertificates.generate(certs, List.of("branch-1", "dc-1"));
    SslContext client = TlsContexts.client(tls.get("branch-1"));
    SslContext server = TlsContexts.server(tls.get("dc-1"));
    PooledByteBufAllocator alloc = PooledByteBufAllocator.DEFAULT;
    EmbeddedChannel sender = new EmbeddedChannel();
    sender.config().setAllocator(alloc);
    SslHandler senderTls = client.newHandler(alloc);
    senderTls.setWrapDataSize(WanChannelInitializer.TLS_WRAP_BYTES);
    sender.pipeline().addLast(senderTls, new TlsWriteGather(), new FrameCodec(MAX));
    EmbeddedChannel receiver = new EmbeddedChannel();
    receiver.config().setAllocator(alloc);
    receiver.pipeline().addLast(server.newHandler(alloc), new FrameCodec(MAX));
    try {
      for (int i = 0; i < 50 && !(senderTls.handshakeFuture().isDone()); i++) {
        move(sender, receiver);
        move(receiver, sender);
      }
      assertTrue(senderTls.handshakeFuture().isSuccess(), "TLS handshake");

      sender.writeOutbound(new HelloFrame(HelloFrame.VERSION, MAX, 1 << 20, 100, 1L, 0, "branch-1", "branch", 0, 0));
      Random random = new Random(9);
      MessageDigest sent = MessageDigest.getInstance("SHA-256");
      MessageDigest received = MessageDigest.getInstance("SHA-256");
      long offset = 0;
      int updates = 0;
      int ends = 0;
      int frames = 0;
      int receivedFrames = 0;
      int receivedUpdates = 0;
      int receivedEnds = 0;
      long receivedOffset = 0;
      for (int batch = 0; batch < 60; batch++) {
        int n = 1 + random.nextInt(12);
        for (int i = 0; i < n; i++) {
          int kind = random.nextInt(10);
          if (kind == 0) {
            sender.write(new WindowUpdateFrame(1 + random.nextInt(3), 1 + random.nextInt(1 << 20)));
            updates++;
            continue;
          }
          if (kind == 1) {
            sender.write(new DataFrame(3, offset, alloc.directBuffer(0), true));
            ends++;
            frames++;
            continue;
          }
          // a slice of a larger read, as MuxStream cuts a leg's read into frames
          int size = kind == 2 ? 1 + random.nextInt(64) : 1 + random.nextInt(32 * 1024);
          int before = random.nextInt(4096);
          ByteBuf read = alloc.directBuffer(before + size + 100);
          byte[] bytes = new byte[before + size + 100];
          random.nextBytes(bytes);
          read.writeBytes(bytes);
          ByteBuf payload = read.retainedSlice(before, size);
          read.release();
          sent.update(bytes, before, size);
          sender.write(new DataFrame(1, offset, payload, false));
          offset += size;
          frames++;
        }
        sender.flush();
        move(sender, receiver);
        for (Object msg; (msg = receiver.readInbound()) != null; ) {
          try {
            if (msg instanceof HelloFrame) {
              continue;
            }
            if (msg instanceof WindowUpdateFrame) {
              receivedUpdates++;
              continue;
            }
            DataFrame d = assertInstanceOf(DataFrame.class, msg);
            receivedFrames++;
            if (d.endStream()) {
              receivedEnds++;
              assertEquals(3, d.streamId());
              assertEquals(receivedOffset, d.offset());
              continue;
            }
            assertEquals(1, d.streamId());
            assertEquals(receivedOffset, d.offset(), "frame " + receivedFrames + " in order");
            byte[] b = new byte[d.content().readableBytes()];
            d.content().getBytes(d.content().readerIndex(), b);
            received.update(b);
            receivedOffset += b.length;
          } finally {
            ReferenceCountUtil.release(msg);
          }
        }
      }
      assertEquals(frames, receivedFrames);
      assertEquals(ends, receivedEnds);
      assertEquals(updates, receivedUpdates);
      assertEquals(offset, receivedOffset);
      assertArrayEquals(sent.digest(), received.digest(), "SHA-256 of every payload byte");
    } finally {
      sender.finishAndReleaseAll();
      receiver.finishAndReleaseAll();
    }
  }

  @Test
  void aFlushReachesTlsAsOneBufferHoldingTheFramesWhereTheyWere() throws Exception {
    PooledByteBufAllocator alloc = PooledByteBufAllocator.DEFAULT;
    EmbeddedChannel channel = new EmbeddedChannel(new TlsWriteGather());
    try {
      Random random = new Random(11);
      MessageDigest written = MessageDigest.getInstance("SHA-256");
      List<ByteBuf> frames = new ArrayList<>();
      List<ChannelFuture> writes = new ArrayList<>();
      long room = channel.bytesBeforeUnwritable();
      int total = 0;
      for (int i = 0; i < 6; i++) {
        byte[] bytes = new byte[1 + random.nextInt(8000)];
        random.nextBytes(bytes);
        written.update(bytes);
        ByteBuf frame = alloc.directBuffer(bytes.length).writeBytes(bytes);
        frames.add(frame);
        writes.add(channel.write(frame));
        total += bytes.length;
      }
      assertNull(channel.readOutbound(), "nothing reaches TLS before the flush");
      assertEquals(room - total, channel.bytesBeforeUnwritable(), "held frames count as the channel's pending bytes");

      channel.flush();
      ByteBuf out = channel.readOutbound();
      try {
        assertNull(channel.readOutbound(), "one buffer per flush");
        assertEquals(total, out.readableBytes());
        byte[] all = new byte[total];
        out.getBytes(out.readerIndex(), all);
        assertArrayEquals(written.digest(), MessageDigest.getInstance("SHA-256").digest(all), "SHA-256 of every byte, in order");
        for (ChannelFuture write : writes) {
          assertTrue(write.isSuccess(), "each frame's write completes with the flush");
        }
        ByteBuf first = frames.get(0);
        first.setByte(first.readerIndex(), ~first.getByte(first.readerIndex()));
        assertEquals(first.getByte(first.readerIndex()), out.getByte(out.readerIndex()), "the frames are not copied");
      } finally {
        out.release();
      }
    } finally {
      channel.finishAndReleaseAll();
    }
  }

  @Test
  void framesOfHeaderAndPayloadReachTlsFlattenedIntoOneLevel() throws Exception {
    PooledByteBufAllocator alloc = PooledByteBufAllocator.DEFAULT;
    EmbeddedChannel channel = new EmbeddedChannel(new TlsWriteGather());
    try {
      Random random = new Random(13);
      MessageDigest written = MessageDigest.getInstance("SHA-256");
      int total = 0;
      int parts = 0;
      for (int i = 0; i < 8; i++) {
        byte[] header = new byte[20];
        random.nextBytes(header);
        written.update(header);
        ByteBuf frame;
        if (i % 4 == 3) { // a frame without payload: a plain buffer
          frame = alloc.directBuffer(header.length).writeBytes(header);
          parts++;
        } else {
          byte[] payload = new byte[1 + random.nextInt(8000)];
          random.nextBytes(payload);
          written.update(payload);
          frame = alloc.compositeBuffer(2).addComponents(true, alloc.directBuffer(header.length).writeBytes(header),
              alloc.directBuffer(payload.length).writeBytes(payload));
          parts += 2;
        }
        total += frame.readableBytes();
        channel.write(frame);
      }
      channel.flush();
      CompositeByteBuf out = assertInstanceOf(CompositeByteBuf.class, channel.readOutbound());
      try {
        assertEquals(parts, out.numComponents(), "each header and payload is a component of the flush's buffer, not a nested composite");
        assertEquals(total, out.readableBytes());
        byte[] all = new byte[total];
        out.getBytes(out.readerIndex(), all);
        assertArrayEquals(written.digest(), MessageDigest.getInstance("SHA-256").digest(all), "SHA-256 of every byte, in order");
      } finally {
        out.release();
      }
    } finally {
      channel.finishAndReleaseAll();
    }
  }

  private static void move(EmbeddedChannel from, EmbeddedChannel to) {
    for (Object o; (o = from.readOutbound()) != null; ) {
      to.writeInbound(o);
    }
  }
}
