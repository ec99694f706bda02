package io.tcpopt.servicenode.session;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A second reading of docs/wire-format.md, written from the page and not from the decoder: what a
 * node on the accepting side must answer to the bytes a peer sends (PING ACKs, RST_STREAMs, the
 * GOAWAY of a connection error and its code). The frame fuzz compares every answer of the real
 * decoder and multiplexer with it. Precedence between several violations in one frame follows the
 * order of the checks in the page (section 3 for the header, field order for payloads).
 *
 * <p>It models a node whose stream handler takes bytes without writing them anywhere (no credit is
 * returned) and never ends its own side of a stream, and which has no data-reduction cache.
 */
public final class WireOracle {
  static final int HEADER = 12;
  static final int HELLO_MAX = 560;
  static final int GOAWAY_PROTOCOL_ERROR = 1;
  static final int GOAWAY_VERSION = 2;
  static final int GOAWAY_FRAME_SIZE = 3;
  static final int GOAWAY_FLOW_CONTROL = 4;
  static final int GOAWAY_IDENTITY_MISMATCH = 9;
  static final int GOAWAY_UNKNOWN_PEER = 10;
  static final int GOAWAY_SITE_MISMATCH = 11;
  static final int RST_PROTOCOL_ERROR = 4;
  static final int RST_SHUTTING_DOWN = 9;
  static final int RST_REFUSED_STREAM = 10;
  private static final long MAX_WINDOW = 0x7fff_ffffL;

  /** What the node sends: {@code PING_ACK opaque}, {@code RST id code}, {@code GOAWAY code last}. */
  public record Answer(String kind, long a, long b) {
    @Override
    public String toString() {
      return kind + " " + a + " " + b;
    }
  }

  /** What the node knows of a stream the peer sends on: credit, and which byte ranges arrived (section 5.3). */
  private static final class Stream {
    long credit;
    long sendWindow;
    /** Every byte below it arrived. */
    long contiguous;
    /** Ranges that arrived beyond {@link #contiguous}: start → end. */
    final java.util.TreeMap<Long, Long> beyond = new java.util.TreeMap<>();
    /** The end the peer's END_STREAM put, or -1. */
    long end = -1;

    long received() {
      long n = contiguous;
      for (Map.Entry<Long, Long> r : beyond.entrySet()) {
        n += r.getValue() - r.getKey();
      }
      return n;
    }

    long highest() {
      return beyond.isEmpty() ? contiguous : beyond.lastEntry().getValue();
    }

    boolean overlaps(long from, long to) {
      if (from < contiguous) {
        return true;
      }
      for (Map.Entry<Long, Long> r : beyond.entrySet()) {
        if (r.getKey() < to && from < r.getValue()) {
          return true;
        }
      }
      return false;
    }

    void add(long from, long to) {
      beyond.put(from, to);
      Map.Entry<Long, Long> first;
      while ((first = beyond.firstEntry()) != null && first.getKey() == contiguous) {
        contiguous = first.getValue();
        beyond.pollFirstEntry();
      }
    }
  }

  private final String localName;
  private final Map<String, String> peers;
  private final int maxFrameSize;
  private final int localWindow;
  private final int maxStreams;
  private boolean decoderOnly;
  private String identity;
  private boolean streamDependent;
  private int frames;

  private byte[] pending = new byte[0];
  private boolean helloSeen;
  private boolean dead;
  private int errorCode = -1;
  private long peerWindow;
  /** This connection's number in its dialler's pool (its HELLO's). */
  private long connectionNumber;
  private long lastPeerId;
  private boolean goingAway;
  private final Map<Long, Stream> streams = new HashMap<>();
  private final ArrayDeque<Long> outstandingPings = new ArrayDeque<>();
  private final List<Answer> answers = new ArrayList<>();
  private final List<Long> accepted = new ArrayList<>();
  private final List<byte[]> acceptedDestinations = new ArrayList<>();

  /** The node {@code localName} (acceptor side, odd ids are the peer's) with these HELLO values, admitting {@code peers} (name → site). */
  public WireOracle(String localName, Map<String, String> peers, int maxFrameSize, int localWindow, int maxStreams) {
    this.localName = localName;
    this.peers = peers;
    this.maxFrameSize = maxFrameSize;
    this.localWindow = localWindow;
    this.maxStreams = maxStreams;
  }

