package io.tcpopt.common.tls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslProvider;
import io.netty.util.concurrent.Future;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TlsContextsTest {
  private static EventLoopGroup group;
  @TempDir static Path dir;
  @TempDir static Path otherDir;
  private static Map<String, TlsFiles> nodes;

  @BeforeAll
  static void setUp() {
    group = new MultiThreadIoEventLoopGroup(2, NioIoHandler.newFactory());
    nodes = DemoCertificates.generate(dir, List.of("branch-1", "dc-1"));
  }

  @AfterAll
  static void tearDown() {
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
  }

  @Test
  void mutualTls13HandshakeCarriesBytesAndNamesBothPeers() throws Exception {
    Outcome o = connect(TlsContexts.server(nodes.get("dc-1")), TlsContexts.client(nodes.get("branch-1")));

    assertTrue(o.server.isSuccess(), () -> "server handshake: " + o.server.cause());
    assertTrue(o.client.isSuccess(), () -> "client handshake: " + o.client.cause());
    assertEquals("TLSv1.3", o.serverProtocol);
    assertEquals("branch-1", o.serverSawPeer);
    assertEquals("dc-1", o.clientSawPeer);
    assertEquals("echo:hello over mutual TLS", o.reply.get(5, TimeUnit.SECONDS));
  }

  @Test
  void boringSslServesOnLinuxX86AndSpeaksToTheJdkProvider() throws Exception {
    boolean linuxX86 = System.getProperty("os.name").startsWith("Linux") && System.getProperty("os.arch").equals("amd64");
    if (linuxX86) {
      assertTrue(OpenSsl.isAvailable(), () -> "netty-tcnative-boringssl-static must load here: " + OpenSsl.unavailabilityCause());
      assertEquals(SslProvider.OPENSSL, TlsContexts.provider());
    }
    TlsFiles branch = nodes.get("branch-1");
    SslContext jdkClient =
        SslContextBuilder.forClient()
            .sslProvider(SslProvider.JDK)
            .protocols("TLSv1.3")
            .keyManager(PemMaterial.privateKey(branch.privateKey()), PemMaterial.certificates(branch.certificateChain()).get(0))
            .trustManager(PemMaterial.certificates(branch.trustedCertificates()).get(0))
            .endpointIdentificationAlgorithm(null)
            .build();

    Outcome o = connect(TlsContexts.server(nodes.get("dc-1")), jdkClient);

    assertTrue(o.server.isSuccess(), () -> "server handshake: " + o.server.cause());
    assertEquals("branch-1", o.serverSawPeer);
    assertEquals("echo:hello over mutual TLS", o.reply.get(5, TimeUnit.SECONDS));
  }

  @Test
  void clientCertificateFromAnotherCaIsRefused() throws Exception {
    TlsFiles rogue = DemoCertificates.generate(otherDir, List.of("rogue")).get("rogue");
    // The rogue client trusts the real CA, so only the server's check of the client can fail.
    TlsFiles rogueTrustingRealCa = new TlsFiles(rogue.certificateChain(), rogue.privateKey(), nodes.get("dc-1").trustedCertificates());

    Outcome o = connect(TlsContexts.server(nodes.get("dc-1")), TlsContexts.client(rogueTrustingRealCa));

    assertFalse(o.server.isSuccess(), "server must refuse a client certificate from another CA");
    assertTrue(
        HandshakeFailure.describe(o.server.cause(), "tls.trusted").startsWith("the peer presented no certificate from a CA in tls.trusted"),
        () -> HandshakeFailure.describe(o.server.cause(), "tls.trusted"));
    assertFalse("echo:hello over mutual TLS".equals(o.reply.exceptionally(t -> null).getNow(null)), "no data may flow");
  }

  @Test
  void serverCertificateFromAnotherCaIsRefusedByTheClient() throws Exception {
    TlsFiles rogue = DemoCertificates.generate(otherDir, List.of("rogue-server")).get("rogue-server");
    TlsFiles rogueTrustingRealCa = new TlsFiles(rogue.certificateChain(), rogue.privateKey(), nodes.get("dc-1").trustedCertificates());

    Outcome o = connect(TlsContexts.server(rogueTrustingRealCa), TlsContexts.client(nodes.get("branch-1")));

    assertFalse(o.client.isSuccess(), "client must refuse a server certificate from another CA");
    assertTrue(
        HandshakeFailure.describe(o.client.cause(), "tls.trusted").startsWith("the peer's certificate does not chain to a CA in tls.trusted"),
        () -> HandshakeFailure.describe(o.client.cause(), "tls.trusted"));
    assertFalse(o.server.isSuccess());
    if (TlsContexts.provider() == SslProvider.OPENSSL) {
      assertTrue(o.server.cause().toString().contains("TLSV1_ALERT_UNKNOWN_CA"), () -> o.server.cause().toString());
      assertTrue(
          HandshakeFailure.describe(o.server.cause(), "tls.trusted").startsWith("the peer does not trust our certificate: our CA is not among the peer's trusted CAs"),
          () -> HandshakeFailure.describe(o.server.cause(), "tls.trusted"));
    }
  }

  @Test
  void clientWithoutCertificateIsRefused() throws Exception {
    X509Certificate ca = PemMaterial.certificates(nodes.get("dc-1").trustedCertificates()).get(0);
    SslContext anonymous =
        SslContextBuilder.forClient().sslProvider(SslProvider.JDK).protocols("TLSv1.3").trustManager(ca).endpointIdentificationAlgorithm(null).build();

    Outcome o = connect(TlsContexts.server(nodes.get("dc-1")), anonymous);

    assertFalse(o.server.isSuccess(), "client authentication must be required");
  }

  @Test
  void tls12OnlyClientIsRefused() throws Exception {
    TlsFiles branch = nodes.get("branch-1");
    SslContext tls12 =
        SslContextBuilder.forClient()
            .sslProvider(SslProvider.JDK)
            .protocols("TLSv1.2")
            .keyManager(PemMaterial.privateKey(branch.privateKey()), PemMaterial.certificates(branch.certificateChain()).get(0))
            .trustManager(PemMaterial.certificates(branch.trustedCertificates()).get(0))
            .endpointIdentificationAlgorithm(null)
            .build();

    Outcome o = connect(TlsContexts.server(nodes.get("dc-1")), tls12);

    assertFalse(o.server.isSuccess(), "only TLS 1.3 is accepted");
    assertFalse(o.client.isSuccess());
  }

  /** What both ends saw of one connection attempt. */
  private record Outcome(
      Future<Channel> server, Future<Channel> client, String serverProtocol, String serverSawPeer, String clientSawPeer, CompletableFuture<String> reply) {}

  private static Outcome connect(SslContext serverContext, SslContext clientContext) throws Exception {
    CompletableFuture<SslHandler> serverHandler = new CompletableFuture<>();
    Channel server =
        new ServerBootstrap()
            .group(group)
            .channel(NioServerSocketChannel.class)
            .childHandler(
                new ChannelInitializer<SocketChannel>() {
                  @Override
                  protected void initChannel(SocketChannel ch) {
                    SslHandler ssl = serverContext.newHandler(ch.alloc());
                    serverHandler.complete(ssl);
                    ch.pipeline().addLast(ssl, new Echo());
                  }
                })
            .bind(new InetSocketAddress("127.0.0.1", 0))
            .sync()
            .channel();
    CompletableFuture<String> reply = new CompletableFuture<>();
    try {
      InetSocketAddress at = (InetSocketAddress) server.localAddress();
      SslHandler clientSsl = clientContext.newHandler(io.netty.buffer.ByteBufAllocator.DEFAULT, at.getHostString(), at.getPort());
      Channel client =
          new Bootstrap()
              .group(group)
              .channel(NioSocketChannel.class)
              .handler(
                  new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                      ch.pipeline().addLast(clientSsl, new Collect(reply));
                    }
                  })
              .connect(at)
              .sync()
              .channel();
      try {
        Future<Channel> clientDone = clientSsl.handshakeFuture().await();
        if (clientDone.isSuccess()) {
          client.writeAndFlush(Unpooled.copiedBuffer("hello over mutual TLS", StandardCharsets.UTF_8));
        }
        SslHandler serverSsl = serverHandler.get(5, TimeUnit.SECONDS);
        Future<Channel> serverDone = serverSsl.handshakeFuture();
        assertTrue(serverDone.await(5, TimeUnit.SECONDS), "server handshake did not finish");
        if (clientDone.isSuccess() && serverDone.isSuccess()) {
          reply.get(5, TimeUnit.SECONDS);
        }
        return new Outcome(
            serverDone,
            clientDone,
            serverSsl.engine().getSession().getProtocol(),
            TlsContexts.peerIdentity(serverSsl).orElse(null),
            TlsContexts.peerIdentity(clientSsl).orElse(null),
            reply);
      } finally {
        client.close().sync();
      }
    } finally {
      server.close().sync();
    }
  }

  private static final class Echo extends SimpleChannelInboundHandler<ByteBuf> {
    @Override
    protected void channelRead0(ChannelHandlerContext ctx, ByteBuf msg) {
      ctx.writeAndFlush(Unpooled.copiedBuffer("echo:" + msg.toString(StandardCharsets.UTF_8), StandardCharsets.UTF_8));
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      ctx.close();
    }
  }

  private static final class Collect extends SimpleChannelInboundHandler<ByteBuf> {
    private final CompletableFuture<String> reply;

    Collect(CompletableFuture<String> reply) {
      this.reply = reply;
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, ByteBuf msg) {
      reply.complete(msg.toString(StandardCharsets.UTF_8));
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      reply.completeExceptionally(cause);
      ctx.close();
    }
  }
}
