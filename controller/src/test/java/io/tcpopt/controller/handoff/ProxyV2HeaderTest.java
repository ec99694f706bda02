package io.tcpopt.controller.handoff;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.haproxy.HAProxyCommand;
import io.netty.handler.codec.haproxy.HAProxyMessage;
import io.netty.handler.codec.haproxy.HAProxyMessageDecoder;
import io.netty.handler.codec.haproxy.HAProxyProtocolVersion;
import io.netty.handler.codec.haproxy.HAProxyProxiedProtocol;
import java.net.InetSocketAddress;
import org.junit.jupiter.api.Test;

/** The hand-encoded PROXY v2 header, read back by Netty's decoder (as the service node reads it). */
class ProxyV2HeaderTest {
  private static HAProxyMessage decode(InetSocketAddress source, InetSocketAddress destination) {
    EmbeddedChannel ch = new EmbeddedChannel(new HAProxyMessageDecoder());
    ch.writeInbound(ProxyV2Header.encode(ByteBufAllocator.DEFAULT, source, destination));
    HAProxyMessage m = ch.readInbound();
    assertFalse(ch.finishAndReleaseAll());
    return m;
  }

  @Test
  void ipv4() {
    HAProxyMessage m = decode(new InetSocketAddress("198.18.1.2", 40000), new InetSocketAddress("198.19.1.2", 443));
    try {
      assertEquals(HAProxyProtocolVersion.V2, m.protocolVersion());
      assertEquals(HAProxyCommand.PROXY, m.command());
      assertEquals(HAProxyProxiedProtocol.TCP4, m.proxiedProtocol());
      assertEquals("198.18.1.2", m.sourceAddress());
      assertEquals(40000, m.sourcePort());
      assertEquals("198.19.1.2", m.destinationAddress());
      assertEquals(443, m.destinationPort());
    } finally {
      m.release();
    }
  }

  @Test
  void ipv6AndMixedFamilies() {
    HAProxyMessage m = decode(new InetSocketAddress("2001:db8::1", 65535), new InetSocketAddress("2001:db8:100::2", 80));
    try {
      assertEquals(HAProxyProxiedProtocol.TCP6, m.proxiedProtocol());
      assertEquals("2001:db8:0:0:0:0:0:1", m.sourceAddress());
      assertEquals(65535, m.sourcePort());
      assertEquals("2001:db8:100:0:0:0:0:2", m.destinationAddress());
    } finally {
      m.release();
    }
    HAProxyMessage mixed = decode(new InetSocketAddress("198.18.1.2", 1), new InetSocketAddress("2001:db8::2", 2));
    try {
      assertEquals(HAProxyProxiedProtocol.TCP6, mixed.proxiedProtocol());
      assertEquals("0:0:0:0:0:ffff:c612:102", mixed.sourceAddress(), "IPv4 written IPv4-mapped");
    } finally {
      mixed.release();
    }
  }
}