  /**
   * Models the frame decoder alone: header and payload rules, no admission, streams or PINGs;
   * {@link #frames()} counts the frames it delivers.
   */
  public WireOracle decoderOnly() {
    decoderOnly = true;
    return this;
  }

  /**
   * True once an answer depended on a stream being still open (a frame for an accepted stream, a
   * GOAWAY or a refusal while streams were open): a real far node may have finished the stream
   * meanwhile (its connect refused), so such cases are not comparable on a live node.
   */
  public boolean streamDependent() {
    return streamDependent;
  }

  /** The peer's certificate names {@code identity} (TLS): its HELLO name must be that. */
  public WireOracle identity(String identity) {
    this.identity = identity;
    return this;
  }

  /** Frames decoded so far. */
  public int frames() {
    return frames;
  }

  /** The node sent a PING (keepalive): an ACK echoing it is legitimate. */
  public void pingSent(long opaque) {
    outstandingPings.addLast(opaque);
  }

  /** Feeds bytes from the peer; returns the answers they call for, in order. */
  public List<Answer> feed(byte[] bytes) {
    answers.clear();
    byte[] all = new byte[pending.length + bytes.length];
    System.arraycopy(pending, 0, all, 0, pending.length);
    System.arraycopy(bytes, 0, all, pending.length, bytes.length);
    ByteBuffer in = ByteBuffer.wrap(all);
    while (!dead && in.remaining() >= HEADER) {
      int start = in.position();
      long length = Integer.toUnsignedLong(in.getInt(start));
      int type = in.get(start + 4) & 0xff;
      int flags = in.get(start + 5) & 0xff;
      int reserved = in.getShort(start + 6) & 0xffff;
      long rawId = Integer.toUnsignedLong(in.getInt(start + 8));
      if (!header(length, type, flags, reserved, rawId)) {
        break;
      }
      if (in.remaining() < HEADER + length) {
        break;
      }
      ByteBuffer payload = ByteBuffer.wrap(all, start + HEADER, (int) length).slice();
      in.position(start + HEADER + (int) length);
      frame(type, flags, rawId, payload);
      if (errorCode < 0) {
        frames++;
      }
    }
    pending = dead ? new byte[0] : java.util.Arrays.copyOfRange(all, in.position(), all.length);
    return new ArrayList<>(answers);
  }

  /** True once the node has closed the connection (after a GOAWAY of its own, or the peer's GOAWAY with no stream left). */
  public boolean closed() {
    return dead;
  }

  /** The code of the GOAWAY the node sent, or -1. */
  public int errorCode() {
    return errorCode;
  }

  /** Bytes received that wait for the rest of their frame. */
  public int pendingBytes() {
    return pending.length;
  }

  /** True when bytes wait for the rest of a frame. */
  public boolean incomplete() {
    return !dead && pending.length > 0;
  }

  /** Ids of the streams the node accepted (its acceptor ran), in order. */
  public List<Long> accepted() {
    return accepted;
  }

  /** The destination address bytes of each accepted OPEN. */
  public List<byte[]> acceptedDestinations() {
    return acceptedDestinations;
  }

  private boolean fail(int code) {
    answers.add(new Answer("GOAWAY", code, lastPeerId));
    errorCode = code;
    dead = true;
    return false;
  }

