package io.tcpopt.controller;

import com.hazelcast.nio.serialization.compact.CompactSerializer;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.tcpopt.common.config.ConfigException;
import io.tcpopt.common.config.ConfigTree;
import io.tcpopt.common.net.HostPort;
import io.tcpopt.common.policy.Action;
import io.tcpopt.common.policy.PolicyDocument;
import io.tcpopt.common.policy.PolicyException;
import io.tcpopt.controller.api.ControllerApi;
import io.tcpopt.controller.api.GrpcServer;
import io.tcpopt.controller.auth.Authenticator;
import io.tcpopt.controller.cluster.ClusterMember;
import io.tcpopt.controller.console.ConsoleServer;
import io.tcpopt.controller.distribution.Candidate;
import io.tcpopt.controller.distribution.FlowDispatcher;
import io.tcpopt.controller.distribution.FlowDistributor;
import io.tcpopt.controller.handoff.HandoffForwarder;
import io.tcpopt.controller.membership.DrainOrder;
import io.tcpopt.controller.membership.NodeRecord;
import io.tcpopt.controller.membership.NodeRegistry;
import io.tcpopt.controller.membership.NodeRole;
import io.tcpopt.controller.policy.ActivePolicy;
import io.tcpopt.controller.policy.PolicyStore;
import io.tcpopt.controller.policy.PolicyStoreException;
import java.net.InetSocketAddress;
import java.time.Clock;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One controller: the embedded cluster member, the policy store, membership, flow dispatching,
 * the gRPC API and, when configured, the web console. {@link #start()} joins the cluster, applies the bootstrap policy when the cluster
 * has none, registers this controller (and the attached integrated service node) and serves the
 * API; {@link #close()} undoes it all. Both are idempotent.
 *
 * <p>The {@link #dispatcher()} only reads locally compiled policy and a local membership mirror,
 * so the data plane keeps deciding flows with the last good policy whatever happens to the
 * cluster.
 */
public final class Controller implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(Controller.class);
  private static final int MAX_PINNED_FLOWS = 100_000;
  /** Everything a controller stores in or sends through Hazelcast, as Compact serializers. */
  public static final List<CompactSerializer<?>> STORED_TYPES = concat(PolicyStore.STORED_TYPES, NodeRegistry.STORED_TYPES);

  private final ControllerConfig config;
  private final PolicyDocument bootstrapPolicy;
  private final MeterRegistry meters;
  private final Clock clock;
  private volatile LocalServiceNode localNode;
  private ClusterMember cluster;
  private PolicyStore policies;
  private NodeRegistry nodes;
  private FlowDispatcher dispatcher;
  private Authenticator authenticator;
  private ControllerApi api;
  private GrpcServer server;
  private ConsoleServer console;
  private HandoffForwarder handoff;
  private ScheduledExecutorService heartbeats;
  private Consumer<ActivePolicy> policyPush;
  private boolean started;
  private boolean closed;

  /**
   * @param bootstrapPolicy the {@code policy:} section of the node config, applied only when the
   *     cluster has no policy yet; may be null
   */
  public Controller(ControllerConfig config, PolicyDocument bootstrapPolicy, MeterRegistry meters) {
    this(config, bootstrapPolicy, meters, Clock.systemUTC());
  }

  Controller(ControllerConfig config, PolicyDocument bootstrapPolicy, MeterRegistry meters, Clock clock) {
    this.config = config;
    this.bootstrapPolicy = bootstrapPolicy;
    this.meters = meters;
    this.clock = clock;
  }

  private static List<CompactSerializer<?>> concat(List<CompactSerializer<?>> a, List<CompactSerializer<?>> b) {
    List<CompactSerializer<?>> all = new ArrayList<>(a);
    all.addAll(b);
    return List.copyOf(all);
  }

  /** Integrated mode: the service node in this JVM. Call before {@link #start()}. */
  public synchronized Controller attach(LocalServiceNode node) {
    if (started) {
      throw new IllegalStateException("attach the local service node before starting the controller");
    }
    this.localNode = node;
    return this;
  }

  public synchronized Controller start() {
    if (started || closed) {
      return this;
    }
    started = true;
    try {
      cluster = ClusterMember.start(config.cluster(), config.nodeName(), STORED_TYPES);
      policies = new PolicyStore(cluster, config.nodeName(), clock, config.heartbeatExpiry());
      nodes = new NodeRegistry(cluster, clock, config.heartbeatExpiry());
      dispatcher = new FlowDispatcher(policies::active, this::candidates, new FlowDistributor(MAX_PINNED_FLOWS));
      bootstrap();
      registerSelf();
      authenticator = new Authenticator(config.token(), config.tls().isPresent(), config.operatorCas());
      api =
          new ControllerApi(
              new ControllerApi.Context(
                  config.nodeName(), config.site(), cluster, policies, nodes, () -> Optional.ofNullable(localNode),
                  config.heartbeatInterval(), clock),
              authenticator);
      if (authenticator.open()) {
        log.warn("controller API on {} has neither a token nor TLS: anyone who can reach it may change the policy", config.listen());
      } else if (!authenticator.operatorsPossible()) {
        log.warn("controller API on {} has TLS but neither a token nor an operator-ca: no operator can change the policy", config.listen());
      }
      server = GrpcServer.start(config, api.services());
      if (config.console().isPresent()) {
        console = ConsoleServer.start(config.console().get(), config.nodeName(), config.site(), config.tls(), api.authenticator(),
            api.internalChannel(), clock);
      }
      if (!config.handoffListeners().isEmpty()) {
        handoff = HandoffForwarder.start(config.handoffListeners(), dispatcher, this::handoffAddress, config.handoffConnectTimeout());
      }
      registerMetrics();
      LocalServiceNode local = localNode;
      if (local != null) {
        local.decider(dispatcher);
        policyPush = p -> local.decider(dispatcher);
        policies.addListener(policyPush);
      }
      return this;
    } catch (RuntimeException e) {
      close();
      if (e instanceof ControllerException) {
        throw e;
      }
      throw new ControllerException("controller " + config.nodeName() + " failed to start: " + e.getMessage(), e);
    }
  }

  private void bootstrap() {
    if (bootstrapPolicy == null || policies.activeVersionInCluster() != 0) {
      return;
    }
    try {
      policies.apply(bootstrapPolicy.toYaml(), "bootstrap from " + config.nodeName() + " config", 0);
    } catch (PolicyStoreException e) {
      log.warn("bootstrap policy not stored ({}); using the cluster's policy when one is applied", e.getMessage());
    } catch (PolicyException e) {
      throw new ControllerException("bootstrap policy: " + e.getMessage(), e);
    }
  }

  private void registerSelf() {
    nodes.register(selfName(), config.site(), "", NodeRole.CONTROLLER, apiAddress(), "", 0,
        config.nodeName());
    LocalServiceNode local = localNode;
    if (local != null) {
      registerLocal(local);
    }
    heartbeats =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "tcpopt-controller-heartbeat");
              t.setDaemon(true);
              return t;
            });
    long period = config.heartbeatInterval().toMillis();
    heartbeats.scheduleWithFixedDelay(this::beat, period, period, TimeUnit.MILLISECONDS);
  }

  /** The gRPC listen address as HOST:PORT (IPv6 in brackets), as this controller registers itself. */
  private String apiAddress() {
    return new HostPort(config.listen().getHostString(), config.listen().getPort()).toString();
  }

  private String selfName() {
    LocalServiceNode local = localNode;
    return config.nodeName() + (local != null && local.name().equals(config.nodeName()) ? "-controller" : "");
  }

  private void registerLocal(LocalServiceNode local) {
    nodes.register(local.name(), local.site(), local.group(), NodeRole.INTEGRATED, local.wanAddress(), "",
        local.flowCapacity(), config.nodeName());
  }

  private void beat() {
    try {
      long version = policies.active() == null ? 0 : policies.active().versionNumber();
      if (!nodes.heartbeat(selfName(), 0, version, config.nodeName())) {
        nodes.register(selfName(), config.site(), "", NodeRole.CONTROLLER,
            apiAddress(), "", 0, config.nodeName());
      }
      LocalServiceNode local = localNode;
      if (local != null) {
        NodeRegistry.Heartbeat beat = nodes.heartbeat(local.name(), local.activeFlows(), version, local.draining(), config.nodeName());
        if (!beat.known()) {
          registerLocal(local);
        } else if (beat.order() != DrainOrder.NONE) {
          local.drain(beat.order() == DrainOrder.DRAIN);
        }
      }
    } catch (RuntimeException e) {
      log.debug("controller heartbeat failed: {}", e.toString());
    }
  }

  /**
   * The nodes this controller may hand a flow of {@code group} to: healthy nodes of <em>its own
   * site</em> registered in the group or in none. A controller only ever hands flows to service
   * nodes at its site; as with Cisco's per-device SNG-APPQOE, one policy can name the same group at
   * every site. The integrated node in this JVM always counts: it is alive if it asks, and must keep
   * optimizing with the last good state even when the membership store is unreachable.
   */
  private List<Candidate> candidates(String group, String groupSite) {
    List<Candidate> out = new ArrayList<>();
    LocalServiceNode local = localNode;
    boolean localListed = false;
    for (NodeRecord r : nodes.healthyMembersAtSite(group, config.site())) {
      boolean isLocal = local != null && r.name().equals(local.name());
      localListed |= isLocal;
      out.add(new Candidate(r.name(), r.flowCapacity(), isLocal ? local.activeFlows() : r.activeFlows()));
    }
    if (local != null && !localListed && (local.group().isEmpty() || local.group().equals(group))) {
      out.add(new Candidate(local.name(), local.flowCapacity(), local.activeFlows()));
    }
    return out;
  }

  private Optional<InetSocketAddress> handoffAddress(String node) {
    return nodes.get(node).map(NodeRecord::handoffAddress).filter(a -> !a.isEmpty()).flatMap(a -> {
      try {
        return Optional.of(ConfigTree.of("handoff-address", a).asSocketAddress());
      } catch (ConfigException e) {
        return Optional.empty();
      }
    });
  }

  /** Bound handoff listener addresses (external mode); empty without {@code handoff.listeners}. */
  public List<InetSocketAddress> handoffAddresses() {
    return handoff == null ? List.of() : handoff.addresses();
  }

  private void registerMetrics() {
    Gauge.builder("tcpopt.controller.policy.version", policies, p -> p.active() == null ? 0 : p.active().versionNumber())
        .description("active policy version on this controller")
        .register(meters);
    Gauge.builder("tcpopt.controller.cluster.members", cluster, ClusterMember::visibleMembers)
        .description("Hazelcast members visible from this controller")
        .register(meters);
    Gauge.builder("tcpopt.controller.nodes.healthy", nodes, n -> n.snapshot().stream().filter(n::isHealthy).count())
        .description("registered nodes with a recent heartbeat")
        .register(meters);
    Map<Action, Counter> decisions = new EnumMap<>(Action.class);
    for (Action k : Action.values()) {
      decisions.put(k, Counter.builder("tcpopt.controller.flow.decisions").tag("verdict", k.name().toLowerCase()).register(meters));
    }
    dispatcher.countWith(k -> decisions.get(k).increment());
  }

  /** Decides new flows; valid after {@link #start()}. */
  public FlowDispatcher dispatcher() {
    return dispatcher;
  }

  public PolicyStore policies() {
    return policies;
  }

  public NodeRegistry nodes() {
    return nodes;
  }

  public ClusterMember cluster() {
    return cluster;
  }

  /** Who a request comes from (token, operator or node certificate); the console decides with the same one. Valid after {@link #start()}. */
  public Authenticator authenticator() {
    return authenticator;
  }

  /** The gRPC services (auth included), e.g. to serve in-process. */
  public ControllerApi api() {
    return api;
  }

  /** The web console's URL ({@code http(s)://HOST:PORT/}) when {@code controller.console} is configured. */
  public Optional<String> consoleUrl() {
    return Optional.ofNullable(console).map(ConsoleServer::url);
  }

  /** The bound gRPC address. */
  public InetSocketAddress grpcAddress() {
    return server.address();
  }

  public ControllerConfig config() {
    return config;
  }

  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    if (heartbeats != null) {
      heartbeats.shutdownNow();
    }
    if (handoff != null) {
      handoff.close();
    }
    if (console != null) {
      console.close();
    }
    if (server != null) {
      server.close();
    }
    if (api != null) {
      api.close();
    }
    if (policies != null && policyPush != null) {
      policies.removeListener(policyPush);
    }
    try {
      if (nodes != null && cluster != null && cluster.hazelcast().getLifecycleService().isRunning()) {
        nodes.deregister(selfName());
        LocalServiceNode local = localNode;
        if (local != null) {
          nodes.deregister(local.name());
        }
      }
    } catch (RuntimeException e) {
      log.debug("deregistration on close failed: {}", e.toString());
    }
    if (nodes != null) {
      nodes.close();
    }
    if (policies != null) {
      policies.close();
    }
    if (cluster != null) {
      cluster.close();
    }
  }
}
