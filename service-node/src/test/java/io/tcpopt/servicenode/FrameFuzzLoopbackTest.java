package io.tcpopt.servicenode;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslHandler;
import io.tcpopt.common.tls.TlsFiles;
import io.tcpopt.common.transport.NettyTransport;
import io.tcpopt.servicenode.session.WireMutator;
import io.tcpopt.servicenode.session.WireOracle;
import io.tcpopt.servicenode.session.WireSeeds;
import io.tcpopt.servicenode.wire.PingFrame;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Issue 8, chaos scenario 4 on a live node: a peer holding a valid certificate (branch-1's)
 * completes TLS and HELLO with a real DC node and sends mutated frames; each GOAWAY code, or the
 * answer to a probe PING when the frames were valid, is the one {@link WireOracle} reads in
 * docs/wire-format.md. Meanwhile the real branch node downloads through the same DC, each download
 * byte-exact (SHA-256), and its session is never touched. Cases whose answer would depend on a
 * stream the DC may already have finished (it connects to 127.0.0.1:9, refused) are not sent.
 */
class FrameFuzzLoopbackTest {
  private static final Logger log = LoggerFactory.getLogger(FrameFuzzLoopbackTest.class);
  private static final int CASES = Integer.getInteger("tcpopt.fuzz.loopbackCases", 300);
  private static final long PROBE = 0x5052_4f42_4521L;
  private static final long DOWNLOAD = 1 << 20;

  @TempDir static Path certs;

  @Test
  void mutatedFramesOverTlsGetTheirGoAwayWhileAnotherPeersFlowsStayByteExact() throws Exception {
    Map<String, byte[]> corpus = WireSeeds.corpus();
    List<byte[]> seeds = new ArrayList<>(corpus.values());
    byte[] hello = corpus.get("hello");
    byte[] probe = WireSeeds.encode(new PingFrame(PROBE, false));
    WireMutator mutator = new WireMutator(Long.getLong("tcpopt.fuzz.seed", 20261201L) + 2, seeds);
    Random random = mutator.random();
    Map<String, Integer> outcomes = new TreeMap<>();
    EventLoopGroup group = NettyTransport.group(1, "fuzz-peer");
    AtomicBoolean stop = new AtomicBoolean();
    AtomicInteger downloads = new AtomicInteger();
    AtomicReference<Throwable> flowError = new AtomicReference<>();
    try (TestServer server = new TestServer(s -> {
      long size = new java.io.DataInputStream(s.getInputStream()).readLong();
      Payload.write(s.getOutputStream(), size, 8);
      s.shutdownOutput();
    });
        TestNodes nodes = TestNodes.start(certs, 1, List.of(server.address()), "", "")) {
      SslContext tls = WanTls.client(new TlsFiles(certs.resolve("branch-1.crt"), certs.resolve("branch-1.key"), certs.resolve("ca.crt")));
      String expectedSha = Payload.write(new ByteArrayOutputStream(), DOWNLOAD, 8);
      Thread flows = new Thread(() -> {
        while (!stop.get() && flowError.get() == null) {
          try (Socket s = new Socket()) {
            s.connect(nodes.listener(0), 5_000);
            s.setSoTimeout(20_000);
            new DataOutputStream(s.getOutputStream()).writeLong(DOWNLOAD);
            Payload.Digest got = Payload.readAll(s.getInputStream());
            assertEquals(expectedSha, got.sha256(), "a download beside the fuzz");
            downloads.incrementAndGet();
          } catch (Throwable t) {
            flowError.set(t);
          }
        }
      }, "well-behaved-flows");
      flows.start();
      long start = System.nanoTime();
      FuzzPeer peer = null;
      List<byte[]> sent = new ArrayList<>();
      int checked = 0;
      int connections = 0;
      for (int i = 0; i < CASES; i++) {
        boolean helloCase = random.nextInt(8) == 0;
        byte[] bytes = helloCase ? concat(mutator.mutate(hello), probe) : concat(mutator.mutate(seeds.get(random.nextInt(seeds.size()))), probe);
        if (helloCase && peer != null) {
          peer.close();
          peer = null;
        }
        if (peer == null) {
          peer = FuzzPeer.connect(group, tls, nodes.dc.wanAddress());
          connections++;
          sent.clear();
          if (!helloCase) {
            sent.add(hello);
            peer.send(hello);
          }
        }
        WireOracle oracle = peer.oracle();
        sent.forEach(oracle::feed);
        List<WireOracle.Answer> expected = oracle.feed(bytes);
        if (oracle.streamDependent() || oracle.incomplete() || !loopbackOnly(oracle)) {
          outcomes.merge("not sent (stream-dependent, incomplete or not loopback)", 1, Integer::sum);
          if (helloCase) {
            peer.close();
            peer = null;
          }
          continue;
        }
        sent.add(bytes);
        peer.send(bytes);
        String context = "case " + i + " " + java.util.HexFormat.of().formatHex(bytes);
        if (oracle.errorCode() >= 0) {
          assertEquals(oracle.errorCode(), peer.awaitGoAway(context), "GOAWAY code for " + context);
          peer.awaitClosed(context);
          peer = null;
          outcomes.merge("GOAWAY " + oracle.errorCode(), 1, Integer::sum);
        } else if (oracle.closed()) {
          peer.awaitClosed(context);
          assertEquals(-1, peer.goAwayCode(), "closed without GOAWAY of its own: " + context);
          peer = null;
          outcomes.merge("closed by peer GOAWAY", 1, Integer::sum);
        } else {
          assertTrue(expected.contains(new WireOracle.Answer("PING_ACK", PROBE, 0)), context);
          peer.awaitProbeAck(context);
          outcomes.merge("alive", 1, Integer::sum);
        }
        checked++;
      }
      if (peer != null) {
        peer.close();
      }
      double seconds = (System.nanoTime() - start) / 1e9;
      stop.set(true);
      flows.join(30_000);
      assertNull(flowError.get(), () -> "a well-behaved flow failed during the fuzz: " + flowError.get());
      log.info("loopback fuzz: {} cases over TLS in {} connections, {} checked, {} s; {} byte-exact downloads meanwhile; outcomes {}", CASES,
          connections, checked, String.format("%.1f", seconds), downloads.get(), outcomes);
      assertTrue(downloads.get() > 0, "the branch downloaded during the fuzz");
      assertTrue(checked > CASES / 2, "most cases were comparable: " + outcomes);
      for (String o : List.of("GOAWAY 1", "GOAWAY 3", "alive")) {
        assertTrue(outcomes.getOrDefault(o, 0) > 0, "never reached " + o + ": " + outcomes);
      }
      assertEquals(nodes.pooled(), nodes.upAtBranch(), "the branch's own connections were never touched");
    } finally {
      stop.set(true);
      group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
    }
  }

  private static boolean loopbackOnly(WireOracle oracle) {
    for (byte[] d : oracle.acceptedDestinations()) {
      boolean v4 = d.length == 4 && d[0] == 127;
      boolean v6 = d.length == 16 && d[15] == 1 && java.util.Arrays.equals(java.util.Arrays.copyOf(d, 15), new byte[15]);
      if (!v4 && !v6) {
        return false;
      }
    }
    return true;
  }

  private static byte[] concat(byte[]... parts) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (byte[] p : parts) {
      out.writeBytes(p);
    }
    return out.toByteArray();
  }

  /** The fuzzing peer: a TLS connection with branch-1's certificate, collecting what the DC sends. */
  private static final class FuzzPeer extends ChannelInboundHandlerAdapter {
    private final ByteArrayOutputStream received = new ByteArrayOutputStream();
    private Channel channel;

    static FuzzPeer connect(EventLoopGroup group, SslContext tls, InetSocketAddress dc) throws Exception {
      FuzzPeer peer = new FuzzPeer();
      Channel ch = new Bootstrap().group(group).channel(NettyTransport.socketChannel()).handler(new ChannelInitializer<Channel>() {
        @Override
        protected void initChannel(Channel ch) {
          ch.pipeline().addLast(tls.newHandler(ch.alloc(), dc.getHostString(), dc.getPort()), peer);
        }
      }).connect(dc).sync().channel();
      peer.channel = ch;
      if (!ch.pipeline().get(SslHandler.class).handshakeFuture().await(10, TimeUnit.SECONDS)) {
        fail("TLS handshake with the DC timed out");
      }
      TestNodes.await(() -> peer.frame(0) != null, 10_000, "the DC's HELLO");
      ByteBuffer h = peer.frame(0);
      peer.hello = new byte[h.remaining()];
      h.duplicate().get(peer.hello);
      return peer;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      ByteBuf b = (ByteBuf) msg;
      byte[] bytes = new byte[b.readableBytes()];
      b.readBytes(bytes);
      synchronized (received) {
        received.writeBytes(bytes);
      }
      b.release();
    }

    void send(byte[] bytes) {
      channel.writeAndFlush(Unpooled.wrappedBuffer(bytes));
    }

    void close() {
      channel.close().syncUninterruptibly();
    }

    /** The oracle for this DC, from its HELLO (its limits), admitting branch-1 under its certificate. */
    WireOracle oracle() {
      ByteBuffer h = frame(0);
      return new WireOracle("dc-1", Map.of(WireSeeds.PEER, WireSeeds.PEER_SITE), h.getInt(12 + 8), h.getInt(12 + 12), h.getInt(12 + 16))
          .identity(WireSeeds.PEER);
    }

    /** The {@code index}th frame the DC sent (header included), or null. */
    ByteBuffer frame(int index) {
      List<ByteBuffer> all = frames();
      return index < all.size() ? all.get(index) : null;
    }

    List<ByteBuffer> frames() {
      byte[] bytes;
      synchronized (received) {
        bytes = received.toByteArray();
      }
      List<ByteBuffer> out = new ArrayList<>();
      int end = completeFramesEnd(bytes);
      ByteBuffer b = ByteBuffer.wrap(bytes, 0, end);
      while (b.hasRemaining()) {
        int length = b.getInt(b.position());
        out.add(ByteBuffer.wrap(bytes, b.position(), 12 + length).slice());
        b.position(b.position() + 12 + length);
      }
      return out;
    }

    /** Where the last complete frame in {@code bytes} ends. */
    private static int completeFramesEnd(byte[] bytes) {
      ByteBuffer b = ByteBuffer.wrap(bytes);
      while (b.remaining() >= 12 && b.remaining() >= 12 + b.getInt(b.position())) {
        b.position(b.position() + 12 + b.getInt(b.position()));
      }
      return b.position();
    }

    int goAwayCode() {
      for (ByteBuffer f : frames()) {
        if (f.get(4) == 6) {
          return f.getInt(12 + 4);
        }
      }
      return -1;
    }

    int awaitGoAway(String context) {
      await(() -> goAwayCode() >= 0, "GOAWAY for " + context);
      return goAwayCode();
    }

    void awaitClosed(String context) {
      await(() -> !channel.isActive(), "the DC to close after " + context);
    }

    void awaitProbeAck(String context) {
      await(() -> frames().stream().anyMatch(f -> f.get(4) == 5 && (f.get(5) & 1) != 0 && f.getLong(12) == PROBE) || goAwayCode() >= 0,
          "the probe's PING ACK after " + context);
      assertEquals(-1, goAwayCode(), "no GOAWAY after valid frames: " + context);
      synchronized (received) {
        // The next case's probe is told from this one's. A frame still arriving (the DC's DATA
        // from a stream a case opened) is kept: cut in half, it would garble every frame after it.
        byte[] bytes = received.toByteArray();
        int end = completeFramesEnd(bytes);
        received.reset();
        received.writeBytes(hello);
        received.write(bytes, end, bytes.length - end);
      }
    }

    private byte[] hello;

    private void await(java.util.function.BooleanSupplier condition, String what) {
      TestNodes.await(condition, 10_000, what);
    }
  }
}
