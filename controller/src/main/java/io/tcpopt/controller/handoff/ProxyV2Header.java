package io.tcpopt.controller.handoff;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;

/**
 * The PROXY protocol v2 header ({@code haproxy.org/download/2.9/doc/proxy-protocol.txt}, section
 * 2.2) a handoff sends before the client's bytes: command PROXY, TCP over IPv4 when both addresses
 * are IPv4, else TCP over IPv6 (an IPv4 address then written IPv4-mapped).
 */
final class ProxyV2Header {
  private static final byte[] SIGNATURE = {0x0D, 0x0A, 0x0D, 0x0A, 0x00, 0x0D, 0x0A, 0x51, 0x55, 0x49, 0x54, 0x0A};
  private static final int VERSION_2_PROXY = 0x21;
  private static final int TCP_OVER_IPV4 = 0x11;
  private static final int TCP_OVER_IPV6 = 0x21;

  private ProxyV2Header() {}

  /** The header for a flow from {@code source} to {@code destination} (resolved addresses). */
  static ByteBuf encode(ByteBufAllocator alloc, InetSocketAddress source, InetSocketAddress destination) {
    boolean v4 = source.getAddress() instanceof Inet4Address && destination.getAddress() instanceof Inet4Address;
    int addressLength = v4 ? 4 : 16;
    ByteBuf b = alloc.buffer(SIGNATURE.length + 4 + 2 * addressLength + 4);
    b.writeBytes(SIGNATURE);
    b.writeByte(VERSION_2_PROXY);
    b.writeByte(v4 ? TCP_OVER_IPV4 : TCP_OVER_IPV6);
    b.writeShort(2 * addressLength + 4);
    b.writeBytes(bytes(source.getAddress(), addressLength));
    b.writeBytes(bytes(destination.getAddress(), addressLength));
    b.writeShort(source.getPort());
    b.writeShort(destination.getPort());
    return b;
  }

  private static byte[] bytes(InetAddress address, int length) {
    byte[] raw = address.getAddress();
    if (raw.length == length) {
      return raw;
    }
    byte[] mapped = new byte[16];
    mapped[10] = (byte) 0xff;
    mapped[11] = (byte) 0xff;
    System.arraycopy(raw, 0, mapped, 12, 4);
    return mapped;
  }
}
