package io.tcpopt.servicenode.tls;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.handler.ssl.SslHandler;
import io.tcpopt.common.config.ConfigTree;
import io.tcpopt.common.profile.ProfileDefinition;
import io.tcpopt.common.profile.ServerSslProfile;
import io.tcpopt.common.tls.DemoCertificates;
import io.tcpopt.common.tls.TlsFiles;
import io.tcpopt.common.transport.NettyTransport;
import java.io.ByteArrayOutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.ExtendedSSLSession;
import javax.net.ssl.SNIServerName;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLServerSocket;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The server-SSL hook against a real TLS server (the JDK's SSLServerSocket, echoing): SNI, verification, byte-exact data. */
class ServerTlsTest {
  private static final String NAME = "www.example.test";

  @TempDir Path dir;
  private TlsFiles files;
  private SSLServerSocket server;
  private final Queue<String> sniSeen = new ConcurrentLinkedQueue<>();
  private EventLoopGroup group;

  @BeforeEach
  void setUp() throws Exception {
    files = DemoCertificates.generate(dir, List.of(NAME)).get(NAME);
    SSLContext ctx = TestTls.serverContext(files);
    server = (SSLServerSocket) ctx.getServerSocketFactory().createServerSocket(0, 8, InetAddress.getLoopbackAddress());
    Thread t = new Thread(() -> {
      while (!server.isClosed()) {
        try (SSLSocket s = (SSLSocket) server.accept()) {
          s.setSoTimeout(10_000);
          try {
            s.startHandshake();
          } catch (java.io.IOException e) {
            continue; // the client refused our certificate
          }
          for (SNIServerName n : ((ExtendedSSLSession) s.getSession()).getRequestedServerNames()) {
            sniSeen.add(new String(n.getEncoded(), java.nio.charset.StandardCharsets.US_ASCII));
          }
          byte[] buf = new byte[8192];
          int n;
          while ((n = s.getInputStream().read(buf)) > 0) {
            s.getOutputStream().write(buf, 0, n);
          }
        } catch (java.io.IOException e) {
          // next connection
        }
      }
    }, "tls-echo");
    t.setDaemon(true);
    t.start();
    group = NettyTransport.group(1, "server-tls-test");
  }

  @AfterEach
  void tearDown() throws Exception {
    server.close();
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
  }

  private ServerSslProfile profile(String yaml) {
    ProfileDefinition d = ServerSslProfile.KIND.parse("backend", ConfigTree.parse(yaml, "test"), (p, r) -> {
      throw new AssertionError(p + ": " + r);
    });
    return ServerSslProfile.KIND.resolve(Map.of("backend", d), "", (p, r) -> {
      throw new AssertionError(p + ": " + r);
    }).get("backend");
  }

  /** Connects through the hook, sends {@code data}, and returns the echo; null when the handshake fails. */
  private byte[] echo(ServerSslProfile profile, byte[] data) throws Exception {
    InetSocketAddress target = (InetSocketAddress) server.getLocalSocketAddress();
    ByteArrayOutputStream got = new ByteArrayOutputStream();
    CountDownLatch done = new CountDownLatch(1);
    SslHandler[] ssl = new SslHandler[1];
    Channel ch = new Bootstrap()
        .group(group)
        .channel(NettyTransport.socketChannel())
        .handler(new ChannelInitializer<Channel>() {
          @Override
          protected void initChannel(Channel c) {
            ssl[0] = ServerTls.install(c, SslProfileContexts.serverSsl(profile, Path.of("")), profile, target);
            c.pipeline().addLast(new ChannelInboundHandlerAdapter() {
              @Override
              public void channelRead(ChannelHandlerContext ctx, Object msg) {
                ByteBuf b = (ByteBuf) msg;
                synchronized (got) {
                  byte[] bytes = new byte[b.readableBytes()];
                  b.readBytes(bytes);
                  got.writeBytes(bytes);
                  if (got.size() >= data.length) {
                    done.countDown();
                  }
                }
                b.release();
              }

              @Override
              public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
                ctx.close();
              }
            });
          }
        })
        .connect(target).sync().channel();
    try {
      if (!ssl[0].handshakeFuture().await(10, TimeUnit.SECONDS) || !ssl[0].handshakeFuture().isSuccess()) {
        return null;
      }
      ch.writeAndFlush(Unpooled.wrappedBuffer(data));
      assertTrue(done.await(10, TimeUnit.SECONDS));
      synchronized (got) {
        return got.toByteArray();
      }
    } finally {
      ch.close().sync();
    }
  }

  @Test
  void verifiesTheServerAgainstTheProfileAndCarriesEveryByte() throws Exception {
    byte[] data = new byte[200_000];
    new Random(3).nextBytes(data);
    String ca = files.trustedCertificates().toString();
    assertArrayEquals(data, echo(profile("{ ca-file: " + ca + ", server-name: " + NAME + " }"), data));
    assertEquals(List.of(NAME), List.copyOf(sniSeen), "the server name went out as SNI");
    // Without a name the certificate must name the server's address (the demo certificates name 127.0.0.1).
    assertArrayEquals(data, echo(profile("{ ca-file: " + ca + " }"), data));
    assertEquals(List.of(NAME), List.copyOf(sniSeen), "no SNI for an address");
    // A certificate for another name, or from a CA the node does not trust, is refused.
    assertEquals(null, echo(profile("{ ca-file: " + ca + ", server-name: other.example.test }"), data));
    assertEquals(null, echo(profile("{ server-name: " + NAME + " }"), data));
    // verify: false accepts any certificate.
    assertArrayEquals(data, echo(profile("{ verify: false }"), data));
    assertFalse(ServerTls.transport(profile("{ verify: false }")).equals(ServerTls.transport(profile("{ verify: true }"))));
  }
}
