package io.tcpopt.servicenode;

import io.tcpopt.common.config.ConfigException;
import io.tcpopt.common.config.ConfigTree;
import io.tcpopt.common.policy.Cidr;
import io.tcpopt.common.tls.TlsFiles;
import io.tcpopt.reduction.store.StoreSettings;
import io.tcpopt.servicenode.admission.BufferBudget;
import io.tcpopt.servicenode.admission.MemoryLimits;
import io.tcpopt.servicenode.reuse.PeerReuse;
import io.tcpopt.servicenode.session.MuxStream;
import io.tcpopt.servicenode.session.SessionSettings;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The {@code service-node} section of a node config, validated. Every mistake is one {@link
 * ConfigException} naming the field. Defaults are written beside each setting in {@link #from}.
 *
 * @param dataReduction the chunk cache of data reduction ({@code data-reduction:}, see {@link
 *     StoreSettings#from}); used by flows whose policy asks for it
 * @param clientAddress which peer sites connect to servers from the client's own address
 * @param serves the destinations this node's site serves ({@code serves:}, canonical prefixes): the
 *     only ones a stream a peer opens is connected to ({@link
 *     io.tcpopt.servicenode.trust.DestinationGuard}); empty serves none
 * @param peerHttpReuse what this node honours of the HTTP server-reuse profiles peers' OPENs carry
 *     ({@code peer-http-reuse:})
 */
public record ServiceNodeConfig(String nodeName, String site, Wan wan, List<Peer> peers, Interception interception, Lan lan, Flows flows,
    StoreSettings dataReduction, ClientAddress clientAddress, List<String> serves, PeerReuse peerHttpReuse) {

  /**
   * The inter-node side. {@code tls} is null exactly when {@code plaintext}.
   *
   * @param handshakeTimeout how long a WAN connection may take to finish TLS + HELLO
   * @param maxPendingHandshakes accepted WAN connections that may be in TLS + HELLO at once; more are reset at once
   * @param streamWindow what a stream's receive window may grow to ({@code stream-window})
   * @param initialStreamWindow where it starts, announced in the HELLO ({@code initial-stream-window})
   * @param expressConnection whether each dialled peer gets one more connection, for interactive streams' DATA
   *     ({@code express-connection}, default true: in issue 9's 9.3, a 1 KB echo beside bulk at 100 ms
   *     RTT, it cut the p99 from 242-270 ms to 147-148 at dd118ec and from 110.8 to 108.1 at 00521f2,
   *     while bulk goodput, fairness and the link cap stayed within the noise; docs/benchmarks.md)
   */
  public record Wan(
      InetSocketAddress listen,
      TlsFiles tls,
      boolean plaintext,
      int connections,
      Link link,
      String congestionControl,
      Duration keepalive,
      int streamWindow,
      int maxFrameSize,
      int maxStreams,
      Duration openCoalescing,
      int streamsPerConnection,
      Duration handshakeTimeout,
      int maxPendingHandshakes,
      int initialStreamWindow,
      boolean expressConnection) {}

  /** The WAN link: sizes buffers and the default stream window, caps pacing when {@code pacing}. */
  public record Link(long bandwidthBitsPerSecond, Duration rtt, boolean pacing) {
    /** Bandwidth-delay product in bytes. */
    public long bdpBytes() {
      return (long) (bandwidthBitsPerSecond / 8.0 * rtt.toNanos() / 1e9);
    }
  }

  /**
   * A peer service node: the only nodes (with those registered by a controller) that may hold a
   * session with this one, named as in their certificates. {@code site} is the peer's site whatever
   * its HELLO claims; {@code prefixes} are the destinations its site serves. {@code address} is
   * null for a peer this node does not dial but accepts sessions from.
   */
  public record Peer(String name, String site, InetSocketAddress address, List<String> prefixes) {
    public boolean dialled() {
      return address != null;
    }
  }

  /** {@code transparent} and {@code handoff} are null when not configured. */
  public record Interception(Transparent transparent, List<Listener> listeners, Handoff handoff) {
    public Interception(Transparent transparent, List<Listener> listeners) {
      this(transparent, listeners, null);
    }
  }

  /**
   * External mode: where controllers hand intercepted flows off behind a PROXY protocol v2 header,
   * and which controller addresses may (prefixes; default loopback only).
   */
  public record Handoff(InetSocketAddress listen, List<String> allowed) {}

  public record Transparent(int port, boolean installRules, List<String> sources, List<String> destinations) {}

  /** {@code site} is null when the target's site is found from the peers' prefixes. */
  public record Listener(InetSocketAddress listen, InetSocketAddress target, String site) {}

  /** Local legs: timeouts and per-leg write buffer watermarks (proxy buffer high/low). */
  public record Lan(Duration connectTimeout, Duration idleTimeout, int bufferHigh, int bufferLow) {}

  /**
   * Flow limits (docs/reliability.md, "Bounded everything").
   *
   * @param maxActive every flow the node holds at once, optimized and pass-through
   * @param maxPerClient flows one client address may have at once
   * @param bufferBudget bytes of flow buffers the node may hold: each flow reserves its worst case
   *     ({@link BufferBudget})
   */
  public record Flows(int maxActive, int closedHistory, int maxPerClient, long bufferBudget) {}

  /** The smallest buffer budget: a handful of optimized flows at the smallest window. */
  static final long MIN_BUDGET = 4L << 20;
  static final long MIN_WINDOW = 64 * 1024;
  /** Where a stream's window starts (the HELLO's initial-stream-window) unless configured: it grows with the flow. */
  static final long DEFAULT_INITIAL_WINDOW = 64 * 1024;
  static final long MIN_INITIAL_WINDOW = 16 * 1024;
  /** A derived stream window never exceeds the budget's share for this many optimized flows. */
  static final int MIN_FULL_WINDOW_FLOWS = 8;
  /**
   * The default stream window in bandwidth-delay products. A stream's credit comes back only once
   * its bytes reached the receiving leg in order, so a hole in the WAN connection (a lost packet:
   * two round trips until the bytes behind it are delivered and granted, one more per lost
   * retransmission) holds every stream's credit meanwhile; with a window of one BDP the four
   * streams of the 300 ms / 2% row ran out of credit with 25 MB unacknowledged and the DC sat idle
   * for a third of a second at a time (issue 9). The window only grows while a flow uses it.
   */
  static final int DEFAULT_WINDOW_BDPS = 4;

  /**
   * Client-address transparency ({@code client-address:}), per peer site; {@value #ANY_SITE} names
   * every site.
   *
   * @param request sites whose nodes this node asks to connect to the server from the client's own
   *     address (the OPEN frame's transparent flag) for the flows it intercepts
   * @param allow sites whose asks this node honours as the far node; the servers' answers to
   *     clients' addresses must be routed back through this node, whose return path it installs
   */
  public record ClientAddress(List<String> request, List<String> allow) {
    public static final String ANY_SITE = "*";

    public ClientAddress {
      request = List.copyOf(request);
      allow = List.copyOf(allow);
    }

    /** Whether flows to {@code site} ask for the client's address. */
    public boolean requests(String site) {
      return request.contains(ANY_SITE) || request.contains(site);
    }

    /** Whether this node connects from the client's address for a flow from {@code site} that asks for it. */
    public boolean allows(String site) {
      return allow.contains(ANY_SITE) || allow.contains(site);
    }
  }

  public ServiceNodeConfig {
    peers = List.copyOf(peers);
    serves = List.copyOf(serves);
  }

  /** Reads and validates the {@code service-node} section of node {@code nodeName} at {@code site}. */
  public static ServiceNodeConfig from(ConfigTree section, String nodeName, String site) {
    if (nodeName == null || nodeName.isBlank() || nodeName.getBytes(java.nio.charset.StandardCharsets.UTF_8).length > 255) {
      throw new ConfigException("node.name", "must be 1 to 255 bytes");
    }
    if (site == null || site.isBlank() || site.getBytes(java.nio.charset.StandardCharsets.UTF_8).length > 255) {
      throw new ConfigException("node.site", "must be 1 to 255 bytes");
    }
    section.requireOnly("wan", "peers", "serves", "interception", "lan", "flows", "data-reduction", "client-address", "peer-http-reuse");
    ConfigTree w = section.get("wan");
    List<Peer> peers = peers(section);
    Interception interception = interception(section.section("interception"));
    Lan lan = lan(section.section("lan"));
    Flows flows = flows(section.section("flows"), MemoryLimits.current());
    Wan wan = wan(w, flows);
    StoreSettings dataReduction = StoreSettings.from(section.section("data-reduction")); // default 256MiB memory, no disk
    ClientAddress clientAddress = clientAddress(section.section("client-address"), interception.transparent() != null);
    List<String> serves = prefixes(section, "serves"); // default: none (peers' streams are refused)
    PeerReuse peerHttpReuse = peerHttpReuse(section.section("peer-http-reuse"));
    return new ServiceNodeConfig(nodeName, site, wan, peers, interception, lan, flows, dataReduction, clientAddress, serves, peerHttpReuse);
  }

  private static PeerReuse peerHttpReuse(ConfigTree r) {
    r.requireOnly("allow", "max-size", "max-age", "max-reuse", "idle-timeout", "max-profiles");
    PeerReuse d = PeerReuse.DEFAULTS;
    boolean allow = r.bool("allow", d.allow()); // default true: a peer's OPEN may ask for reuse
    int maxSize = r.integer("max-size", d.maxSize(), 1, 1_000_000); // default 10000
    int maxReuse = r.integer("max-reuse", d.maxReuse(), 1, 1_000_000_000); // default 1000000
    int maxProfiles = r.integer("max-profiles", d.maxProfiles(), 1, 10_000); // default 64
    Duration maxAge = r.duration("max-age", d.maxAge()); // default 1d
    if (maxAge.compareTo(Duration.ofSeconds(1)) < 0) {
      throw new ConfigException(r.path() + ".max-age", "must be at least 1s");
    }
    Duration idle = r.duration("idle-timeout", d.maxIdleTimeout()); // default 60s
    if (idle.compareTo(Duration.ofMillis(100)) < 0) {
      throw new ConfigException(r.path() + ".idle-timeout", "must be at least 100ms");
    }
    return new PeerReuse(allow, maxSize, maxAge, maxReuse, idle, maxProfiles);
  }

  private static ClientAddress clientAddress(ConfigTree c, boolean transparentMode) {
    c.requireOnly("request", "allow");
    // default request: every site in transparent mode (the client's address is what it intercepted), none otherwise
    List<String> request = c.has("request") ? sites(c, "request") : transparentMode ? List.of(ClientAddress.ANY_SITE) : List.of();
    return new ClientAddress(request, c.has("allow") ? sites(c, "allow") : List.of()); // default allow: none
  }

  private static List<String> sites(ConfigTree c, String key) {
    List<String> out = new ArrayList<>();
    for (ConfigTree item : c.list(key)) {
      String site = item.asString().trim();
      if (site.isEmpty() || site.getBytes(java.nio.charset.StandardCharsets.UTF_8).length > 255) {
        throw item.error("expected a site name (1 to 255 bytes) or \"" + ClientAddress.ANY_SITE + "\"");
      }
      out.add(site);
    }
    return List.copyOf(out);
  }

  private static Flows flows(ConfigTree f, MemoryLimits memory) {
    f.requireOnly("max-active", "closed-history", "max-per-client", "buffer-budget");
    int maxActive = f.integer("max-active", 10_000, 1, 10_000_000); // default 10000
    int closedHistory = f.integer("closed-history", 1_000, 0, 1_000_000); // default 1000
    int maxPerClient = f.integer("max-per-client", Math.min(maxActive, 1_000), 1, maxActive); // default min(1000, max-active)
    long budget = memory.defaultBudget(); // default (auto) half of the memory flow buffers come from
    if (f.has("buffer-budget") && !"auto".equals(String.valueOf(f.get("buffer-budget").raw()))) {
      budget = f.bytes("buffer-budget", budget);
      if (budget > memory.maxBudget()) {
        throw new ConfigException(f.path() + ".buffer-budget", MemoryLimits.mib(budget) + " does not fit this JVM: at most "
            + (int) (MemoryLimits.MAX_BUDGET_SHARE * 100) + "% of the " + memory.describe() + ", i.e. " + MemoryLimits.mib(memory.maxBudget())
            + "; lower it or give the JVM more memory (JAVA_OPTS)");
      }
    }
    if (budget < MIN_BUDGET) {
      throw new ConfigException(f.path() + ".buffer-budget", "must be at least " + MemoryLimits.mib(MIN_BUDGET) + ", got " + budget
          + (f.has("buffer-budget") ? "" : " (auto: half of the " + memory.describe() + ")"));
    }
    return new Flows(maxActive, closedHistory, maxPerClient, budget);
  }

  /**
   * The stream receive window: {@code wan.stream-window} when set, else {@value
   * #DEFAULT_WINDOW_BDPS} times the link's bandwidth-delay product (at least 1 MiB) — either way capped so that the budget holds at least {@value
   * #MIN_FULL_WINDOW_FLOWS} optimized flows whose windows all grew to the full. An explicit window too large for
   * that is an error naming both settings.
   */
  private static long streamWindow(ConfigTree w, Link link, Flows flows) {
    long perFlowBudget = BufferBudget.optimizedShare(flows.bufferBudget()) / MIN_FULL_WINDOW_FLOWS - BufferBudget.optimizedFlowBytes(MuxStream.SEND_QUEUE_LIMIT);
    if (w.has("stream-window")) {
      long window = w.bytes("stream-window", 0);
      if (window < MIN_WINDOW || window > (1L << 30)) {
        throw new ConfigException(w.path() + ".stream-window", "must be between 64KiB and 1GiB, got " + window);
      }
      if (window > perFlowBudget) {
        throw new ConfigException(w.path() + ".stream-window", MemoryLimits.mib(window) + " leaves room for fewer than " + MIN_FULL_WINDOW_FLOWS
            + " optimized flows in service-node.flows.buffer-budget " + MemoryLimits.mib(flows.bufferBudget()) + " (they may fill 75% of it, each "
            + "its window grown to the full, its send queue and a leg read); lower the window or raise the budget");
      }
      return window;
    }
    long bdp = Math.min(1L << 30, Math.max(1L << 20, DEFAULT_WINDOW_BDPS * link.bdpBytes())); // default max(1MiB, 4 x bandwidth x rtt)
    return Math.max(MIN_WINDOW, Math.min(bdp, perFlowBudget));
  }

  private static Wan wan(ConfigTree w, Flows flows) {
    w.requireOnly("listen", "tls", "plaintext", "connections", "link", "congestion-control", "keepalive", "stream-window", "initial-stream-window",
        "max-frame-size", "max-streams", "open-coalescing", "streams-per-connection", "handshake-timeout", "max-pending-handshakes",
        "express-connection");
    InetSocketAddress listen = w.socketAddress("listen");
    boolean plaintext = w.bool("plaintext", false); // default false: mutual TLS
    TlsFiles tls = null;
    if (!plaintext) {
      if (!w.has("tls")) {
        throw new ConfigException(w.path() + ".tls", "is required (mutual TLS), unless plaintext: true is set explicitly");
      }
      tls = TlsFiles.from(w.get("tls"));
    } else if (w.has("tls")) {
      throw new ConfigException(w.path() + ".plaintext", "is true but tls is configured too: choose one");
    }
    int connections = w.integer("connections", 1, 1, 64); // default 1: one pipe per peer, its streams under one scheduler
    // default true: one more connection per dialled peer, for interactive streams' DATA
    boolean express = w.bool("express-connection", true);
    ConfigTree l = w.section("link").requireOnly("bandwidth", "rtt", "pacing");
    long bandwidth = l.bitsPerSecond("bandwidth", 1_000_000_000L); // default 1Gbit
    if (bandwidth < 1_000) {
      throw new ConfigException(l.path() + ".bandwidth", "must be at least 1kbit");
    }
    Duration rtt = l.duration("rtt", Duration.ofMillis(50)); // default 50ms
    if (rtt.isNegative() || rtt.compareTo(Duration.ofSeconds(10)) > 0) {
      throw new ConfigException(l.path() + ".rtt", "must be between 0 and 10s");
    }
    Link link = new Link(bandwidth, rtt, l.bool("pacing", false)); // default: no pacing cap
    String cc = w.string("congestion-control", "bbr"); // default bbr
    if (!cc.matches("[a-z0-9_]{1,15}")) {
      throw new ConfigException(w.path() + ".congestion-control", "expected a kernel congestion control name such as bbr or cubic, got \"" + cc + "\"");
    }
    Duration keepalive = w.duration("keepalive", Duration.ofSeconds(5)); // default 5s
    if (keepalive.compareTo(Duration.ofMillis(100)) < 0 || keepalive.compareTo(Duration.ofMinutes(10)) > 0) {
      throw new ConfigException(w.path() + ".keepalive", "must be between 100ms and 10m");
    }
    long window = streamWindow(w, link, flows); // default max(1MiB, 4 x bandwidth x rtt), within the buffer budget
    long initialWindow = w.bytes("initial-stream-window", Math.min(DEFAULT_INITIAL_WINDOW, window)); // default 64KiB: windows grow from it
    if (initialWindow < MIN_INITIAL_WINDOW || initialWindow > window) {
      throw new ConfigException(w.path() + ".initial-stream-window", "must be between 16KiB and stream-window (" + window + "), got " + initialWindow);
    }
    long maxFrame = w.bytes("max-frame-size", 64 * 1024); // default 64KiB
    if (maxFrame < 16 * 1024 || maxFrame > 16 * 1024 * 1024) {
      throw new ConfigException(w.path() + ".max-frame-size", "must be between 16KiB and 16MiB, got " + maxFrame);
    }
    int maxStreams = w.integer("max-streams", 4096, 1, 1_000_000); // default 4096
    Duration coalescing = w.duration("open-coalescing", Duration.ofMillis(2)); // default 2ms
    if (coalescing.compareTo(Duration.ofMillis(100)) > 0) {
      throw new ConfigException(w.path() + ".open-coalescing", "must be at most 100ms");
    }
    // default 1,000,000,000: a connection retires (GOAWAY, replaced) before its 2^30 stream ids run out
    int streamsPerConnection = w.integer("streams-per-connection", SessionSettings.DEFAULT_STREAMS_PER_CONNECTION, 1,
        SessionSettings.DEFAULT_STREAMS_PER_CONNECTION);
    Duration handshakeTimeout = w.duration("handshake-timeout", Duration.ofSeconds(10)); // default 10s
    if (handshakeTimeout.compareTo(Duration.ofMillis(100)) < 0 || handshakeTimeout.compareTo(Duration.ofMinutes(2)) > 0) {
      throw new ConfigException(w.path() + ".handshake-timeout", "must be between 100ms and 2m");
    }
    int maxPending = w.integer("max-pending-handshakes", 1024, 1, 1_000_000); // default 1024
    return new Wan(listen, tls, plaintext, connections, link, cc, keepalive, (int) window, (int) maxFrame, maxStreams, coalescing,
        streamsPerConnection, handshakeTimeout, maxPending, (int) initialWindow, express);
  }

  private static List<Peer> peers(ConfigTree section) {
    List<Peer> out = new ArrayList<>();
    Set<String> names = new HashSet<>();
    for (ConfigTree p : section.list("peers")) {
      p.requireOnly("name", "site", "address", "prefixes");
      String name = p.string("name");
      if (!names.add(name)) {
        throw new ConfigException(p.path() + ".name", "duplicate peer name \"" + name + "\"");
      }
      List<String> prefixes = new ArrayList<>();
      for (ConfigTree item : p.list("prefixes")) {
        prefixes.add(prefix(item));
      }
      InetSocketAddress address = p.has("address") ? p.socketAddress("address") : null; // default: not dialled, accepted only
      out.add(new Peer(name, p.string("site"), address, List.copyOf(prefixes)));
    }
    return out;
  }

  private static Interception interception(ConfigTree i) {
    i.requireOnly("transparent", "listeners", "handoff");
    Transparent transparent = null;
    if (i.has("transparent")) {
      ConfigTree t = i.get("transparent").requireOnly("port", "install-rules", "sources", "destinations");
      transparent = new Transparent((int) t.get("port").asLong(1, 65535), t.bool("install-rules", true), // default true
          prefixes(t, "sources"), prefixes(t, "destinations"));
    }
    List<Listener> listeners = new ArrayList<>();
    for (ConfigTree l : i.list("listeners")) {
      l.requireOnly("listen", "target", "site");
      InetSocketAddress target = l.socketAddress("target");
      if (target.getPort() == 0) {
        throw new ConfigException(l.path() + ".target", "needs a port other than 0");
      }
      listeners.add(new Listener(l.socketAddress("listen"), target, l.has("site") ? l.string("site") : null));
    }
    Handoff handoff = null;
    if (i.has("handoff")) {
      ConfigTree h = i.get("handoff").requireOnly("listen", "allowed");
      List<String> allowed = h.has("allowed") ? prefixes(h, "allowed") : List.of("127.0.0.0/8", "::1/128");
      if (allowed.isEmpty()) {
        throw new ConfigException(h.path() + ".allowed", "must name at least one controller address or prefix");
      }
      handoff = new Handoff(h.socketAddress("listen"), allowed);
    }
    return new Interception(transparent, List.copyOf(listeners), handoff);
  }

  private static List<String> prefixes(ConfigTree t, String key) {
    List<String> out = new ArrayList<>();
    for (ConfigTree item : t.list(key)) {
      out.add(prefix(item));
    }
    return List.copyOf(out);
  }

  /** A prefix in canonical form ({@link Cidr}: literals only, host bits zero). */
  private static String prefix(ConfigTree item) {
    try {
      return Cidr.parse(item.asString()).toString();
    } catch (IllegalArgumentException e) {
      throw item.error(e.getMessage());
    }
  }

  private static Lan lan(ConfigTree l) {
    l.requireOnly("connect-timeout", "idle-timeout", "proxy-buffer-high", "proxy-buffer-low");
    Duration connect = l.duration("connect-timeout", Duration.ofSeconds(10)); // default 10s
    if (connect.toMillis() < 1 || connect.compareTo(Duration.ofMinutes(5)) > 0) {
      throw new ConfigException(l.path() + ".connect-timeout", "must be between 1ms and 5m");
    }
    Duration idle = l.duration("idle-timeout", Duration.ofHours(1)); // default 1h
    if (idle.toMillis() < 1) {
      throw new ConfigException(l.path() + ".idle-timeout", "must be positive");
    }
    long high = l.bytes("proxy-buffer-high", 256 * 1024); // default 256KiB
    long low = l.bytes("proxy-buffer-low", 64 * 1024); // default 64KiB
    if (high < 1024 || high > (1L << 30)) {
      throw new ConfigException(l.path() + ".proxy-buffer-high", "must be between 1KiB and 1GiB");
    }
    if (low < 0 || low > high) {
      throw new ConfigException(l.path() + ".proxy-buffer-low", "must be between 0 and proxy-buffer-high");
    }
    return new Lan(connect, idle, (int) high, (int) low);
  }
}
