package io.tcpopt.servicenode;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.handler.ssl.SslContext;
import io.netty.util.concurrent.GlobalEventExecutor;
import io.tcpopt.common.policy.Action;
import io.tcpopt.common.policy.Cidr;
import io.tcpopt.common.policy.PolicyDocument;
import io.tcpopt.common.policy.Sequence;
import io.tcpopt.common.profile.LegProfiles;
import io.tcpopt.common.transport.NettyTransport;
import io.tcpopt.servicenode.admission.Admission;
import io.tcpopt.servicenode.admission.BufferBudget;
import io.tcpopt.servicenode.flow.FlowTable;
import io.tcpopt.servicenode.memory.IdleMemoryReturn;
import io.tcpopt.servicenode.flow.FlowTableSnapshot;
import io.tcpopt.servicenode.intercept.HandoffListener;
import io.tcpopt.servicenode.intercept.InterceptListener;
import io.tcpopt.servicenode.intercept.transparent.TproxyException;
import io.tcpopt.servicenode.intercept.transparent.TproxyRules;
import io.tcpopt.servicenode.leg.LegOptions;
import io.tcpopt.servicenode.reduction.WanReduction;
import io.tcpopt.reduction.ReductionSettings;
import io.tcpopt.servicenode.session.PeerSessionPool;
import io.tcpopt.servicenode.session.PendingHandshakes;
import io.tcpopt.servicenode.session.SessionListener;
import io.tcpopt.servicenode.session.SessionRegistry;
import io.tcpopt.servicenode.session.SessionSettings;
import io.tcpopt.servicenode.session.StreamMultiplexer;
import io.tcpopt.servicenode.session.WanChannelInitializer;
import io.tcpopt.servicenode.session.WanSockets.WanStats;
import io.tcpopt.servicenode.session.WanSockets;
import io.tcpopt.servicenode.tls.SslContextCache;
import io.tcpopt.servicenode.trust.DestinationGuard;
import io.tcpopt.servicenode.trust.HostAddresses;
import io.tcpopt.servicenode.trust.PeerAuthority;
import io.tcpopt.servicenode.trust.TrustedPeer;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A running service node, its lifecycle: the event loop groups, the WAN listener accepting peer
 * sessions, the pools dialling the configured peers, the intercepting listeners, the flow table,
 * and stopping all of it. What happens to each flow (the verdict of the current {@link
 * FlowDecider}, fail-open, admission, the streams peers open) is the {@link FlowRouter}'s.
 */
