package io.tcpopt.servicenode;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.epoll.EpollChannelOption;
import io.netty.handler.ssl.SslContext;
import io.tcpopt.common.net.HostPort;
import io.tcpopt.common.policy.Verdict;
import io.tcpopt.common.profile.ClientSslProfile;
import io.tcpopt.common.profile.HttpReuseProfile;
import io.tcpopt.common.profile.LegProfiles;
import io.tcpopt.common.profile.ServerSslProfile;
import io.tcpopt.common.relay.DirectUpstream;
import io.tcpopt.common.relay.LegBridge;
import io.tcpopt.common.relay.UpstreamSplice;
import io.tcpopt.common.transport.Legs;
import io.tcpopt.common.transport.NettyTransport;
import io.tcpopt.common.transport.ResetCause;
import io.tcpopt.servicenode.flow.FlowEntry;
import io.tcpopt.servicenode.flow.FlowEntry.WanFigures;
import io.tcpopt.servicenode.flow.FlowKind;
import io.tcpopt.servicenode.flow.FlowTable;
import io.tcpopt.servicenode.intercept.FlowInterceptor;
import io.tcpopt.servicenode.leg.LegOptions;
import io.tcpopt.servicenode.leg.LegTuning;
import io.tcpopt.servicenode.reuse.HttpReuseUpstream;
import io.tcpopt.servicenode.reuse.PeerReuse;
import io.tcpopt.servicenode.reuse.PoolKey;
import io.tcpopt.servicenode.reuse.ReusePools;
import io.tcpopt.servicenode.reuse.ServerConnectionPool;
import io.tcpopt.servicenode.session.MuxStream;
import io.tcpopt.servicenode.session.SessionRegistry;
import io.tcpopt.servicenode.session.StreamAcceptor;
import io.tcpopt.servicenode.session.StreamBudget;
import io.tcpopt.servicenode.session.StreamMultiplexer;
import io.tcpopt.servicenode.session.WanSockets;
import io.tcpopt.servicenode.session.WanStreamUpstream;
import io.tcpopt.servicenode.tls.ClientTlsTermination;
import io.tcpopt.servicenode.tls.ServerTls;
import io.tcpopt.servicenode.trust.DestinationGuard;
import io.tcpopt.servicenode.wire.OpenFrame;
import io.tcpopt.servicenode.wire.ServerReuse;
import io.tcpopt.servicenode.admission.Admission;
import io.tcpopt.servicenode.admission.Admission.Claim;
import io.tcpopt.servicenode.admission.BufferBudget;
import io.tcpopt.servicenode.admission.Admission.Limit;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where every flow of the node is decided and wired: each becomes one {@link LegBridge} over the
 * right {@link io.tcpopt.common.relay.Upstream}.
 *
 * <ul>
 *   <li>An intercepted flow is decided by the current {@link FlowDecider}: {@code optimize} with a
 *       session up to the destination's site joins the client leg to a new {@link
 *       WanStreamUpstream}; {@code pass-through}, or an optimize the node cannot honour (fail open,
 *       the reason recorded), joins it to a {@link DirectUpstream} to the original destination;
 *       {@code drop} resets the client.
 *   <li>A stream a peer opens connects the server leg here and joins it to the stream.
 * </ul>
 *
 * <p>Admission (may the node take one more flow, and how?) is decided in {@link #admit} alone,
 * for every kind of flow, against the node's {@link Admission} limits: a flow the buffer budget
 * cannot hold optimized, or any flow while the node drains, passes through; a flow beyond
 * {@code max-active} (pass-through flows count) or its client's {@code max-per-client} is refused
 * with a reset (docs/reliability.md says why). Called on the listeners' and WAN connections' event
 * loops; its dependencies are thread-safe.
 */
final class FlowRouter implements FlowInterceptor, StreamAcceptor {
  private static final Logger log = LoggerFactory.getLogger(FlowRouter.class);

  private final FlowTable flows;
  private final SessionRegistry sessions;
  private final SiteRoutes routes;
  private final LegOptions legs;
  private final Supplier<FlowDecider> decider;
  private final Admission admission;
  private final long passThroughFlowBytes;
  private final WanSockets wanSockets;
  private final ProfileServices services;
  private final ServiceNodeConfig.ClientAddress clientAddress;
  private final DestinationGuard destinations;
  private final Map<StreamMultiplexer, RecentWanFigures> wanFigures = new ConcurrentHashMap<>();
  private volatile boolean closed;

  /**
   * What admission decided for one flow: a granted {@link Claim} (released when the flow ends), or
   * the reset a peer's stream gets, the reason a flow records, and whether the flow may still pass
   * through (a limit on optimized flows only: drain, the buffer budget).
   */
  private record Admitted(Claim claim, ResetCause cause, String reason, boolean passThrough) {
    static Admitted refused(ResetCause cause, String reason, boolean passThrough) {
      return new Admitted(null, cause, reason, passThrough);
    }

    boolean granted() {
      return claim != null;
    }
  }

  /**
   * @param decider the current policy (it may be replaced while the node runs)
   * @param admission the node's flow limits
   * @param passThroughFlowBytes what a pass-through flow reserves
   * @param wanSockets reads the figures (RTT, cwnd, retransmits) of the connection carrying a flow
   * @param services the server-connection pools and SSL contexts of the actions' application profiles
   * @param clientAddress which sites' far nodes are asked to connect from clients' addresses, and whose asks are honoured here
   * @param destinations where streams peers open may be connected
   */
  FlowRouter(FlowTable flows, SessionRegistry sessions, SiteRoutes routes, LegOptions legs, Supplier<FlowDecider> decider, Admission admission,
      long passThroughFlowBytes, WanSockets wanSockets, ProfileServices services, ServiceNodeConfig.ClientAddress clientAddress,
      DestinationGuard destinations) {
    this.flows = flows;
    this.sessions = sessions;
    this.routes = routes;
    this.legs = legs;
    this.decider = decider;
    this.admission = admission;
    this.passThroughFlowBytes = passThroughFlowBytes;
    this.wanSockets = wanSockets;
    this.services = services;
    this.clientAddress = clientAddress;
    this.destinations = destinations;
  }

  /** How a flow asking for admission would be carried. */
  private enum Carriage {
    /** An intercepted flow over a session: not while draining, passes through beyond the buffer budget. */
    OPTIMIZED,
    /** A stream a peer opened: the peer's flow, carried while draining too (the peer has no other way). */
    FOR_PEER,
    /** Spliced to its destination by this node. */
    PASS_THROUGH
  }

  /**
   * Admission, the one place it is decided: claims the node's limits for one flow of {@code client}
   * carried as {@code carriage}; an optimized flow over {@code connection} reserves its stream's
   * windows at their start ({@link BufferBudget#optimizedFlowBytes}), and their growth later.
   */
  private Admitted admit(InetAddress client, Carriage carriage, StreamMultiplexer connection) {
    if (closed) {
      return Admitted.refused(ResetCause.SHUTTING_DOWN, "node shutting down", false);
    }
    if (carriage == Carriage.OPTIMIZED && admission.draining()) {
      return Admitted.refused(ResetCause.REFUSED, "node draining", true);
    }
    boolean optimized = carriage != Carriage.PASS_THROUGH;
    long bytes = optimized ? BufferBudget.optimizedFlowBytes(connection.streamStartBytes()) : passThroughFlowBytes;
    Claim c = admission.admit(client, bytes, optimized);
    if (!c.granted()) {
      return Admitted.refused(ResetCause.REFUSED, c.reason(), carriage == Carriage.OPTIMIZED && c.limit() == Limit.BUFFER_BUDGET);
    }
    return new Admitted(c, null, null, false);
  }

  /** What a stream's windows reserve beyond their start, and its start credit: the flow's claim. */
  private static StreamBudget streamBudget(Claim claim) {
    return StreamBudget.of(claim::grow, claim::grantStart, claim::shrink, claim::startCredit);
  }

  /** Records a flow beyond a node limit and resets its client. */
  private void refuse(Channel client, InetSocketAddress source, InetSocketAddress destination, String reason) {
    flows.open(FlowKind.REFUSED, reason, source, destination).close("refused: " + reason); // recorded before the client can see it
    Legs.reset(client);
  }

  // ---- intercepted flows (this node holds the client leg) -----------------------------------

  @Override
  public void intercepted(Channel client, InetSocketAddress source, InetSocketAddress destination, String siteHint) {
    if (closed) {
      Legs.reset(client);
      return;
    }
    Verdict verdict = decide(source, destination);
    switch (verdict.action()) {
      case DROP:
        FlowEntry dropped = flows.open(FlowKind.DROPPED, verdict.reason(), source, destination);
        Legs.reset(client);
        dropped.close("dropped by policy");
        return;
      case PASS_THROUGH:
        passThrough(client, source, destination, verdict.reason());
        return;
      default:
        optimize(client, source, destination, siteHint, verdict);
    }
  }

  private Verdict decide(InetSocketAddress source, InetSocketAddress destination) {
    try {
      Verdict v = decider.get().decide(source, destination);
      return v != null ? v : Verdict.passThrough("policy gave no verdict");
    } catch (RuntimeException e) {
      log.warn("policy failed for {} -> {}, passing through: {}", source, destination, e.toString());
      return Verdict.passThrough("policy failed: " + e.getMessage());
    }
  }

  private void optimize(Channel client, InetSocketAddress source, InetSocketAddress destination, String siteHint, Verdict verdict) {
    String cannot = null;
    String site = siteHint != null ? siteHint : routes.siteFor(destination.getAddress());
    StreamMultiplexer connection = null;
    if (source.getAddress().getAddress().length != destination.getAddress().getAddress().length) {
      cannot = "client and server address families differ";
    } else if (site == null) {
      cannot = "no peer site serves " + HostPort.address(destination.getAddress());
    } else if ((connection = sessions.pick(site, client.eventLoop())) == null) {
      cannot = "no session up to site " + site;
    } else if (!connection.reserveOpen()) {
      cannot = "WAN connection to site " + site + " at the peer's max-streams";
    }
    if (cannot != null) {
      passThrough(client, source, destination, cannot);
      return;
    }
    Admitted admitted = admit(source.getAddress(), Carriage.OPTIMIZED, connection);
    if (!admitted.granted()) {
      connection.releaseOpen();
      if (admitted.passThrough()) {
        passThrough(client, source, destination, admitted.reason());
      } else {
        refuse(client, source, destination, admitted.reason());
      }
      return;
    }
    FlowEntry flow = flows.open(FlowKind.OPTIMIZED, verdict.reason(), source, destination);
    flow.onClose(admitted.claim()::release);
    flow.carriedBy(connection.peerName(), figures(connection));
    LegTuning tuning = LegTuning.of(verdict.profiles() == null ? null : verdict.profiles().client(), legs);
    prepareClientLeg(client, tuning, flow, verdict.profiles());
    int openFlags = clientAddress.requests(site) ? OpenFrame.FLAG_TRANSPARENT_SOURCE : 0;
    HttpReuseProfile reuse = verdict.profiles() == null ? null : verdict.profiles().httpReuse();
    WanStreamUpstream stream = WanStreamUpstream.open(connection, flow.id(), source, destination, openFlags, legs.openCoalescing(),
        verdict.dataReduction(), reuse == null ? null : ServerReuse.of(reuse));
    stream.budget(streamBudget(admitted.claim()));
    recordWanBytes(flow, stream);
    LegBridge.start(client.newSucceededFuture(), stream, flow.recorder(true), "client leg", tuning.idleTimeout());
  }

  /**
   * Readies the client leg of an optimized flow, on its event loop, before the bridge reads it:
   * the client profile's socket options, and with a client-ssl profile the TLS termination, whose
   * handlers sit between the socket and the bridge (the bridge reads and writes plaintext). A
   * profile whose certificate or key cannot be used leaves the flow unterminated, optimized as it
   * is, with the reason noted.
   */
  private void prepareClientLeg(Channel client, LegTuning tuning, FlowEntry flow, LegProfiles profiles) {
    legs.legs().add(client);
    flow.localLeg(tuning.apply(client));
    ClientSslProfile tls = profiles == null ? null : profiles.clientSsl();
    if (tls != null) {
      SslContext context = services.sslContexts().clientSsl(tls);
      if (context == null) {
        flow.note("client-ssl " + tls.name() + " not applied: " + services.sslContexts().error(tls));
      } else {
        flow.tls(ClientTlsTermination.install(client, context, tls)::info);
      }
    }
  }

  /** Fail-open and pass-through: the client leg joined to a direct connection to its destination, both on the client's loop. */
  private void passThrough(Channel client, InetSocketAddress source, InetSocketAddress destination, String reason) {
    Admitted admitted = admit(source.getAddress(), Carriage.PASS_THROUGH, null);
    if (!admitted.granted()) {
      refuse(client, source, destination, admitted.reason());
      return;
    }
    FlowEntry flow = flows.open(FlowKind.PASS_THROUGH, reason, source, destination);
    flow.onClose(admitted.claim()::release);
    legs.legs().add(client);
    ChannelFuture connect = Legs.connect(legs.bootstrap(), client.eventLoop(), destination, null);
    legs.legs().add(connect.channel());
    DirectUpstream server = DirectUpstream.over(client.eventLoop(), connect, "server leg", legs.watermarks(), null);
    LegBridge.start(client.newSucceededFuture(), server, flow.recorder(true), "client leg", legs.idleTimeout());
  }

  // ---- streams a peer opened (this node holds the server leg) -------------------------------

  /** Connects the server of a stream a peer opened and joins the server leg to the stream, on the stream's loop. */
  @Override
  public void accept(MuxStream muxStream, OpenFrame open) {
    WanStreamUpstream stream = WanStreamUpstream.accepted(muxStream, open);
    InetSocketAddress source = open.source();
    InetSocketAddress destination = open.destination();
    boolean asksClientAddress = (open.openFlags() & OpenFrame.FLAG_TRANSPARENT_SOURCE) != 0;
    ServerReuse askedReuse = open.serverReuse();
    open.release();
    if (stream.unusable() != null) {
      stream.reset(ResetCause.PROTOCOL_ERROR, stream.unusable());
      return;
    }
    DestinationGuard.Check allowed = destinations.check(destination);
    if (!allowed.allowed()) { // before admission and before any connect: nothing leaves this node for it
      flows.open(FlowKind.REFUSED, "destination refused: " + allowed.refusal().label(), source, destination)
          .close("refused for peer " + stream.peerName() + ": " + allowed.reason());
      stream.reset(ResetCause.REFUSED, allowed.reason());
      log.info("stream from peer {} ({} -> {}) refused: {}", stream.peerName(), HostPort.format(source), HostPort.format(destination),
          allowed.reason());
      return;
    }
    Admitted admitted = admit(source.getAddress(), Carriage.FOR_PEER, stream.connection());
    if (!admitted.granted()) {
      flows.open(FlowKind.REFUSED, admitted.reason(), source, destination).close("refused for peer " + stream.peerName() + ": " + admitted.reason());
      stream.reset(admitted.cause(), admitted.reason());
      return;
    }
    FlowEntry flow = flows.open(FlowKind.OPTIMIZED, "carried for peer " + stream.peerName(), source, destination);
    flow.onClose(admitted.claim()::release);
    stream.budget(streamBudget(admitted.claim()));
    flow.carriedBy(stream.peerName(), figures(stream.connection()));
    recordWanBytes(flow, stream);
    LegProfiles profiles = serverProfiles(source, destination);
    LegTuning tuning = profiles == null ? LegTuning.defaults(legs) : LegTuning.of(profiles.server(), legs);
    ServerSslProfile serverSsl = profiles == null ? null : profiles.serverSsl();
    SslContext serverTls = serverSsl == null ? null : services.sslContexts().serverSsl(serverSsl);
    if (serverSsl != null && serverTls == null) {
      String why = "server-ssl " + serverSsl.name() + " unusable: " + services.sslContexts().error(serverSsl);
      stream.reset(ResetCause.CONNECT_REFUSED, why); // never plaintext where the policy asks for TLS
      flow.close(why);
      return;
    }
    boolean transparentSource = asksClientAddress && keepsClientAddress(flow, stream.connection().peerSite(), source.getAddress());
    PeerReuse.Choice reuse = services.peerReuse().choose(askedReuse, stream.peerName(), profiles == null ? null : profiles.httpReuse(),
        services.peerReusePools());
    if (reuse.note() != null) {
      flow.note(reuse.note());
    }
    if (reuse.profile() != null) {
      ReusePools pools = reuse.fromPeer() ? services.peerReusePools() : services.reusePools();
      serveByRequests(stream, flow, pools, reuse.profile(), serverSsl, source, destination, tuning, transparentSource);
      return;
    }
    Bootstrap b = legs.bootstrap();
    tuning.beforeConnect(b);
    InetSocketAddress bind = null;
    if (transparentSource) {
      b.option(EpollChannelOption.IP_TRANSPARENT, true);
      bind = new InetSocketAddress(source.getAddress(), 0);
    }
    ChannelFuture connect = Legs.connect(b, stream.eventLoop(), destination, bind);
    legs.legs().add(connect.channel());
    connect.addListener(f -> {
      if (f.isSuccess()) {
        flow.localLeg(tuning.apply(connect.channel()));
        if (serverTls != null) {
          ServerTls.install(connect.channel(), serverTls, serverSsl, destination); // before the bridge joins the leg
        }
      }
    });
    LegBridge.start(connect, stream, flow.recorder(false), "server leg", tuning.idleTimeout());
  }

  /**
   * Whether the server leg of a flow whose peer asked for the client's address connects from it:
   * only for sites in {@code client-address.allow} (this node then routes the servers' answers
   * back to itself), for a client address that is neither special, nor this host's, nor inside this
   * site's prefixes ({@link DestinationGuard#sourceProblem}), and on the epoll transport. Otherwise
   * the leg connects from this node's own address, and the flow notes why.
   */
  private boolean keepsClientAddress(FlowEntry flow, String peerSite, InetAddress client) {
    if (!clientAddress.allows(peerSite)) {
      flow.note("client address not kept: site " + peerSite + " is not in client-address.allow");
      return false;
    }
    String problem = destinations.sourceProblem(client);
    if (problem != null) {
      flow.note("client address not kept: " + problem);
      return false;
    }
    if (!NettyTransport.isEpoll()) {
      flow.note("client address not kept: needs the Linux epoll transport");
      return false;
    }
    flow.note("server sees the client's address");
    return true;
  }

  /**
   * Serves a peer's stream request by request (an http-reuse profile): the stream is spliced to an
   * {@link HttpReuseUpstream} that sends each request on a pooled server connection of the
   * stream's loop. Pooled connections are the node's own sockets (lan defaults, no per-flow TCP
   * profile), from the node's address; a flow that keeps the client's address gets connections
   * from that address, pooled for that client alone (the profile's source mask does not widen it).
   */
  private void serveByRequests(WanStreamUpstream stream, FlowEntry flow, ReusePools pools, HttpReuseProfile reuse, ServerSslProfile serverSsl,
      InetSocketAddress source, InetSocketAddress destination, LegTuning tuning, boolean transparentSource) {
    String transport = serverSsl == null ? PoolKey.PLAIN : services.sslContexts().transport(serverSsl);
    ServerConnectionPool pool = pools.pool(reuse, stream.eventLoop());
    HttpReuseUpstream upstream = transparentSource
        ? HttpReuseUpstream.createFromClientAddress(pool, source, destination, transport, services.reuseMetrics(), services.firstRequestTimeout())
        : HttpReuseUpstream.create(pool, source, destination, transport, services.reuseMetrics(), services.firstRequestTimeout());
    flow.httpReuse(upstream::figures);
    UpstreamSplice.start(stream, upstream, flow.recorder(false), tuning.idleTimeout());
  }

  /**
   * The far node's own profiles for a stream: it classifies the flow with its own decider as the
   * intercepting node did ({@link FlowDecider#profiles} has no side effects): the server leg's TCP
   * profile and server-ssl profile are always this node's; its http-reuse profile applies when the
   * OPEN carried none or this node does not honour the peer's ({@link PeerReuse}). Null (the {@code
   * lan} defaults, no application profiles) without a profile or when the decider fails.
   */
  private LegProfiles serverProfiles(InetSocketAddress source, InetSocketAddress destination) {
    try {
      return decider.get().profiles(source, destination);
    } catch (RuntimeException e) {
      log.debug("policy failed for the server leg of {} -> {}, using lan defaults: {}", source, destination, e.toString());
      return null;
    }
  }

  /** The flow's WAN bytes (and data reduction) are its stream's. */
  private static void recordWanBytes(FlowEntry flow, WanStreamUpstream stream) {
    flow.wanBytes(stream::wanBytesSent, stream::wanBytesReceived, () -> stream.dataReduction().isOff() ? null : stream.dataReduction().toString());
  }

  /** The connection's figures, shared by its flows (one entry per connection, dropped when it closes). */
  private Supplier<WanFigures> figures(StreamMultiplexer connection) {
    RecentWanFigures f = wanFigures.get(connection);
    if (f != null) {
      return f;
    }
    RecentWanFigures created = new RecentWanFigures(connection, wanSockets);
    RecentWanFigures prior = wanFigures.putIfAbsent(connection, created);
    if (prior != null) {
      return prior;
    }
    connection.channel().closeFuture().addListener(done -> wanFigures.remove(connection));
    return created;
  }

  /** Refuses new flows from now on and resets every leg of the node. */
  void close() {
    closed = true;
    for (Channel leg : legs.legs()) {
      Legs.reset(leg);
    }
  }
}
