package io.tcpopt.servicenode.tls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslProvider;
import io.tcpopt.common.config.ConfigTree;
import io.tcpopt.common.profile.ClientSslProfile;
import io.tcpopt.common.profile.ProfileDefinition;
import io.tcpopt.common.tls.DemoCertificates;
import io.tcpopt.common.tls.TlsFiles;
import io.tcpopt.common.transport.NettyTransport;
import io.tcpopt.servicenode.flow.TlsFigures;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * TLS termination on a client leg with a real TLS client (the JDK's SSLSocket), the records it
 * receives read off the wire through a recording proxy: small while the connection is new, full
 * after the threshold, small again after an idle pause; every plaintext byte delivered.
 */
class ClientTlsTerminationTest {
  private static final String NAME = "www.example.test";
  private static final int THRESHOLD = 64 * 1024;

  @TempDir Path dir;
  private TlsFiles files;
  private EventLoopGroup group;
  private final List<AutoCloseable> closeables = new ArrayList<>();

  @BeforeEach
  void setUp() {
    files = DemoCertificates.generate(dir, List.of(NAME)).get(NAME);
    group = NettyTransport.group(1, "tls-test");
  }

  @AfterEach
  void tearDown() throws Exception {
    for (AutoCloseable c : closeables) {
      c.close();
    }
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
  }

  static Stream<Arguments> providersAndVersions() {
    List<Arguments> out = new ArrayList<>();
    List<SslProvider> providers = OpenSsl.isAvailable() ? List.of(SslProvider.OPENSSL, SslProvider.JDK) : List.of(SslProvider.JDK);
    for (SslProvider p : providers) {
      out.add(Arguments.of(p, "TLSv1.2"));
      out.add(Arguments.of(p, "TLSv1.3"));
    }
    return out.stream();
  }

  private ClientSslProfile profile(String extra) {
    String yaml = "{ certificate: " + files.certificateChain() + ", private-key: " + files.privateKey() + (extra.isEmpty() ? "" : ", " + extra) + " }";
    ProfileDefinition d = ClientSslProfile.KIND.parse("www", ConfigTree.parse(yaml, "test"), (p, r) -> {
      throw new AssertionError(p + ": " + r);
    });
    return ClientSslProfile.KIND.resolve(Map.of("www", d), "", (p, r) -> {
      throw new AssertionError(p + ": " + r);
    }).get("www");
  }

  /** A node leg: TLS terminated by the hook, then an application that answers "GO n" with n bytes in one write. */
  private InetSocketAddress serve(SslContext context, ClientSslProfile profile, AtomicReference<ClientTlsTermination> installed)
      throws InterruptedException {
    Channel server = new ServerBootstrap()
        .group(group)
        .channel(NettyTransport.serverChannel())
        .childHandler(new ChannelInitializer<Channel>() {
          @Override
          protected void initChannel(Channel ch) {
            installed.set(ClientTlsTermination.install(ch, context, profile));
            ch.pipeline().addLast(new ChannelInboundHandlerAdapter() {
              private final StringBuilder line = new StringBuilder();

              @Override
              public void channelRead(ChannelHandlerContext ctx, Object msg) {
                ByteBuf b = (ByteBuf) msg;
                line.append(b.toString(StandardCharsets.US_ASCII));
                b.release();
                int nl;
                while ((nl = line.indexOf("\n")) >= 0) {
                  int n = Integer.parseInt(line.substring(3, nl).trim());
                  line.delete(0, nl + 1);
                  ctx.writeAndFlush(Unpooled.wrappedBuffer(content(n)));
                }
              }
            });
          }
        })
        .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).sync().channel();
    closeables.add(() -> server.close().syncUninterruptibly());
    return (InetSocketAddress) server.localAddress();
  }

  static byte[] content(int n) {
    byte[] b = new byte[n];
    new Random(n).nextBytes(b);
    return b;
  }

  private SSLSocket client(int port, String protocol) throws Exception {
    SSLSocket s = TestTls.client(files, new InetSocketAddress(InetAddress.getLoopbackAddress(), port), NAME, protocol);
    s.startHandshake();
    return s;
  }

  private static void fetch(SSLSocket s, int n) throws Exception {
    OutputStream out = s.getOutputStream();
    out.write(("GO " + n + "\n").getBytes(StandardCharsets.US_ASCII));
    out.flush();
    InputStream in = s.getInputStream();
    byte[] got = in.readNBytes(n);
    assertEquals(n, got.length);
    MessageDigest sha = MessageDigest.getInstance("SHA-256");
    assertTrue(Arrays.equals(sha.digest(content(n)), MessageDigest.getInstance("SHA-256").digest(got)), "plaintext byte-exact");
  }

  /** Application-data records sent after {@code offset}. */
  private static List<RecordingProxy.TlsRecord> after(List<RecordingProxy.TlsRecord> all, int offset) {
    return all.stream().filter(r -> r.offset() >= offset && r.type() == 23).toList();
  }

  /**
   * Checks a response's records: first the small ones (one segment each) that carry the threshold,
   * then full 16 KiB records only, but for the last. Plaintext sizes are not computed from record
   * lengths (providers pad differently); the client checks every byte.
   */
  private static void assertSmallThenFull(List<RecordingProxy.TlsRecord> records, int smallPlaintext, String what) {
    List<Integer> lengths = records.stream().map(RecordingProxy.TlsRecord::length).toList();
    int i = 0;
    while (i < records.size() && records.get(i).wireSize() <= 1400) {
      i++;
    }
    int expected = (THRESHOLD + smallPlaintext - 1) / smallPlaintext;
    assertTrue(i >= expected && i <= expected + 4, what + ": " + i + " small records, expected " + expected + " (session tickets aside): " + lengths);
    for (int j = i; j < records.size() - 1; j++) {
      int length = records.get(j).length();
      assertTrue(length >= 16384 + 16 && length <= 16384 + 40, what + ": record " + j + " is not a full record: " + lengths);
    }
  }

  @ParameterizedTest
  @MethodSource("providersAndVersions")
  void recordsStartSmallGrowAfterTheThresholdAndShrinkAfterAnIdlePause(SslProvider provider, String protocol) throws Exception {
    ClientSslProfile profile = profile("dynamic-record-threshold: 64KiB, dynamic-record-idle-timeout: 150ms");
    AtomicReference<ClientTlsTermination> tls = new AtomicReference<>();
    InetSocketAddress node = serve(SslProfileContexts.clientSsl(profile, Path.of(""), provider), profile, tls);
    RecordingProxy proxy = new RecordingProxy(node);
    closeables.add(proxy);
    try (SSLSocket s = client(proxy.port(), protocol)) {
      String cipher = s.getSession().getCipherSuite();
      assertEquals(protocol, s.getSession().getProtocol());
      int smallPlaintext = profile.smallRecordPlaintext();

      int first = proxy.recorded();
      fetch(s, 300_000);
      Thread.sleep(400); // idle for longer than dynamic-record-idle-timeout
      int second = proxy.recorded();
      fetch(s, 100_000);
      List<RecordingProxy.TlsRecord> all = proxy.records();
      assertSmallThenFull(after(all, first).stream().filter(r -> r.offset() < second).toList(), smallPlaintext, "new connection");
      assertSmallThenFull(after(all, second), smallPlaintext, "after an idle pause");

      TlsFigures info = tls.get().info();
      assertEquals(protocol, info.protocol());
      assertEquals(cipher, info.cipher());
      assertTrue(info.dynamicRecordSizing());
      assertEquals(16384, info.recordSize(), "full records after the threshold");
      long small = all.stream().filter(r -> r.type() == 23 && r.wireSize() <= 1400).count();
      long large = all.stream().filter(r -> r.type() == 23 && r.wireSize() > 1400).count();
      assertEquals(small, info.smallRecords(), "the leg counts what the wire shows");
      assertEquals(large, info.largeRecords());
    }
  }

  @Test
  void withoutDynamicSizingRecordsAreFullFromTheStart() throws Exception {
    ClientSslProfile profile = profile("allow-dynamic-record-sizing: false");
    AtomicReference<ClientTlsTermination> tls = new AtomicReference<>();
    InetSocketAddress node = serve(SslProfileContexts.clientSsl(profile, Path.of("")), profile, tls);
    RecordingProxy proxy = new RecordingProxy(node);
    closeables.add(proxy);
    try (SSLSocket s = client(proxy.port(), "TLSv1.3")) {
      int start = proxy.recorded();
      fetch(s, 200_000);
      List<RecordingProxy.TlsRecord> records = after(proxy.records(), start);
      // Before the response the server may still send session tickets (small); the response itself is full records.
      List<RecordingProxy.TlsRecord> response = records.subList(records.size() - 13, records.size());
      for (int i = 0; i < response.size() - 1; i++) {
        assertTrue(response.get(i).length() >= 16384 + 16, "record " + i + " is full: " + response.get(i).length());
      }
      assertEquals(false, tls.get().info().dynamicRecordSizing());
    }
  }

  @Test
  void aKeyThatGroupOrOthersCanReadIsRefusedWithTheProfileAndFileNamed() throws Exception {
    Files.setPosixFilePermissions(files.privateKey(), PosixFilePermissions.fromString("rw-r-----"));
    ClientSslProfile profile = profile("");
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> SslProfileContexts.clientSsl(profile, Path.of("")));
    assertEquals("client-ssl profile www: " + files.privateKey() + ": private key is readable by group or others (rw-r-----); "
        + "allow its owner only: chmod 600 " + files.privateKey(), e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> SslProfileContexts.clientSsl(ClientSslProfile.clientssl(), Path.of("")));
  }
}