public final class ServiceNode implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(ServiceNode.class);
  /** A controller's handoff connection must deliver its PROXY v2 header within this. */
  private static final Duration HANDOFF_HEADER_TIMEOUT = Duration.ofSeconds(5);
  /** How often this host's interface addresses are read again (the destination guard refuses them). */
  private static final Duration HOST_ADDRESSES_REFRESH = Duration.ofSeconds(5);

  private final ServiceNodeConfig config;
  private final MeterRegistry registry;
  private volatile FlowDecider decider;
  private final FlowTable flows;
  private final SessionRegistry sessions;
  private final LegOptions legOptions;
  private final FlowRouter router;
  private final Admission admission;
  private final ProfileServices profileServices;
  private final WanSockets wanSockets;
  private final SessionSettings sessionSettings;
  private final PeerAuthority authority;
  private final HostAddresses hostAddresses;
  private final DestinationGuard destinations;
  private io.netty.util.concurrent.ScheduledFuture<?> hostAddressesRefresh;
  private io.netty.util.concurrent.ScheduledFuture<?> memoryReturn;
  private final WanReduction reduction;
  private final Map<String, AtomicInteger> upByPeer = new ConcurrentHashMap<>();
  private final EventLoopGroup boss;
  private final EventLoopGroup workers;
  private final List<PeerSessionPool> pools = new ArrayList<>();
  private final List<InterceptListener> listeners = new ArrayList<>();
  private HandoffListener handoff;
  private final List<TproxyRules> rules = new ArrayList<>();
  private Channel wanServer;
  private volatile boolean closed;

  private ServiceNode(ServiceNodeConfig config, FlowDecider decider, MeterRegistry registry, ReductionSettings reductionSettings) {
    this.config = config;
    this.registry = registry;
    this.decider = decider;
    this.flows = new FlowTable(config.flows().closedHistory(), registry);
    this.sessions = new SessionRegistry(new SessionMetrics());
    List<TrustedPeer> trusted = new ArrayList<>();
    for (ServiceNodeConfig.Peer p : config.peers()) {
      trusted.add(new TrustedPeer(p.name(), p.site()));
    }
    this.authority = new PeerAuthority(config.nodeName(), trusted, registry);
    this.hostAddresses = HostAddresses.ofHost();
    this.destinations = new DestinationGuard(config.serves(), hostAddresses, registry);
    ServiceNodeConfig.Lan lan = config.lan();
    this.legOptions = new LegOptions(lan.connectTimeout(), lan.idleTimeout(), lan.bufferLow(), lan.bufferHigh(), config.wan().openCoalescing(),
        new DefaultChannelGroup("legs", GlobalEventExecutor.INSTANCE));
    this.wanSockets = WanSockets.shallow(WanTuning.forConfig(config.wan()));
    this.reduction = WanReduction.open(reductionSettings);
    this.sessionSettings = new SessionSettings(config.nodeName(), config.site(), config.wan().maxFrameSize(), config.wan().initialStreamWindow(),
        config.wan().maxStreams(), config.wan().keepalive(), config.wan().handshakeTimeout(), reduction, config.wan().streamsPerConnection(),
        config.wan().streamWindow());
    this.profileServices = ProfileServices.create(legOptions, config.peerHttpReuse(), registry);
    ServiceNodeConfig.Flows limits = config.flows();
    this.admission = new Admission(limits.maxActive(), limits.maxPerClient(), limits.bufferBudget(), registry);
    this.router = new FlowRouter(flows, sessions, new SiteRoutes(config.peers()), legOptions, () -> this.decider, admission,
        BufferBudget.passThroughFlowBytes(lan.bufferHigh()),
        wanSockets, profileServices, config.clientAddress(), destinations);
    this.boss = NettyTransport.group(1, "tcpopt-" + config.nodeName() + "-accept");
    this.workers = NettyTransport.group(Math.max(2, Runtime.getRuntime().availableProcessors()), "tcpopt-" + config.nodeName() + "-io");
  }

  /**
   * Starts a node: binds the WAN listener and the interception listeners, installs transparent
   * rules when asked, and starts dialling peers. Throws {@link ServiceNodeException} with one clear
   * line when something cannot be bound or set up; nothing is left running then.
   */
  public static ServiceNode start(ServiceNodeConfig config, FlowDecider decider, MeterRegistry registry) {
    Objects.requireNonNull(config, "config");
    return start(config, decider, registry, ReductionSettings.of(config.dataReduction()));
  }

  /** As {@link #start(ServiceNodeConfig, FlowDecider, MeterRegistry)}, with the engine's settings given (tests force fingerprint collisions). */
  static ServiceNode start(ServiceNodeConfig config, FlowDecider decider, MeterRegistry registry, ReductionSettings reduction) {
    Objects.requireNonNull(config, "config");
    Objects.requireNonNull(registry, "registry");
    checkDescriptorLimit(config);
    ServiceNode node = new ServiceNode(config, decider == null ? FlowDecider.optimizeAll() : decider, registry, reduction);
    try {
      node.startAll();
      return node;
    } catch (ServiceNodeException e) {
      node.close();
      throw e;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      node.close();
      throw new ServiceNodeException("service node " + config.nodeName() + ": interrupted while starting");
    }
  }

  /** Fails the start when the open-file limit cannot hold {@code flows.max-active} flows; warns when pass-through flows would not fit. */
  private static void checkDescriptorLimit(ServiceNodeConfig config) {
    OptionalLong limit = DescriptorLimit.current();
    if (limit.isEmpty()) {
      return;
    }
    int maxActive = config.flows().maxActive();
    String error = DescriptorLimit.error(config.nodeName(), limit.getAsLong(), maxActive);
    if (error != null) {
      throw new ServiceNodeException(error);
    }
    String warning = DescriptorLimit.warning(config.nodeName(), limit.getAsLong(), maxActive);
    if (warning != null) {
      log.warn(warning);
    }
  }

  private void startAll() throws InterruptedException {
    SslContext serverTls = null;
    SslContext clientTls = null;
    if (!config.wan().plaintext()) {
      serverTls = WanTls.server(config.wan().tls());
      clientTls = WanTls.client(config.wan().tls());
    } else {
      log.warn("node {}: inter-node sessions are PLAINTEXT (wan.plaintext: true)", config.nodeName());
    }
    bindWan(serverTls);
    bindListeners();
    guardOwnPorts();
    for (ServiceNodeConfig.Peer peer : dialledPeers()) {
      Counter reconnects = Counter.builder("tcpopt.session.reconnects").tag("peer", peer.name()).register(registry);
      PeerSessionPool pool = new PeerSessionPool(peer.name(), peer.address(), config.wan().connections(), config.wan().expressConnection(), workers, clientTls, sessionSettings,
          router, sessions, wanSockets, config.lan().connectTimeout(), name -> reconnects.increment(), authority.dialled(peer.name()));
      pools.add(pool);
      upCounter(peer.name());
      pool.start();
    }
    log.info("service node {} (site {}) up: WAN {}, {} peer(s) ({} dialled, {} accepted), {} listener(s), {}", config.nodeName(), config.site(),
        wanAddress(), config.peers().size(), pools.size(), config.peers().size() - pools.size(), listeners.size(),
        NettyTransport.isEpoll() ? "epoll" : "nio");
  }

  private void bindWan(SslContext serverTls) throws InterruptedException {
    ServerBootstrap b = new ServerBootstrap()
        .group(boss, workers)
        .channel(NettyTransport.serverChannel())
        .childHandler(new WanChannelInitializer(serverTls, sessionSettings, false, router, sessions, wanSockets, null, authority,
            new PendingHandshakes(config.wan().maxPendingHandshakes(), registry)));
    wanSockets.configure(b);
    try {
      wanServer = b.bind(config.wan().listen()).sync().channel();
    } catch (Exception e) {
      throw new ServiceNodeException("cannot listen for peers on " + config.wan().listen() + ": " + e.getMessage(), e);
    }
  }

  private void bindListeners() throws InterruptedException {
    for (ServiceNodeConfig.Listener l : config.interception().listeners()) {
      try {
        listeners.add(InterceptListener.explicit(l.listen(), l.target(), l.site(), boss, workers, legOptions.watermarks(), router));
      } catch (Exception e) {
        throw new ServiceNodeException("cannot listen on " + l.listen() + " (to " + l.target() + "): " + e.getMessage(), e);
      }
    }
    ServiceNodeConfig.Handoff h = config.interception().handoff();
    if (h != null) {
      List<Cidr> allowed = new ArrayList<>();
      for (String prefix : h.allowed()) {
        allowed.add(Cidr.parse(prefix)); // validated by ServiceNodeConfig
      }
      try {
        handoff = HandoffListener.bind(h.listen(), a -> allowed.stream().anyMatch(c -> c.contains(a)), HANDOFF_HEADER_TIMEOUT, boss, workers,
            legOptions.watermarks(), router);
      } catch (Exception e) {
        throw new ServiceNodeException("cannot open the handoff listener on " + h.listen() + ": " + e.getMessage(), e);
      }
    }
    ServiceNodeConfig.Transparent t = config.interception().transparent();
    if (t != null) {
      try {
        listeners.add(InterceptListener.transparent(new InetSocketAddress(t.port()), boss, workers, legOptions.watermarks(), router));
      } catch (Exception e) {
        throw new ServiceNodeException("cannot open the transparent listener on port " + t.port() + " (needs Linux, root or CAP_NET_ADMIN): "
            + e.getMessage(), e);
      }
    }
    // Only once the listener is bound: a diverted connection never meets a closed port.
    TransparentRules.install(config).ifPresent(rules::add);
  }

  /**
   * The destination guard learns this node's listening ports and keeps this host's addresses
   * current; a node with peers but nothing in {@code serves} is told that it will refuse their streams.
   */
  private void guardOwnPorts() {
    List<Integer> ports = new ArrayList<>();
    ports.add(wanAddress().getPort());
    listenerAddresses().forEach(a -> ports.add(a.getPort()));
    if (handoff != null) {
      ports.add(handoff.localAddress().getPort());
    }
    destinations.ownPorts(ports);
    long every = HOST_ADDRESSES_REFRESH.toMillis();
    hostAddressesRefresh = GlobalEventExecutor.INSTANCE.scheduleAtFixedRate(hostAddresses::refresh, every, every, TimeUnit.MILLISECONDS);
    IdleMemoryReturn memory = IdleMemoryReturn.forNode(config.nodeName(), flows::activeCount);
    memoryReturn = GlobalEventExecutor.INSTANCE.scheduleAtFixedRate(memory::check, IdleMemoryReturn.checkMillis(), IdleMemoryReturn.checkMillis(),
        TimeUnit.MILLISECONDS);
    if (config.serves().isEmpty() && !config.peers().isEmpty()) {
      log.warn("node {}: service-node.serves is empty, so streams its peers open are refused until a policy names the prefixes site {} "
          + "serves (sites.{}.serves); or list them in service-node.serves", config.nodeName(), config.site(), config.site());
    }
  }

  /**
   * Ports this node's other parts listen on (controller API, console, Hazelcast, metrics): the
   * far node never connects a peer's stream to them, even on a loopback address it serves.
   */
  public void alsoListensOn(List<Integer> ports) {
    destinations.ownPorts(ports);
  }

  private List<ServiceNodeConfig.Peer> dialledPeers() {
    return config.peers().stream().filter(ServiceNodeConfig.Peer::dialled).toList();
  }

  /**
   * Replaces the peers the controller has registered: with the configured ones, the nodes that may
   * hold a session with this one, at the site given here. Sessions already up are kept.
   */
  public void registeredPeers(List<TrustedPeer> peers) {
    authority.registered(peers);
  }

  /**
   * Takes the prefixes {@code policy} gives this node's site ({@code sites: { SITE: { serves } }})
   * as the destinations it connects peers' streams to, unless its config lists {@code serves}
   * (which then stays in force: {@link DestinationGuard}). Null: no policy.
   */
  public void servesFromPolicy(PolicyDocument policy) {
    List<Cidr> prefixes = policy == null ? List.of() : policy.servedBy(config.site());
    List<Cidr> before = destinations.served();
    boolean used = destinations.fromPolicy(config.site(), prefixes);
    if (!config.serves().isEmpty()) {
      if (!prefixes.isEmpty()) {
        log.info("node {}: the policy's sites.{}.serves is ignored, service-node.serves in its config takes precedence", config.nodeName(),
            config.site());
      }
    } else if (!before.equals(destinations.served())) {
      log.info("node {}: serves {} (the policy's sites.{}.serves)", config.nodeName(), used ? prefixes : "no destination", config.site());
    }
  }

  /** The destinations this node connects peers' streams to: its config's {@code serves}, else its site's in the policy. */
  public List<Cidr> servedPrefixes() {
    return destinations.served();
  }

  /** Replaces the policy for new flows; flows already running keep their verdict. */
  public void decider(FlowDecider decider) {
    this.decider = Objects.requireNonNull(decider, "decider");
  }

  /**
   * Reads the certificate, key and CA files of every client-ssl and server-ssl profile that an
   * optimize action of {@code policy} uses (key file permissions first) and keeps their contexts
   * for the flows to come. Returns one line per unusable profile, naming it and the file; flows of
   * such a profile go on without it (a client leg unterminated, a server leg refused).
   */
  public List<String> checkSslProfiles(PolicyDocument policy) {
    List<String> errors = new ArrayList<>();
    SslContextCache ssl = profileServices.sslContexts();
    for (Sequence s : policy.sequences()) {
      if (s.action().action() != Action.OPTIMIZE) {
        continue;
      }
      LegProfiles p = policy.legProfiles(s.action());
      if (p.clientSsl() != null && ssl.clientSsl(p.clientSsl()) == null && !errors.contains(ssl.error(p.clientSsl()))) {
        errors.add(ssl.error(p.clientSsl()));
      }
      if (p.serverSsl() != null && ssl.serverSsl(p.serverSsl()) == null && !errors.contains(ssl.error(p.serverSsl()))) {
        errors.add(ssl.error(p.serverSsl()));
      }
    }
    return errors;
  }

  /** The node's data reduction (chunk cache, per-peer state and figures). */
  public WanReduction reduction() {
    return reduction;
  }

  /**
   * Starts ({@code true}) or ends a drain. Draining, the node optimizes no new flow: transparent
   * interception is suspended in the kernel, so new connections go direct as if the node were not
   * there (and stay direct, surviving the node's restart); a flow that still reaches it (an explicit
   * listener, a handoff, one diverted before the suspension) passes through with reason "node
   * draining". Flows it holds go on; streams its peers open are still carried. Cleared by a
   * restart. If the kernel refuses to suspend interception, new flows pass through here instead.
   */
  public void drain(boolean on) {
    admission.draining(on);
    for (TproxyRules r : rules) {
      try {
        r.interception(!on);
      } catch (TproxyException e) {
        log.warn("{}; new flows pass through this node instead", e.getMessage());
      }
    }
    log.info("node {} {}", config.nodeName(), on ? "draining: new flows pass through, " + flows.activeCount() + " flow(s) held" : "undrained");
  }

  public boolean draining() {
    return admission.draining();
  }

  /** Active flows and the bounded closed-flow history. */
  public FlowTableSnapshot flows() {
    return flows.snapshot();
  }

  public InetSocketAddress wanAddress() {
    return wanServer == null ? config.wan().listen() : (InetSocketAddress) wanServer.localAddress();
  }

  public List<InetSocketAddress> listenerAddresses() {
    List<InetSocketAddress> out = new ArrayList<>();
    for (InterceptListener l : listeners) {
      out.add(l.localAddress());
    }
    return out;
  }

  /** The bound handoff listener (external mode), or null when none is configured. */
  public InetSocketAddress handoffAddress() {
    return handoff == null ? null : handoff.localAddress();
  }

  public ServiceNodeConfig config() {
    return config;
  }

  /** Per peer: connections up and configured (the express one among them), RTT, cwnd, retransmits, congestion control. */
  public List<PeerSessionStatus> sessions() {
    Map<String, PeerSessionStatus> out = new LinkedHashMap<>();
    List<ServiceNodeConfig.Peer> dialled = dialledPeers();
    for (int i = 0; i < pools.size(); i++) {
      PeerSessionPool pool = pools.get(i);
      ServiceNodeConfig.Peer peer = dialled.get(i);
      out.put(peer.name(), status(peer.name(), peer.site(), pool.upConnections(), pool.size(), pool.dialsExpress()));
    }
    Map<String, List<StreamMultiplexer>> inbound = new LinkedHashMap<>();
    for (StreamMultiplexer m : sessions.all()) {
      if (!m.isDialler() && m.isUp() && !out.containsKey(m.peerHello().name())) {
        inbound.computeIfAbsent(m.peerHello().name(), k -> new ArrayList<>()).add(m);
      }
    }
    for (Map.Entry<String, List<StreamMultiplexer>> e : inbound.entrySet()) {
      out.put(e.getKey(), status(e.getKey(), e.getValue().get(0).peerSite(), e.getValue(), 0, false));
    }
    return List.copyOf(out.values());
  }

  private PeerSessionStatus status(String name, String site, List<StreamMultiplexer> up, int configured, boolean expressConfigured) {
    int expressUp = 0;
    long rtt = -1;
    long cwnd = -1;
    long retransmits = -1;
    String cc = "unknown";
    for (StreamMultiplexer m : up) {
      expressUp += m.isExpress() ? 1 : 0;
      if (m.rttNanos() >= 0 && (rtt < 0 || m.rttNanos() < rtt)) {
        rtt = m.rttNanos();
      }
      WanStats s = wanSockets.stats(m.channel()).orElse(WanStats.UNKNOWN);
      if (s.cwndSegments() >= 0) {
        cwnd = Math.max(cwnd, 0) + s.cwndSegments();
      }
      if (s.retransmits() >= 0) {
        retransmits = Math.max(retransmits, 0) + s.retransmits();
      }
      if (!"unknown".equals(s.congestionControl())) {
        cc = s.congestionControl();
      }
    }
    return new PeerSessionStatus(name, site, up.size(), configured, rtt < 0 ? null : Duration.ofNanos(rtt), cwnd, retransmits, cc, expressUp,
        expressConfigured);
  }

  private AtomicInteger upCounter(String peer) {
    return upByPeer.computeIfAbsent(peer, p -> registry.gauge("tcpopt.session.connections.up", Tags.of("peer", p), new AtomicInteger()));
  }

  /** Session up/down: logs and the per-peer connection gauge. */
  private final class SessionMetrics implements SessionListener {
    @Override
    public void sessionUp(StreamMultiplexer connection) {
      upCounter(connection.peerHello().name()).incrementAndGet();
    }

    @Override
    public void sessionDown(StreamMultiplexer connection, String reason) {
      upCounter(connection.peerHello().name()).decrementAndGet();
      if (!closed) {
        log.info("session with peer {} over {} down: {}", connection.peerName(), connection.channel().remoteAddress(), reason);
      }
    }

    /** Counts connections retired before their stream ids ran out (by this node or by the peer). */
    @Override
    public void sessionRetiring(StreamMultiplexer connection) {
      Counter.builder("tcpopt.session.retired").tag("peer", connection.peerHello().name()).register(registry).increment();
    }
  }

  /**
   * Why this node would not fail to wire (transparent interception rules that could outlive it, or
   * that were lost), or empty when the kernel removes them with the process or there are none.
   */
  public Optional<String> failToWireProblem() {
    return rules.stream().map(TproxyRules::failToWire).filter(Objects::nonNull).findFirst();
  }

  /** Removes rules (new connections go direct), stops listeners, closes sessions (GOAWAY), resets flows. Idempotent. */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    if (hostAddressesRefresh != null) {
      hostAddressesRefresh.cancel(false);
    }
    if (memoryReturn != null) {
      memoryReturn.cancel(false);
    }
    rules.forEach(TproxyRules::close);
    router.close();
    for (InterceptListener l : listeners) {
      l.close();
    }
    if (handoff != null) {
      handoff.close();
    }
    profileServices.reusePools().close();
    profileServices.peerReusePools().close();
    for (PeerSessionPool p : pools) {
      p.close();
    }
    for (StreamMultiplexer m : sessions.all()) {
      m.shutdown();
    }
    if (wanServer != null) {
      wanServer.close().syncUninterruptibly();
    }
    boss.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
    workers.shutdownGracefully(50, 2_000, TimeUnit.MILLISECONDS).syncUninterruptibly();
    reduction.close();
    log.info("service node {} stopped", config.nodeName());
  }
}
