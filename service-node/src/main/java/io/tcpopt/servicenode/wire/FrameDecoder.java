package io.tcpopt.servicenode.wire;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Bytes to {@link Frame}s. The header is validated (reserved bits, type, flags, stream id, and the
 * length against this side's maximum frame size) before a single payload byte is awaited, so a
 * hostile length never makes the node buffer more than one maximum frame. The first frame must be
 * HELLO. Any violation throws {@link WireProtocolException}; after that the decoder discards input.
 *
 * <p>Input is accumulated as a composite buffer, not merged: a frame spanning several reads (or
 * several TLS records) is sliced out of the buffers it arrived in instead of being copied into one.
 */
final class FrameDecoder extends ByteToMessageDecoder {
  private final int maxFrameSize;
  private boolean helloSeen;
  private boolean failed;

  FrameDecoder(int maxFrameSize) {
    this.maxFrameSize = maxFrameSize;
    setCumulator(COMPOSITE_CUMULATOR);
  }

  @Override
  protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
    if (failed) {
      in.skipBytes(in.readableBytes());
      return;
    }
    try {
      while (in.readableBytes() >= FrameType.HEADER_LENGTH) {
        int start = in.readerIndex();
        long length = in.getUnsignedInt(start);
        int type = in.getUnsignedByte(start + 4);
        int flags = in.getUnsignedByte(start + 5);
        int reserved = in.getUnsignedShort(start + 6);
        long streamId = in.getUnsignedInt(start + 8);
        checkHeader(length, type, flags, reserved, streamId);
        if (in.readableBytes() < FrameType.HEADER_LENGTH + length) {
          return;
        }
        in.skipBytes(FrameType.HEADER_LENGTH);
        out.add(decodePayload(in, type, flags, (int) streamId, (int) length));
      }
    } catch (WireProtocolException e) {
      failed = true;
      in.skipBytes(in.readableBytes());
      throw e;
    }
  }

  private void checkHeader(long length, int type, int flags, int reserved, long streamId) {
    if (reserved != 0) {
      throw error(WireCodes.GOAWAY_PROTOCOL_ERROR, "reserved header bits set (0x" + Integer.toHexString(reserved) + ")");
    }
    if ((streamId & 0x8000_0000L) != 0) {
      throw error(WireCodes.GOAWAY_PROTOCOL_ERROR, "stream id high bit set");
    }
    if (type > FrameType.REDUCTION) {
      throw error(WireCodes.GOAWAY_PROTOCOL_ERROR, "unknown frame type 0x" + Integer.toHexString(type));
    }
    if (!helloSeen && type != FrameType.HELLO) {
      throw error(WireCodes.GOAWAY_PROTOCOL_ERROR, FrameType.name(type) + " before HELLO");
    }
    if (helloSeen && type == FrameType.HELLO) {
      throw error(WireCodes.GOAWAY_PROTOCOL_ERROR, "second HELLO");
    }
    long limit = helloSeen ? maxFrameSize : HelloFrame.MAX_PAYLOAD;
    if (length > limit) {
      throw error(WireCodes.GOAWAY_FRAME_SIZE, FrameType.name(type) + " length " + length + " exceeds " + limit);
    }
    boolean connectionLevel = type == FrameType.HELLO || type == FrameType.PING || type == FrameType.GOAWAY || type == FrameType.REDUCTION;
    if (connectionLevel != (streamId == 0)) {
      throw error(WireCodes.GOAWAY_PROTOCOL_ERROR, FrameType.name(type) + " on stream " + streamId);
    }
    int allowedFlags = type == FrameType.DATA ? FrameType.FLAG_END_STREAM | FrameType.FLAG_ENCODED | FrameType.FLAG_HOME
        : type == FrameType.PING ? FrameType.FLAG_ACK : type == FrameType.WINDOW_UPDATE ? FrameType.FLAG_GROW | FrameType.FLAG_RETURN : 0;
    if ((flags & ~allowedFlags) != 0) {
      throw error(WireCodes.GOAWAY_PROTOCOL_ERROR, FrameType.name(type) + " with unknown flags 0x" + Integer.toHexString(flags));
    }
    if (type == FrameType.DATA && (flags & (FrameType.FLAG_END_STREAM | FrameType.FLAG_HOME)) == (FrameType.FLAG_END_STREAM | FrameType.FLAG_HOME)) {
      throw error(WireCodes.GOAWAY_PROTOCOL_ERROR, "END_STREAM away from its stream's connection (DATA with HOME) on stream " + streamId);
    }
    if (type == FrameType.WINDOW_UPDATE && flags == (FrameType.FLAG_GROW | FrameType.FLAG_RETURN)) {
      throw error(WireCodes.GOAWAY_PROTOCOL_ERROR, "WINDOW_UPDATE with both GROW and RETURN on stream " + streamId);
    }
    long fixed;
    switch (type) {
      case FrameType.HELLO: fixed = 22; break; // enough for the version: a version-1 HELLO is refused by its version, not its length
      case FrameType.DATA: fixed = DataFrame.OFFSET_LENGTH + ((flags & FrameType.FLAG_HOME) != 0 ? DataFrame.HOME_LENGTH : 0); break;
      case FrameType.OPEN: fixed = OpenFrame.fixedLength(4); break;
      case FrameType.WINDOW_UPDATE: fixed = 4; break;
      case FrameType.RST_STREAM: fixed = 6; break;
      case FrameType.PING: fixed = 8; break;
      case FrameType.GOAWAY: fixed = 10; break;
      case FrameType.REDUCTION: fixed = 12; break;
      default: fixed = 0; break;
    }
    boolean exact = type == FrameType.WINDOW_UPDATE || type == FrameType.PING;
    if (length < fixed || (exact && length != fixed)) {
      throw error(WireCodes.GOAWAY_FRAME_SIZE, "bad " + FrameType.name(type) + " length " + length);
    }
    if (type == FrameType.DATA && (flags & FrameType.FLAG_ENCODED) != 0 && length < fixed + DataFrame.MIN_ENCODED) {
      throw error(WireCodes.GOAWAY_FRAME_SIZE, "ENCODED DATA of " + length + " bytes, shorter than its offset and a segment header");
    }
  }

  private Frame decodePayload(ByteBuf in, int type, int flags, int streamId, int length) {
    switch (type) {
      case FrameType.HELLO: {
        Frame hello = decodeHello(in.readSlice(length));
        helloSeen = true;
        return hello;
      }
      case FrameType.OPEN:
        return decodeOpen(in, streamId, length);
      case FrameType.DATA: {
        long offset = in.readLong();
        if (offset < 0) {
          throw error(WireCodes.GOAWAY_FLOW_CONTROL, "DATA offset " + Long.toUnsignedString(offset) + " beyond 2^63-1 on stream " + streamId);
        }
        int home = DataFrame.NO_HOME;
        int fields = DataFrame.OFFSET_LENGTH;
        if ((flags & FrameType.FLAG_HOME) != 0) {
          long h = in.readUnsignedInt();
          if (h > Integer.MAX_VALUE) {
            throw error(WireCodes.GOAWAY_PROTOCOL_ERROR, "DATA home connection " + h + " above 2^31-1 on stream " + streamId);
          }
          home = (int) h;
          fields += DataFrame.HOME_LENGTH;
        }
        return new DataFrame(streamId, offset, in.readRetainedSlice(length - fields), (flags & FrameType.FLAG_END_STREAM) != 0,
            (flags & FrameType.FLAG_ENCODED) != 0, home);
      }
      case FrameType.REDUCTION: {
        byte[] message = new byte[length];
        in.readBytes(message);
        return new ReductionFrame(message);
      }
      case FrameType.WINDOW_UPDATE: {
        long increment = in.readUnsignedInt();
        if (increment == 0) {
          throw error(WireCodes.GOAWAY_PROTOCOL_ERROR, "WINDOW_UPDATE of 0 on stream " + streamId);
        }
        if (increment > Integer.MAX_VALUE) {
          throw error(WireCodes.GOAWAY_FLOW_CONTROL, "WINDOW_UPDATE above 2^31-1 on stream " + streamId);
        }
        return new WindowUpdateFrame(streamId, (int) increment, (flags & FrameType.FLAG_GROW) != 0, (flags & FrameType.FLAG_RETURN) != 0);
      }
      case FrameType.RST_STREAM: {
        ByteBuf p = in.readSlice(length);
        long code = p.readUnsignedInt();
        return new RstStreamFrame(streamId, (int) Math.min(code, Integer.MAX_VALUE), readReason(p, "RST_STREAM"));
      }
      case FrameType.PING:
        return new PingFrame(in.readLong(), (flags & FrameType.FLAG_ACK) != 0);
      default: {
        ByteBuf p = in.readSlice(length);
        long last = p.readUnsignedInt();
        long code = p.readUnsignedInt();
        String reason = readReason(p, "GOAWAY");
        return new GoAwayFrame((int) (last & 0x7fff_ffffL), (int) Math.min(code, Integer.MAX_VALUE), reason);
      }
    }
  }

  private static String readReason(ByteBuf p, String what) {
    int len = p.readUnsignedShort();
    if (len != p.readableBytes()) {
      throw error(WireCodes.GOAWAY_FRAME_SIZE, what + " reason length " + len + " does not match payload");
    }
    return p.readCharSequence(len, StandardCharsets.UTF_8).toString();
  }

  private static HelloFrame decodeHello(ByteBuf p) {
    int magic = p.readInt();
    if (magic != HelloFrame.MAGIC) {
      throw error(WireCodes.GOAWAY_PROTOCOL_ERROR, "bad HELLO magic 0x" + Integer.toHexString(magic) + " (not a tcpopt peer)");
    }
    int version = p.readUnsignedShort();
    if (version != HelloFrame.VERSION) {
      throw error(WireCodes.GOAWAY_VERSION, "wire format version " + version + " refused: this node speaks version " + HelloFrame.VERSION
          + (version < HelloFrame.VERSION ? " only (DATA with stream offsets); upgrade the peer" : " only; upgrade this node"));
    }
    if (p.readUnsignedShort() != 0) {
      throw error(WireCodes.GOAWAY_PROTOCOL_ERROR, "HELLO reserved field set");
    }
    long maxFrame = p.readUnsignedInt();
    if (maxFrame < HelloFrame.MIN_MAX_FRAME_SIZE || maxFrame > HelloFrame.MAX_MAX_FRAME_SIZE) {
      throw error(WireCodes.GOAWAY_PROTOCOL_ERROR, "HELLO max-frame-size " + maxFrame + " outside 16KiB..16MiB");
    }
    long window = p.readUnsignedInt();
    if (window < 1 || window > Integer.MAX_VALUE) {
      throw error(WireCodes.GOAWAY_FLOW_CONTROL, "HELLO initial-stream-window " + window + " outside 1..2^31-1");
    }
    long maxStreams = p.readUnsignedInt();
    if (maxStreams < 1 || maxStreams > Integer.MAX_VALUE) {
      throw error(WireCodes.GOAWAY_PROTOCOL_ERROR, "HELLO max-streams " + maxStreams + " outside 1..2^31-1");
    }
    if (p.readableBytes() < 12) {
      throw error(WireCodes.GOAWAY_FRAME_SIZE, "HELLO truncated before its session and connection");
    }
    long session = p.readLong();
    long connection = p.readUnsignedInt();
    String name = readName(p, "name");
    String site = readName(p, "site");
    // The cache fields are optional: a HELLO that ends after the site announces no cache.
    long cacheEpoch = 0;
    long cacheCapacity = 0;
    if (p.readableBytes() >= 16) {
      cacheEpoch = p.readLong();
      cacheCapacity = p.readLong();
    }
    if (cacheCapacity < 0 || (cacheCapacity == 0) != (cacheEpoch == 0)) {
      throw error(WireCodes.GOAWAY_PROTOCOL_ERROR, "HELLO cache epoch " + Long.toUnsignedString(cacheEpoch, 16) + " with capacity "
          + Long.toUnsignedString(cacheCapacity) + " (both 0, or both set)");
    }
    if (p.isReadable()) {
      throw error(WireCodes.GOAWAY_FRAME_SIZE, "HELLO has " + p.readableBytes() + " trailing bytes");
    }
    return new HelloFrame(version, (int) maxFrame, (int) window, (int) maxStreams, session, (int) connection, name, site, cacheEpoch, cacheCapacity);
  }

  private static String readName(ByteBuf p, String what) {
    if (!p.isReadable()) {
      throw error(WireCodes.GOAWAY_FRAME_SIZE, "HELLO truncated before " + what);
    }
    int len = p.readUnsignedByte();
    if (len > p.readableBytes()) {
      throw error(WireCodes.GOAWAY_FRAME_SIZE, "HELLO " + what + " length " + len + " exceeds payload");
    }
    return p.readCharSequence(len, StandardCharsets.UTF_8).toString();
  }

  private static OpenFrame decodeOpen(ByteBuf in, int streamId, int length) {
    int end = in.readerIndex() + length;
    long flowId = in.readLong();
    int family = in.readUnsignedByte();
    int addressLength;
    if (family == 4) {
      addressLength = 4;
    } else if (family == 6) {
      addressLength = 16;
    } else {
      throw error(WireCodes.GOAWAY_PROTOCOL_ERROR, "OPEN address family " + family + " on stream " + streamId);
    }
    if (length < OpenFrame.fixedLength(addressLength)) {
      throw error(WireCodes.GOAWAY_FRAME_SIZE, "OPEN too short for IPv" + family + " on stream " + streamId);
    }
    InetSocketAddress source = readAddress(in, addressLength);
    InetSocketAddress destination = readAddress(in, addressLength);
    int openFlags = in.readUnsignedShort();
    if ((openFlags & ~OpenFrame.KNOWN_FLAGS) != 0 || ((openFlags >> 8) & 3) == 3) {
      throw error(WireCodes.GOAWAY_PROTOCOL_ERROR, "OPEN with unknown open-flags 0x" + Integer.toHexString(openFlags));
    }
    ServerReuse reuse = (openFlags & OpenFrame.FLAG_SERVER_REUSE) == 0 ? null : decodeServerReuse(in, end - in.readerIndex(), streamId);
    return new OpenFrame(streamId, flowId, source, destination, openFlags, reuse, in.readRetainedSlice(end - in.readerIndex()));
  }

  /** The server-reuse block of an OPEN (docs/wire-format.md §5.2), {@code left} payload bytes left. */
  private static ServerReuse decodeServerReuse(ByteBuf in, int left, int streamId) {
    if (left < 2) {
      throw error(WireCodes.GOAWAY_FRAME_SIZE, "OPEN on stream " + streamId + " ends before its server-reuse block");
    }
    int version = in.readUnsignedByte();
    int length = in.readUnsignedByte();
    if (length > left - 2) {
      throw error(WireCodes.GOAWAY_FRAME_SIZE, "server-reuse block of " + length + " bytes beyond the OPEN on stream " + streamId);
    }
    if (length > ServerReuse.MAX_BODY || (version == ServerReuse.VERSION && length != ServerReuse.BODY_V1)) {
      throw error(WireCodes.GOAWAY_PROTOCOL_ERROR, "server-reuse block version " + version + " of " + length + " bytes on stream " + streamId);
    }
    if (version != ServerReuse.VERSION) {
      in.skipBytes(length);
      return ServerReuse.notUnderstood(version);
    }
    int mask = in.readUnsignedByte();
    long maxSize = in.readUnsignedInt();
    long maxAge = in.readUnsignedInt();
    long maxReuse = in.readUnsignedInt();
    long idle = in.readUnsignedInt();
    String problem = ServerReuse.problem(mask, maxSize, maxAge, maxReuse, idle);
    if (problem != null) {
      throw error(WireCodes.GOAWAY_PROTOCOL_ERROR, problem + " on stream " + streamId);
    }
    return new ServerReuse(version, mask, (int) maxSize, maxAge, (int) maxReuse, idle);
  }

  private static InetSocketAddress readAddress(ByteBuf in, int addressLength) {
    byte[] raw = new byte[addressLength];
    in.readBytes(raw);
    int port = in.readUnsignedShort();
    if (ipv4Mapped(raw)) { // an IPv4 address dressed as IPv6: it would bypass family-specific checks, family 4 says it plainly
      throw error(WireCodes.GOAWAY_PROTOCOL_ERROR, "IPv4-mapped IPv6 address in OPEN");
    }
    try {
      return new InetSocketAddress(InetAddress.getByAddress(raw), port);
    } catch (UnknownHostException e) {
      throw error(WireCodes.GOAWAY_PROTOCOL_ERROR, "bad address in OPEN");
    }
  }

  /** Whether 16 address bytes are an IPv4-mapped IPv6 address ({@code ::ffff:a.b.c.d}). */
  private static boolean ipv4Mapped(byte[] raw) {
    if (raw.length != 16 || raw[10] != (byte) 0xff || raw[11] != (byte) 0xff) {
      return false;
    }
    for (int i = 0; i < 10; i++) {
      if (raw[i] != 0) {
        return false;
      }
    }
    return true;
  }

  private static WireProtocolException error(int code, String reason) {
    return new WireProtocolException(code, reason);
  }
}