  private boolean header(long length, int type, int flags, int reserved, long rawId) {
    if (reserved != 0 || (rawId & 0x8000_0000L) != 0 || type > 7) {
      return fail(GOAWAY_PROTOCOL_ERROR);
    }
    if (helloSeen == (type == 0)) {
      return fail(GOAWAY_PROTOCOL_ERROR); // HELLO first, and once
    }
    if (length > (helloSeen ? maxFrameSize : HELLO_MAX)) {
      return fail(GOAWAY_FRAME_SIZE);
    }
    boolean connectionLevel = type == 0 || type == 5 || type == 6 || type == 7;
    if (connectionLevel != (rawId == 0)) {
      return fail(GOAWAY_PROTOCOL_ERROR);
    }
    int allowed = type == 2 ? 0x7 : type == 3 ? 0x3 : type == 5 ? 0x1 : 0;
    if ((flags & ~allowed) != 0) {
      return fail(GOAWAY_PROTOCOL_ERROR);
    }
    if (type == 2 && (flags & 0x5) == 0x5) {
      return fail(GOAWAY_PROTOCOL_ERROR); // END_STREAM away from the stream's connection
    }
    if (type == 3 && flags == 0x3) {
      return fail(GOAWAY_PROTOCOL_ERROR); // GROW and RETURN together
    }
    long[] fixed = {22, 23, (flags & 0x4) != 0 ? 12 : 8, 4, 6, 8, 10, 12};
    boolean exact = type == 3 || type == 5;
    if (length < fixed[type] || (exact && length != fixed[type])) {
      return fail(GOAWAY_FRAME_SIZE);
    }
    if (type == 2 && (flags & 0x2) != 0 && length < fixed[2] + 16) {
      return fail(GOAWAY_FRAME_SIZE);
    }
    return true;
  }

  private void frame(int type, int flags, long id, ByteBuffer p) {
    switch (type) {
      case 0 -> hello(p);
      case 1 -> open(id, p);
      case 2 -> data(id, flags, p);
      case 3 -> windowUpdate(id, flags, p);
      case 4 -> rstStream(id, p);
      case 5 -> ping(flags, p);
      case 6 -> goAway(p);
      default -> {
        if (!decoderOnly) {
          fail(GOAWAY_PROTOCOL_ERROR); // REDUCTION to a node without a cache
        }
      }
    }
  }

  private void hello(ByteBuffer p) {
    if (p.getInt() != 0x5443504F) {
      fail(GOAWAY_PROTOCOL_ERROR);
      return;
    }
    if ((p.getShort() & 0xffff) != 2) {
      fail(GOAWAY_VERSION); // version 1 too: its DATA has no offsets
      return;
    }
    if (p.getShort() != 0) {
      fail(GOAWAY_PROTOCOL_ERROR);
      return;
    }
    long frame = Integer.toUnsignedLong(p.getInt());
    if (frame < 16384 || frame > 16777216) {
      fail(GOAWAY_PROTOCOL_ERROR);
      return;
    }
    long window = Integer.toUnsignedLong(p.getInt());
    if (window < 1 || window > MAX_WINDOW) {
      fail(GOAWAY_FLOW_CONTROL);
      return;
    }
    long streamsMax = Integer.toUnsignedLong(p.getInt());
    if (streamsMax < 1 || streamsMax > MAX_WINDOW) {
      fail(GOAWAY_PROTOCOL_ERROR);
      return;
    }
    if (p.remaining() < 12) {
      fail(GOAWAY_FRAME_SIZE); // session u64 and connection u32 missing
      return;
    }
    p.getLong();
    long number = Integer.toUnsignedLong(p.getInt());
    String name = string(p);
    String site = name == null ? null : string(p);
    if (site == null) {
      fail(GOAWAY_FRAME_SIZE);
      return;
    }
    if (p.remaining() >= 16) {
      long epoch = p.getLong();
      long capacity = p.getLong();
      // u64 values; a capacity of 2^63 or more is no memory a node has
      if (capacity < 0 || (epoch == 0) != (capacity == 0)) {
        fail(GOAWAY_PROTOCOL_ERROR);
        return;
      }
    }
    if (p.hasRemaining()) {
      fail(GOAWAY_FRAME_SIZE);
      return;
    }
    helloSeen = true;
    if (decoderOnly) {
      return;
    }
    if ((identity != null && !identity.equals(name)) || name.equals(localName)) {
      fail(GOAWAY_IDENTITY_MISMATCH);
    } else if (!peers.containsKey(name)) {
      fail(GOAWAY_UNKNOWN_PEER);
    } else if (!peers.get(name).equals(site)) {
      fail(GOAWAY_SITE_MISMATCH);
    } else {
      peerWindow = window;
      connectionNumber = number; // the only connection of its group: no other is up
    }
  }

  private static String string(ByteBuffer p) {
    if (!p.hasRemaining()) {
      return null;
    }
    int len = p.get() & 0xff;
    if (len > p.remaining()) {
      return null;
    }
    byte[] b = new byte[len];
    p.get(b);
    return new String(b, StandardCharsets.UTF_8);
  }

