package io.tcpopt.controller.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.rpc.BadRequest;
import io.grpc.CallCredentials;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.grpc.protobuf.StatusProto;
import io.grpc.stub.StreamObserver;
import io.tcpopt.controller.LocalServiceNode;
import io.tcpopt.controller.Policies;
import io.tcpopt.controller.TestClusters;
import io.tcpopt.controller.auth.Authenticator;
import io.tcpopt.controller.cluster.ClusterMember;
import io.tcpopt.controller.distribution.FlowDispatcher;
import io.tcpopt.controller.membership.NodeRegistry;
import io.tcpopt.controller.policy.PolicyStore;
import io.tcpopt.proto.v1.ApplyPolicyRequest;
import io.tcpopt.proto.v1.ApplyPolicyResponse;
import io.tcpopt.proto.v1.DiffPolicyRequest;
import io.tcpopt.proto.v1.Flow;
import io.tcpopt.proto.v1.FlowState;
import io.tcpopt.proto.v1.FlowsRequest;
import io.tcpopt.proto.v1.FlowsResponse;
import io.tcpopt.proto.v1.GetPolicyRequest;
import io.tcpopt.proto.v1.Health;
import io.tcpopt.proto.v1.HeartbeatRequest;
import io.tcpopt.proto.v1.HeartbeatResponse;
import io.tcpopt.proto.v1.ListPolicyVersionsRequest;
import io.tcpopt.proto.v1.ListPolicyVersionsResponse;
import io.tcpopt.proto.v1.NodeInfo;
import io.tcpopt.proto.v1.NodeRole;
import io.tcpopt.proto.v1.NodeServiceGrpc;
import io.tcpopt.proto.v1.NodesRequest;
import io.tcpopt.proto.v1.PeerSession;
import io.tcpopt.proto.v1.PolicyServiceGrpc;
import io.tcpopt.proto.v1.RegisterRequest;
import io.tcpopt.proto.v1.RegisterResponse;
import io.tcpopt.proto.v1.RollbackPolicyRequest;
import io.tcpopt.proto.v1.StatusRequest;
import io.tcpopt.proto.v1.StatusResponse;
import io.tcpopt.proto.v1.StatusServiceGrpc;
import io.tcpopt.proto.v1.ValidatePolicyRequest;
import io.tcpopt.proto.v1.ValidatePolicyResponse;
import io.tcpopt.proto.v1.WatchEvent;
import io.tcpopt.proto.v1.WatchRequest;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Every call of the three services, in-process, against a one-member cluster. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ControllerApiTest {
  private static final String TOKEN = "s3cret-token";

  private ClusterMember cluster;
  private PolicyStore policies;
  private NodeRegistry nodes;
  private Server server;
  private ManagedChannel channel;
  private PolicyServiceGrpc.PolicyServiceBlockingStub policy;
  private StatusServiceGrpc.StatusServiceBlockingStub status;
  private NodeServiceGrpc.NodeServiceBlockingStub node;
  private NodeServiceGrpc.NodeServiceStub nodeAsync;

  /** The integrated service node, with two active flows, one closed flow and a session. */
  static final class FakeLocalNode implements LocalServiceNode {
    volatile FlowDispatcher dispatcher;

    @Override
    public String name() {
      return "br-int";
    }

    @Override
    public String site() {
      return "branch";
    }

    @Override
    public String wanAddress() {
      return "198.18.0.1:7800";
    }

    @Override
    public long flowCapacity() {
      return 1000;
    }

    @Override
    public long activeFlows() {
      return 2;
    }

    @Override
    public List<Flow> flows(boolean closed) {
      if (closed) {
        return List.of(flow("f3", "198.18.1.2:40003", "198.19.1.2:80", FlowState.CLOSED).toBuilder().setReason("client closed").build());
      }
      return List.of(
          flow("f1", "198.18.1.2:40001", "198.19.1.2:5201", FlowState.OPTIMIZED),
          flow("f2", "198.18.1.3:40002", "198.19.1.2:22", FlowState.PASS_THROUGH));
    }

    private static Flow flow(String id, String src, String dst, FlowState state) {
      return Flow.newBuilder().setId(id).setSource(src).setDestination(dst).setState(state).setBytesClientToServer(1000).build();
    }

    @Override
    public List<PeerSession> sessions() {
      return List.of(
          PeerSession.newBuilder().setPeer("dc-1").setSite("dc").setConnectionsUp(4).setConnectionsConfigured(4)
              .setRttMicros(200_000).setCongestionControl("bbr").build());
    }

    @Override
    public void decider(FlowDispatcher dispatcher) {
      this.dispatcher = dispatcher;
    }
  }

  @BeforeAll
  void start() throws Exception {
    cluster = TestClusters.start(TestClusters.single(), "ctl-api");
    policies = new PolicyStore(cluster, "ctl-api", Clock.systemUTC(), Duration.ofSeconds(1));
    nodes = new NodeRegistry(cluster, Clock.systemUTC(), Duration.ofSeconds(5));
    nodes.register("br-int", "branch", "", io.tcpopt.controller.membership.NodeRole.INTEGRATED, "198.18.0.1:7800", "", 1000, "ctl-api");
    FakeLocalNode local = new FakeLocalNode();
    ControllerApi api =
        new ControllerApi(
            new ControllerApi.Context("ctl-api", "branch", cluster, policies, nodes, () -> Optional.of(local),
                Duration.ofMillis(500), Clock.systemUTC()),
            new Authenticator(Optional.of(TOKEN), false, List.of()));
    String name = InProcessServerBuilder.generateName();
    InProcessServerBuilder builder = InProcessServerBuilder.forName(name).directExecutor();
    api.services().forEach(builder::addService);
    server = builder.build().start();
    channel = InProcessChannelBuilder.forName(name).directExecutor().build();
    CallCredentials bearer = bearer(TOKEN);
    policy = PolicyServiceGrpc.newBlockingStub(channel).withCallCredentials(bearer);
    status = StatusServiceGrpc.newBlockingStub(channel).withCallCredentials(bearer);
    node = NodeServiceGrpc.newBlockingStub(channel).withCallCredentials(bearer);
    nodeAsync = NodeServiceGrpc.newStub(channel).withCallCredentials(bearer);
    policy.apply(ApplyPolicyRequest.newBuilder().setYaml(Policies.BRANCH_TO_DC).setComment("initial").build());
  }

  @AfterAll
  void stop() throws Exception {
    channel.shutdownNow().awaitTermination(2, TimeUnit.SECONDS);
    server.shutdownNow().awaitTermination(2, TimeUnit.SECONDS);
    nodes.close();
    policies.close();
    cluster.close();
  }

  static CallCredentials bearer(String token) {
    return new CallCredentials() {
      @Override
      public void applyRequestMetadata(RequestInfo info, Executor executor, MetadataApplier applier) {
        Metadata m = new Metadata();
        m.put(AuthInterceptor.AUTHORIZATION, "Bearer " + token);
        applier.apply(m);
      }
    };
  }

  // ---- policy service ---------------------------------------------------------------------------

  @Test
  void applyGetListRollbackAndDiff() {
    policy.apply(ApplyPolicyRequest.newBuilder().setYaml(Policies.BRANCH_TO_DC).build());
    ApplyPolicyResponse applied =
        policy.apply(ApplyPolicyRequest.newBuilder().setYaml(Policies.DROP_SSH).setComment("drop ssh").build());
    long v = applied.getInfo().getVersion();
    assertEquals("drop-ssh", applied.getInfo().getName());
    assertTrue(applied.getInfo().getActive());
    assertEquals(64, applied.getInfo().getSha256().length());

    assertEquals(Policies.DROP_SSH, policy.get(GetPolicyRequest.getDefaultInstance()).getPolicy().getYaml());
    assertEquals(v, policy.get(GetPolicyRequest.getDefaultInstance()).getPolicy().getInfo().getVersion());
    assertFalse(policy.get(GetPolicyRequest.newBuilder().setVersion(v - 1).build()).getPolicy().getInfo().getActive());

    ListPolicyVersionsResponse list = policy.listVersions(ListPolicyVersionsRequest.getDefaultInstance());
    assertEquals(v, list.getActiveVersion());
    assertEquals(v, list.getVersions(0).getVersion(), "newest first");
    assertEquals(1, list.getVersionsList().stream().filter(i -> i.getActive()).count());

    String diff = policy.diff(DiffPolicyRequest.newBuilder().setFromVersion(v - 1).setToVersion(v).build()).getUnifiedDiff();
    assertTrue(diff.contains("-  name: branch-to-dc"), diff);
    assertTrue(diff.contains("+  name: drop-ssh"), diff);

    long restored =
        policy.rollback(RollbackPolicyRequest.newBuilder().setVersion(v - 1).build()).getInfo().getVersion();
    assertEquals(v + 1, restored);
    assertEquals(Policies.BRANCH_TO_DC, policy.get(GetPolicyRequest.getDefaultInstance()).getPolicy().getYaml());
    assertEquals("rollback to v" + (v - 1), policy.get(GetPolicyRequest.getDefaultInstance()).getPolicy().getInfo().getComment());

    assertEquals(Status.Code.NOT_FOUND, code(() -> policy.get(GetPolicyRequest.newBuilder().setVersion(9_999).build())));
    assertEquals(Status.Code.NOT_FOUND, code(() -> policy.rollback(RollbackPolicyRequest.newBuilder().setVersion(9_999).build())));
    assertEquals(Status.Code.INVALID_ARGUMENT, code(() -> policy.rollback(RollbackPolicyRequest.newBuilder().setVersion(0).build())));
  }

  @Test
  void applyWithAStaleExpectedVersionIsAborted() {
    long active = policy.listVersions(ListPolicyVersionsRequest.getDefaultInstance()).getActiveVersion();
    StatusRuntimeException e =
        assertThrows(StatusRuntimeException.class, () -> policy.apply(
            ApplyPolicyRequest.newBuilder().setYaml(Policies.DROP_SSH).setExpectedActiveVersion(active + 100).build()));
    assertEquals(Status.Code.ABORTED, e.getStatus().getCode());
    assertEquals(active, policy.listVersions(ListPolicyVersionsRequest.getDefaultInstance()).getActiveVersion());
  }

  @Test
  void validateReportsEveryViolationWithoutStoring() {
    int stored = policy.listVersions(ListPolicyVersionsRequest.getDefaultInstance()).getVersionsCount();
    ValidatePolicyResponse ok = policy.validate(ValidatePolicyRequest.newBuilder().setYaml(Policies.DROP_SSH).build());
    assertTrue(ok.getValid());
    assertEquals("drop-ssh", ok.getName());
    ValidatePolicyResponse bad =
        policy.validate(ValidatePolicyRequest.newBuilder().setYaml(Policies.DROP_SSH.replace("BR10, destination", "BR99, destination")
            .replace("SNG-BR }", "SNG-NONE }")).build());
    assertFalse(bad.getValid());
    assertEquals(2, bad.getViolationsCount(), bad.toString());
    assertEquals("data-policy.sequences[1].match.source-prefix-list", bad.getViolations(0).getPath());
    assertEquals("data-policy.sequences[1].action.optimize.service-node-group", bad.getViolations(1).getPath());
    assertEquals(stored, policy.listVersions(ListPolicyVersionsRequest.getDefaultInstance()).getVersionsCount());
  }

  static Stream<Arguments> badPolicies() {
    String good = Policies.BRANCH_TO_DC;
    return Stream.of(
        Arguments.of("unknown prefix list", good.replace("source-prefix-list: BR10", "source-prefix-list: BR11"),
            "data-policy.sequences[0].match.source-prefix-list"),
        Arguments.of("unknown group", good.replace("service-node-group: SNG-BR", "service-node-group: SNG-XX"),
            "data-policy.sequences[0].action.optimize.service-node-group"),
        Arguments.of("unknown profile",
            good.replace("service-node-group: SNG-BR }", "service-node-group: SNG-BR, profiles: { wan: turbo } }"),
            "data-policy.sequences[0].action.optimize.profiles.wan"),
        Arguments.of("repeated seq",
            good.replace("  default-action", "    - seq: 10\n      action: drop\n  default-action"),
            "data-policy.sequences[1].seq"),
        Arguments.of("bad CIDR", good.replace("198.18.1.0/24", "198.18.1.0/33"), "prefix-lists.BR10[0]"),
        Arguments.of("bad port range", good.replace("destination-prefix-list: DC100 }", "destination-prefix-list: DC100, destination-port: 90-80 }"),
            "data-policy.sequences[0].match.destination-port"),
        Arguments.of("empty", "", "data-policy"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("badPolicies")
  void badPoliciesAreRefusedWithTheFieldPathAndNothingChanges(String what, String yaml, String path) {
    ListPolicyVersionsResponse before = policy.listVersions(ListPolicyVersionsRequest.getDefaultInstance());
    StatusRuntimeException e =
        assertThrows(StatusRuntimeException.class, () -> policy.apply(ApplyPolicyRequest.newBuilder().setYaml(yaml).build()));
    assertEquals(Status.Code.INVALID_ARGUMENT, e.getStatus().getCode(), what);
    assertTrue(e.getStatus().getDescription().startsWith(path + ": "), e.getStatus().getDescription());
    com.google.rpc.Status details = StatusProto.fromThrowable(e);
    assertNotNull(details);
    BadRequest bad = details.getDetailsList().stream()
        .filter(a -> a.is(BadRequest.class))
        .map(a -> {
          try {
            return a.unpack(BadRequest.class);
          } catch (com.google.protobuf.InvalidProtocolBufferException x) {
            throw new AssertionError(x);
          }
        })
        .findFirst().orElseThrow();
    assertEquals(path, bad.getFieldViolations(0).getField());
    ListPolicyVersionsResponse after = policy.listVersions(ListPolicyVersionsRequest.getDefaultInstance());
    assertEquals(before, after, "nothing stored, active version unchanged");
  }

  @Test
  void hostileYamlIsRefusedAndNothingIsStored() {
    ListPolicyVersionsResponse before = policy.listVersions(ListPolicyVersionsRequest.getDefaultInstance());
    StringBuilder bomb = new StringBuilder("a: &a [x, x, x, x, x, x, x, x, x]\n");
    for (char c = 'b'; c <= 'i'; c++) {
      bomb.append(c).append(": &").append(c).append(" [").append(("*" + (char) (c - 1) + ",").repeat(8)).append('*').append((char) (c - 1)).append("]\n");
    }
    StringBuilder prefixes = new StringBuilder("prefix-lists:\n  BIG:\n");
    for (int i = 0; prefixes.length() < (2 << 20); i++) {
      prefixes.append("    - 10.").append((i >> 16) & 255).append('.').append((i >> 8) & 255).append('.').append(i & 255).append("/32\n");
    }
    for (String yaml : List.of(bomb.toString(), "a: " + "[".repeat(10_000) + "]".repeat(10_000), prefixes.toString())) {
      StatusRuntimeException e =
          assertThrows(StatusRuntimeException.class, () -> policy.apply(ApplyPolicyRequest.newBuilder().setYaml(yaml).build()));
      assertEquals(Status.Code.INVALID_ARGUMENT, e.getStatus().getCode());
      String why = e.getStatus().getDescription();
      assertTrue(why.contains("alias bombs are refused") || why.contains("nested more than 32 levels") || why.contains("at most 1 MiB"), why);
    }
    assertEquals(before, policy.listVersions(ListPolicyVersionsRequest.getDefaultInstance()), "nothing stored");
  }

  // ---- authentication ---------------------------------------------------------------------------

  @Test
  void callsWithoutOrWithAWrongTokenAreUnauthenticated() {
    PolicyServiceGrpc.PolicyServiceBlockingStub anonymous = PolicyServiceGrpc.newBlockingStub(channel);
    PolicyServiceGrpc.PolicyServiceBlockingStub wrong = anonymous.withCallCredentials(bearer("guess"));
    assertEquals(Status.Code.UNAUTHENTICATED, code(() -> anonymous.listVersions(ListPolicyVersionsRequest.getDefaultInstance())));
    assertEquals(Status.Code.UNAUTHENTICATED, code(() -> wrong.apply(ApplyPolicyRequest.newBuilder().setYaml(Policies.DROP_SSH).build())));
    assertEquals(Status.Code.UNAUTHENTICATED, code(() -> StatusServiceGrpc.newBlockingStub(channel).status(StatusRequest.getDefaultInstance())));
    assertEquals(Status.Code.UNAUTHENTICATED, code(() -> NodeServiceGrpc.newBlockingStub(channel).register(register("intruder"))));
    assertTrue(nodes.get("intruder").isEmpty());
  }

  // ---- node service -----------------------------------------------------------------------------

  private static RegisterRequest register(String name) {
    return RegisterRequest.newBuilder().setName(name).setSite("branch").setRole(NodeRole.NODE_ROLE_SERVICE_NODE)
        .setWanAddress("198.18.0.5:7800").setHandoffAddress("198.18.0.5:7901").setFlowCapacity(500).build();
  }

  @Test
  void registerHeartbeatAndSeeTheNode() throws Exception {
    RegisterResponse r = node.register(register("sn-ext-1"));
    assertEquals("ctl-api", r.getController());
    assertEquals(500, r.getHeartbeatIntervalMillis());
    assertEquals(5000, r.getExpiryMillis());
    assertTrue(r.getActivePolicyVersion() > 0);
    assertEquals(Status.Code.INVALID_ARGUMENT, code(() -> node.register(RegisterRequest.newBuilder().setSite("x").build())));

    BlockingQueue<HeartbeatResponse> acks = new LinkedBlockingQueue<>();
    StreamObserver<HeartbeatRequest> beats = nodeAsync.heartbeat(collect(acks));
    beats.onNext(HeartbeatRequest.newBuilder().setName("sn-ext-1").setActiveFlows(42).setPolicyVersion(r.getActivePolicyVersion())
        .addSessions(PeerSession.newBuilder().setPeer("dc-1").setConnectionsUp(3).setConnectionsConfigured(4))
        .addFlows(Flow.newBuilder().setId("x1").setSource("198.18.1.9:5000").setDestination("198.19.1.2:443").setState(FlowState.OPTIMIZED))
        .build());
    beats.onNext(HeartbeatRequest.newBuilder().setName("sn-unknown").build());
    HeartbeatResponse first = acks.poll(5, TimeUnit.SECONDS);
    HeartbeatResponse second = acks.poll(5, TimeUnit.SECONDS);
    beats.onCompleted();
    assertTrue(first.getKnown());
    assertFalse(second.getKnown(), "unknown nodes are told to register");

    NodeInfo info = status.nodes(NodesRequest.newBuilder().setSite("branch").build()).getNodesList().stream()
        .filter(n -> n.getName().equals("sn-ext-1")).findFirst().orElseThrow();
    assertEquals(42, info.getActiveFlows());
    assertEquals(Health.RUNNING, info.getHealth());
    assertEquals("198.18.0.5:7901", info.getHandoffAddress());
    assertEquals(8.4, info.getLoadPercent(), 0.001);
    assertTrue(status.nodes(NodesRequest.newBuilder().setSite("dc").build()).getNodesList().isEmpty());

    FlowsResponse reported = status.flows(FlowsRequest.newBuilder().setNode("sn-ext-1").build());
    assertEquals(List.of("x1"), reported.getFlowsList().stream().map(Flow::getId).toList());
    StatusResponse s = status.status(StatusRequest.getDefaultInstance());
    assertTrue(s.getSessionsList().stream().anyMatch(p -> p.getReporter().equals("sn-ext-1") && p.getConnectionsUp() == 3));
    nodes.deregister("sn-ext-1");
  }

  @Test
  void watchPushesThePolicyAndPeerChanges() throws Exception {
    BlockingQueue<WatchEvent> events = new LinkedBlockingQueue<>();
    nodeAsync.watch(WatchRequest.newBuilder().setName("sn-watch").build(), collect(events));
    WatchEvent first = events.poll(5, TimeUnit.SECONDS);
    WatchEvent second = events.poll(5, TimeUnit.SECONDS);
    assertNotNull(first);
    assertNotNull(second);
    WatchEvent withPolicy = first.hasPolicy() ? first : second;
    WatchEvent withPeers = first.hasPolicy() ? second : first;
    long active = policy.listVersions(ListPolicyVersionsRequest.getDefaultInstance()).getActiveVersion();
    assertEquals(active, withPolicy.getPolicy().getInfo().getVersion());
    assertTrue(withPeers.getPeersList().stream().anyMatch(p -> p.getName().equals("br-int")));

    long next = policy.apply(ApplyPolicyRequest.newBuilder().setYaml(Policies.DROP_SSH).setComment("watch").build()).getInfo().getVersion();
    WatchEvent pushed = next(events, e -> e.hasPolicy() && e.getPolicy().getInfo().getVersion() == next);
    assertEquals(Policies.DROP_SSH, pushed.getPolicy().getYaml());

    node.register(register("sn-watch-peer"));
    next(events, e -> e.getPeersList().stream().anyMatch(p -> p.getName().equals("sn-watch-peer")));
    nodes.deregister("sn-watch-peer");
  }

  // ---- status service ---------------------------------------------------------------------------

  @Test
  void statusShowsPolicyGroupsSessionsAndCapacity() {
    nodes.heartbeat("br-int", 0, 0, "ctl-api");
    StatusResponse s = status.status(StatusRequest.getDefaultInstance());
    assertEquals("ctl-api", s.getController());
    assertEquals(policy.listVersions(ListPolicyVersionsRequest.getDefaultInstance()).getActiveVersion(), s.getPolicyVersion());
    assertEquals(Health.RUNNING, s.getHealth(), s.getReason());
    assertTrue(s.getClusterQuorum());
    assertEquals(1, s.getClusterMembers());
    assertTrue(s.getSitesList().contains("branch"));
    assertEquals("SNG-BR", s.getGroups(0).getName());
    assertTrue(s.getGroups(0).getMembersList().stream().anyMatch(m -> m.getName().equals("br-int")));
    assertTrue(s.getSessionsList().stream().anyMatch(p -> p.getPeer().equals("dc-1") && p.getReporter().equals("br-int")
        && p.getCongestionControl().equals("bbr")));
    assertTrue(s.getFlowCapacity() >= 1000);
    // The integrated node counts live (2), not as of its last heartbeat; the total is what the listed nodes hold.
    assertTrue(s.getFlowCountsList().stream().anyMatch(c -> c.getNode().equals("br-int") && c.getActiveFlows() == 2
        && c.getFlowCapacity() == 1000), s.getFlowCountsList().toString());
    assertEquals(s.getFlowCountsList().stream().mapToLong(c -> c.getActiveFlows()).sum(), s.getFlowsActive());
  }

  @Test
  void flowsAreFilteredBySiteNodeAddressPortStateAndClosed() {
    assertEquals(List.of("f1", "f2"), ids(FlowsRequest.newBuilder().setNode("br-int").build()));
    assertEquals(List.of("f1"), ids(FlowsRequest.newBuilder().setNode("br-int").setPort(5201).build()));
    assertEquals(List.of("f2"), ids(FlowsRequest.newBuilder().setNode("br-int").setAddress("198.18.1.3").build()));
    assertEquals(List.of("f2"), ids(FlowsRequest.newBuilder().setNode("br-int").setState(FlowState.PASS_THROUGH).build()));
    assertEquals(List.of("f1", "f2"), ids(FlowsRequest.newBuilder().setSite("branch").setNode("br-int").build()));
    assertEquals(List.of(), ids(FlowsRequest.newBuilder().setSite("dc").build()));
    assertEquals(List.of("f3"), ids(FlowsRequest.newBuilder().setNode("br-int").setClosed(true).build()));
    FlowsResponse limited = status.flows(FlowsRequest.newBuilder().setNode("br-int").setLimit(1).build());
    assertEquals(1, limited.getFlowsCount());
    assertTrue(limited.getTruncated());
    Flow f1 = status.flows(FlowsRequest.newBuilder().setPort(5201).build()).getFlows(0);
    assertEquals("br-int", f1.getServiceNode());
    assertEquals("branch", f1.getSite());
  }

  private List<String> ids(FlowsRequest r) {
    return status.flows(r).getFlowsList().stream().map(Flow::getId).toList();
  }

  /** The first event matching {@code wanted} within 5 s (peer health changes may come in between). */
  private static WatchEvent next(BlockingQueue<WatchEvent> events, java.util.function.Predicate<WatchEvent> wanted)
      throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (System.nanoTime() < deadline) {
      WatchEvent e = events.poll(100, TimeUnit.MILLISECONDS);
      if (e != null && wanted.test(e)) {
        return e;
      }
    }
    throw new AssertionError("expected watch event not pushed within 5 s");
  }

  private static <T> StreamObserver<T> collect(BlockingQueue<T> queue) {
    return new StreamObserver<>() {
      @Override
      public void onNext(T value) {
        queue.add(value);
      }

      @Override
      public void onError(Throwable t) {}

      @Override
      public void onCompleted() {}
    };
  }

  private static Status.Code code(Runnable call) {
    StatusRuntimeException e = assertThrows(StatusRuntimeException.class, call::run);
    return e.getStatus().getCode();
  }

}
