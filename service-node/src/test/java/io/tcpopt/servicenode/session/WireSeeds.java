package io.tcpopt.servicenode.session;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.tcpopt.servicenode.wire.DataFrame;
import io.tcpopt.servicenode.wire.Frame;
import io.tcpopt.servicenode.wire.FrameCodec;
import io.tcpopt.servicenode.wire.GoAwayFrame;
import io.tcpopt.servicenode.wire.HelloFrame;
import io.tcpopt.servicenode.wire.OpenFrame;
import io.tcpopt.servicenode.wire.PingFrame;
import io.tcpopt.servicenode.wire.ReductionFrame;
import io.tcpopt.servicenode.wire.RstStreamFrame;
import io.tcpopt.servicenode.wire.ServerReuse;
import io.tcpopt.servicenode.wire.WindowUpdateFrame;
import io.tcpopt.servicenode.wire.WireCodes;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The seed corpus of the frame fuzz: one valid frame of each kind a peer sends after its HELLO (and
 * the HELLO itself), as the real encoder writes them. The bytes are committed under
 * {@code src/test/resources/fuzz/wire/NAME.bin}; {@code FuzzCorpusTest} checks they still decode to
 * these frames. After a deliberate wire change, regenerate them with {@link #main}.
 *
 * <p>Stream ids fit the fuzz's connection prefix (the peer opened 1 and 3): the next OPEN is 5.
 * Destinations are 127.0.0.1:9 / [::1]:9 so that an accepted OPEN never leaves the host.
 */
public final class WireSeeds {
  public static final String PEER = "branch-1";
  public static final String PEER_SITE = "branch";
  /** The peer's pool's session value in its HELLOs (it dialled). */
  static final long SESSION = 0x5eed_0000_0000_0001L;
  static final InetSocketAddress SRC4 = new InetSocketAddress("198.18.1.2", 40000);
  static final InetSocketAddress DST4 = new InetSocketAddress("127.0.0.1", 9);
  static final InetSocketAddress SRC6 = new InetSocketAddress("2001:db8::2", 40000);
  static final InetSocketAddress DST6 = new InetSocketAddress("::1", 9);

  private WireSeeds() {}

  /**
   * Name → a supplier of the frame (frames with buffers are consumed by encoding). DATA sit at the
   * offsets the fuzz's prefix leaves: stream 1 sent 5 bytes in its OPEN, stream 3 none.
   */
  public static Map<String, Supplier<Frame>> frames() {
    Map<String, Supplier<Frame>> m = new LinkedHashMap<>();
    m.put("hello", () -> hello());
    m.put("hello-cache", () -> new HelloFrame(HelloFrame.VERSION, 65536, 1 << 20, 100, SESSION, 1, PEER, PEER_SITE, 0x1234_5678_9abcL, 1L << 30));
    m.put("open-ipv4", () -> new OpenFrame(5, 42, SRC4, DST4, 0, text("GET / HTTP/1.1\r\n")));
    m.put("open-ipv6", () -> new OpenFrame(5, 43, SRC6, DST6, OpenFrame.FLAG_TRANSPARENT_SOURCE, Unpooled.EMPTY_BUFFER));
    m.put("open-reduction", () -> new OpenFrame(5, 44, SRC4, DST4, 0x0600, Unpooled.EMPTY_BUFFER));
    m.put("open-reuse", () -> new OpenFrame(5, 45, SRC4, DST4, 0, new ServerReuse(1, 0, 64, 3_600_000, 1000, 4000), text("GET / HTTP/1.1\r\n")));
    m.put("data", () -> new DataFrame(1, 5, text("hello, world"), false));
    m.put("data-end", () -> new DataFrame(3, 0, Unpooled.wrappedBuffer(new byte[100]), true));
    m.put("data-gap", () -> new DataFrame(1, 5 + 1000, text("after a gap"), false));
    m.put("data-away", () -> new DataFrame(1, 5, text("from elsewhere"), false, false, 7));
    m.put("data-encoded", () -> {
      ByteBuf segment = Unpooled.buffer(32);
      segment.writeInt(0x53454731).writeInt(64).writeLong(7).writeBytes(new byte[16]);
      return new DataFrame(1, 5, segment, false, true);
    });
    m.put("data-empty", () -> new DataFrame(3, 0, Unpooled.EMPTY_BUFFER, false));
    m.put("window-update", () -> new WindowUpdateFrame(1, 65536));
    m.put("rst-stream", () -> new RstStreamFrame(3, WireCodes.CONNECTION_RESET, "reset by client"));
    m.put("ping", () -> new PingFrame(0x0102_0304_0506_0708L, false));
    m.put("ping-ack", () -> new PingFrame(42, true));
    m.put("goaway", () -> new GoAwayFrame(0, WireCodes.GOAWAY_SHUTTING_DOWN, "bye"));
    m.put("reduction", () -> new ReductionFrame(new byte[] {1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 7, 9, 9, 9, 9}));
    return m;
  }

  public static HelloFrame hello() {
    return new HelloFrame(HelloFrame.VERSION, 65536, 1 << 20, 100, SESSION, 0, PEER, PEER_SITE, 0, 0);
  }

  private static ByteBuf text(String s) {
    return Unpooled.copiedBuffer(s, StandardCharsets.US_ASCII);
  }

  /** The bytes the real encoder writes for {@code frames}. */
  public static byte[] encode(Frame... frames) {
    EmbeddedChannel enc = new EmbeddedChannel(new FrameCodec(1 << 24));
    for (Frame f : frames) {
      enc.writeOutbound(f);
    }
    ByteBuf all = Unpooled.buffer();
    ByteBuf part;
    while ((part = enc.readOutbound()) != null) {
      all.writeBytes(part);
      part.release();
    }
    enc.finishAndReleaseAll();
    byte[] out = new byte[all.readableBytes()];
    all.readBytes(out);
    all.release();
    return out;
  }

  /** The committed corpus, name → bytes, in the order of {@link #frames()}. */
  public static Map<String, byte[]> corpus() {
    Map<String, byte[]> out = new LinkedHashMap<>();
    for (String name : frames().keySet()) {
      try (InputStream in = WireSeeds.class.getResourceAsStream("/fuzz/wire/" + name + ".bin")) {
        if (in == null) {
          throw new IllegalStateException("seed fuzz/wire/" + name + ".bin missing from the test resources");
        }
        out.put(name, in.readAllBytes());
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return out;
  }

  /** Writes the corpus: {@code java ... WireSeeds service-node/src/test/resources/fuzz/wire}. */
  public static void main(String[] args) throws IOException {
    Path dir = Path.of(args.length > 0 ? args[0] : "service-node/src/test/resources/fuzz/wire");
    Files.createDirectories(dir);
    for (Map.Entry<String, Supplier<Frame>> e : frames().entrySet()) {
      Files.write(dir.resolve(e.getKey() + ".bin"), encode(e.getValue().get()));
    }
  }
}