  private void open(long id, ByteBuffer p) {
    p.getLong();
    int family = p.get() & 0xff;
    int addressLength = family == 4 ? 4 : family == 6 ? 16 : -1;
    if (addressLength < 0) {
      fail(GOAWAY_PROTOCOL_ERROR);
      return;
    }
    if (p.capacity() < 8 + 1 + 2 * (addressLength + 2) + 2) {
      fail(GOAWAY_FRAME_SIZE);
      return;
    }
    byte[] source = new byte[addressLength];
    p.get(source);
    p.getShort();
    if (mapped(source)) {
      fail(GOAWAY_PROTOCOL_ERROR);
      return;
    }
    byte[] destination = new byte[addressLength];
    p.get(destination);
    p.getShort();
    if (mapped(destination)) {
      fail(GOAWAY_PROTOCOL_ERROR);
      return;
    }
    int openFlags = p.getShort() & 0xffff;
    if ((openFlags & ~0x0f01) != 0 || ((openFlags >> 8) & 3) == 3) {
      fail(GOAWAY_PROTOCOL_ERROR);
      return;
    }
    if ((openFlags & 0x0800) != 0 && !serverReuseBlock(p)) {
      return;
    }
    int first = p.remaining();
    if (decoderOnly) {
      return;
    }
    if (id % 2 == 0 || id <= lastPeerId) {
      fail(GOAWAY_PROTOCOL_ERROR); // the peer's parity (odd: it dialled), increasing
      return;
    }
    lastPeerId = id;
    if (first > localWindow) {
      fail(GOAWAY_FLOW_CONTROL);
      return;
    }
    streamDependent |= !streams.isEmpty();
    if (goingAway) {
      answers.add(new Answer("RST", id, RST_SHUTTING_DOWN));
      return;
    }
    if (streams.size() >= maxStreams) {
      answers.add(new Answer("RST", id, RST_REFUSED_STREAM));
      return;
    }
    Stream s = new Stream();
    s.credit = localWindow - first;
    s.sendWindow = peerWindow;
    s.contiguous = first;
    streams.put(id, s);
    accepted.add(id);
    acceptedDestinations.add(destination);
  }

  /** An IPv4-mapped IPv6 address, {@code ::ffff:0:0/96} (section 5.2: PROTOCOL_ERROR in an OPEN). */
  private static boolean mapped(byte[] address) {
    if (address.length != 16) {
      return false;
    }
    for (int i = 0; i < 10; i++) {
      if (address[i] != 0) {
        return false;
      }
    }
    return address[10] == (byte) 0xff && address[11] == (byte) 0xff;
  }

  /**
   * The server-reuse block after the open-flags (bit 11), read as section 5.2 gives it: false after
   * failing the connection. A block of another version is skipped.
   */
  private boolean serverReuseBlock(ByteBuffer p) {
    if (p.remaining() < 2) {
      fail(GOAWAY_FRAME_SIZE);
      return false;
    }
    int version = p.get() & 0xff;
    int length = p.get() & 0xff;
    if (length > p.remaining()) {
      fail(GOAWAY_FRAME_SIZE);
      return false;
    }
    if (length > 64 || (version == 1 && length != 17)) {
      fail(GOAWAY_PROTOCOL_ERROR);
      return false;
    }
    if (version != 1) {
      p.position(p.position() + length);
      return true;
    }
    int maskBits = p.get() & 0xff;
    long maxSize = p.getInt() & 0xffff_ffffL;
    long maxAge = p.getInt() & 0xffff_ffffL;
    long maxReuse = p.getInt() & 0xffff_ffffL;
    long idle = p.getInt() & 0xffff_ffffL;
    if (maskBits > 32 || maxSize < 1 || maxSize > 1_000_000 || maxAge < 1000 || maxReuse < 1 || maxReuse > 1_000_000_000 || idle < 100) {
      fail(GOAWAY_PROTOCOL_ERROR);
      return false;
    }
    return true;
  }

  /** The open stream {@code id}, or null: ignored when it was opened before, a connection error when never. */
  private Stream stream(long id) {
    Stream s = streams.get(id);
    streamDependent |= s != null || (id % 2 == 1 && id <= lastPeerId);
    if (s == null && (id % 2 == 0 || id > lastPeerId)) {
      fail(GOAWAY_PROTOCOL_ERROR);
    }
    return s;
  }

