package io.tcpopt.servicenode.wire;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.MessageToMessageEncoder;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * {@link Frame}s to bytes, one buffer per frame. DATA and OPEN payloads are passed on as they are
 * (no copy) behind a separately allocated header, in one composite buffer; the caller keeps payloads
 * within the peer's maximum frame size. Under TLS the frames of a flush are gathered into one
 * buffer, again without a copy, before they are encrypted (the session's {@code TlsWriteGather}).
 */
final class FrameEncoder extends MessageToMessageEncoder<Frame> {
  FrameEncoder() {
    super(Frame.class);
  }

  @Override
  protected void encode(ChannelHandlerContext ctx, Frame frame, List<Object> out) {
    if (frame instanceof DataFrame) {
      DataFrame data = (DataFrame) frame;
      boolean away = data.home() != DataFrame.NO_HOME;
      int fields = DataFrame.OFFSET_LENGTH + (away ? DataFrame.HOME_LENGTH : 0);
      ByteBuf header = ctx.alloc().buffer(FrameType.HEADER_LENGTH + fields);
      int flags = (data.endStream() ? FrameType.FLAG_END_STREAM : 0) | (data.encoded() ? FrameType.FLAG_ENCODED : 0) | (away ? FrameType.FLAG_HOME : 0);
      writeHeader(header, fields + data.content().readableBytes(), FrameType.DATA, flags, data.streamId());
      header.writeLong(data.offset());
      if (away) {
        header.writeInt(data.home());
      }
      out.add(whole(ctx, header, data.content()));
    } else if (frame instanceof OpenFrame) {
      OpenFrame open = (OpenFrame) frame;
      byte[] src = open.source().getAddress().getAddress();
      byte[] dst = open.destination().getAddress().getAddress();
      ServerReuse reuse = open.serverReuse();
      if (reuse != null && !reuse.understood()) {
        throw new IllegalArgumentException("cannot encode a server-reuse block of version " + reuse.version());
      }
      int fixed = OpenFrame.fixedLength(src.length) + (reuse == null ? 0 : reuse.encodedLength());
      ByteBuf header = ctx.alloc().buffer(FrameType.HEADER_LENGTH + fixed);
      writeHeader(header, fixed + open.content().readableBytes(), FrameType.OPEN, 0, open.streamId());
      header.writeLong(open.flowId());
      header.writeByte(src.length == 4 ? 4 : 6);
      writeAddress(header, src, open.source());
      writeAddress(header, dst, open.destination());
      header.writeShort(open.openFlags());
      if (reuse != null) {
        header.writeByte(ServerReuse.VERSION).writeByte(ServerReuse.BODY_V1);
        header.writeByte(reuse.sourceMaskBits()).writeInt(reuse.maxSize()).writeInt((int) reuse.maxAgeMillis()).writeInt(reuse.maxReuse())
            .writeInt((int) reuse.idleTimeoutMillis());
      }
      out.add(whole(ctx, header, open.content()));
    } else {
      out.add(encodeControl(ctx, frame));
    }
  }

  /**
   * A frame's header and payload as one buffer (composite: the payload is not copied). Written as
   * two messages, a write-buffer watermark crossed by the header could fire a writability change
   * that lets other frames be written between the header and its payload (plaintext: the outbound
   * buffer fires it synchronously).
   */
  private static ByteBuf whole(ChannelHandlerContext ctx, ByteBuf header, ByteBuf payload) {
    if (!payload.isReadable()) {
      return header;
    }
    return ctx.alloc().compositeBuffer(2).addComponents(true, header, payload.retain());
  }

  private static ByteBuf encodeControl(ChannelHandlerContext ctx, Frame frame) {
    ByteBuf buf = ctx.alloc().buffer(64);
    buf.writerIndex(FrameType.HEADER_LENGTH);
    int type;
    int flags = 0;
    if (frame instanceof HelloFrame) {
      HelloFrame h = (HelloFrame) frame;
      type = FrameType.HELLO;
      buf.writeInt(HelloFrame.MAGIC).writeShort(h.version()).writeShort(0);
      buf.writeInt(h.maxFrameSize()).writeInt(h.initialStreamWindow()).writeInt(h.maxStreams());
      buf.writeLong(h.session()).writeInt(h.connection());
      writeName(buf, h.name());
      writeName(buf, h.site());
      if (h.cacheCapacity() != 0) { // without a cache the fields are left out 
        buf.writeLong(h.cacheEpoch()).writeLong(h.cacheCapacity());
      }
    } else if (frame instanceof WindowUpdateFrame) {
      WindowUpdateFrame w = (WindowUpdateFrame) frame;
      type = FrameType.WINDOW_UPDATE;
      flags = w.grow() ? FrameType.FLAG_GROW : w.giveBack() ? FrameType.FLAG_RETURN : 0;
      buf.writeInt(w.increment());
    } else if (frame instanceof RstStreamFrame) {
      RstStreamFrame r = (RstStreamFrame) frame;
      type = FrameType.RST_STREAM;
      buf.writeInt(r.code());
      writeReason(buf, r.reason());
    } else if (frame instanceof PingFrame) {
      PingFrame p = (PingFrame) frame;
      type = FrameType.PING;
      flags = p.ack() ? FrameType.FLAG_ACK : 0;
      buf.writeLong(p.opaque());
    } else if (frame instanceof GoAwayFrame) {
      GoAwayFrame g = (GoAwayFrame) frame;
      type = FrameType.GOAWAY;
      buf.writeInt(g.lastStreamId()).writeInt(g.code());
      writeReason(buf, g.reason());
    } else if (frame instanceof ReductionFrame) {
      type = FrameType.REDUCTION;
      buf.writeBytes(((ReductionFrame) frame).message());
    } else {
      buf.release();
      throw new IllegalArgumentException("cannot encode " + frame);
    }
    int end = buf.writerIndex();
    buf.writerIndex(0);
    writeHeader(buf, end - FrameType.HEADER_LENGTH, type, flags, frame.streamId());
    buf.writerIndex(end);
    return buf;
  }

  private static void writeHeader(ByteBuf buf, int length, int type, int flags, int streamId) {
    buf.writeInt(length).writeByte(type).writeByte(flags).writeShort(0).writeInt(streamId);
  }

  private static void writeAddress(ByteBuf buf, byte[] raw, InetSocketAddress address) {
    buf.writeBytes(raw).writeShort(address.getPort());
  }

  private static void writeName(ByteBuf buf, String s) {
    byte[] b = truncate(s.getBytes(StandardCharsets.UTF_8), 255);
    buf.writeByte(b.length).writeBytes(b);
  }

  private static void writeReason(ByteBuf buf, String s) {
    byte[] b = truncate((s == null ? "" : s).getBytes(StandardCharsets.UTF_8), 1024);
    buf.writeShort(b.length).writeBytes(b);
  }

  private static byte[] truncate(byte[] b, int max) {
    if (b.length <= max) {
      return b;
    }
    byte[] t = new byte[max];
    System.arraycopy(b, 0, t, 0, max);
    return t;
  }
}