  private void data(long id, int flags, ByteBuffer p) {
    long offset = p.getLong();
    if (offset < 0) {
      fail(GOAWAY_FLOW_CONTROL); // 2^63 or more: beyond any credit
      return;
    }
    long home = -1;
    if ((flags & 0x4) != 0) {
      home = Integer.toUnsignedLong(p.getInt());
      if (home > MAX_WINDOW) {
        fail(GOAWAY_PROTOCOL_ERROR);
        return;
      }
    }
    if (decoderOnly) {
      return;
    }
    if (home == connectionNumber) {
      fail(GOAWAY_PROTOCOL_ERROR); // names this connection as another
      return;
    }
    if (home >= 0) {
      return; // the home is no connection of the group (this one is alone): ignored
    }
    Stream s = stream(id);
    if (s == null) {
      return;
    }
    long n = (flags & 0x2) != 0 ? Integer.toUnsignedLong(p.getInt(p.position() + 4)) : p.remaining();
    long granted = s.received() + s.credit;
    if (n > s.credit || offset > granted - n) { // offset + n may not fit in 63 bits
      fail(GOAWAY_FLOW_CONTROL);
      return;
    }
    s.credit -= n;
    boolean endStream = (flags & 0x1) != 0;
    long to = offset + n;
    if ((s.end >= 0 && (endStream || n == 0 || to > s.end)) || (endStream && to < s.highest())) {
      answers.add(new Answer("RST", id, RST_PROTOCOL_ERROR)); // after, or before, the end
      remove(id);
      return;
    }
    if (n > 0 && s.overlaps(offset, to)) {
      fail(GOAWAY_PROTOCOL_ERROR);
      return;
    }
    if (endStream) {
      s.end = to;
    }
    if (n > 0) {
      s.add(offset, to);
    }
  }

  private void windowUpdate(long id, int flags, ByteBuffer p) {
    long increment = Integer.toUnsignedLong(p.getInt());
    if (increment == 0) {
      fail(GOAWAY_PROTOCOL_ERROR);
      return;
    }
    if (increment > MAX_WINDOW) {
      fail(GOAWAY_FLOW_CONTROL);
      return;
    }
    Stream s = decoderOnly ? null : stream(id);
    if (s != null && (flags & 0x2) != 0) {
      // RETURN: this node's windows never grew (it writes nothing to a leg), so any credit given
      // back would take the window below its initial size
      fail(GOAWAY_FLOW_CONTROL);
    } else if (s != null) {
      s.sendWindow += increment;
      if (s.sendWindow > MAX_WINDOW) {
        fail(GOAWAY_FLOW_CONTROL);
      }
    }
  }

  private void rstStream(long id, ByteBuffer p) {
    p.getInt();
    if ((p.getShort() & 0xffff) != p.remaining()) {
      fail(GOAWAY_FRAME_SIZE);
      return;
    }
    if (!decoderOnly && stream(id) != null) {
      remove(id);
    }
  }

  private void ping(int flags, ByteBuffer p) {
    long opaque = p.getLong();
    if (decoderOnly) {
      return;
    }
    if ((flags & 0x1) == 0) {
      answers.add(new Answer("PING_ACK", opaque, 0));
    } else if (outstandingPings.contains(opaque)) {
      while (outstandingPings.pollFirst() != opaque) {
        // answered too, by this later answer
      }
    } else {
      fail(GOAWAY_PROTOCOL_ERROR);
    }
  }

  private void goAway(ByteBuffer p) {
    p.getInt();
    p.getInt();
    if ((p.getShort() & 0xffff) != p.remaining()) {
      fail(GOAWAY_FRAME_SIZE);
      return;
    }
    if (!decoderOnly) {
      streamDependent |= !streams.isEmpty();
      goingAway = true;
      closeIfGoneAway();
    }
  }

  private void remove(long id) {
    streams.remove(id);
    closeIfGoneAway();
  }

  private void closeIfGoneAway() {
    if (goingAway && streams.isEmpty()) {
      dead = true; // closed quietly: the peer asked for it
    }
  }
}
