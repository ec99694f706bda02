package io.tcpopt.cli.operator;

import io.grpc.CallOptions;
import io.grpc.ChannelCredentials;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.ClientInterceptors;
import io.grpc.ForwardingClientCall;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.TlsChannelCredentials;
import io.tcpopt.cli.CliException;
import io.tcpopt.common.tls.CertificateKey;
import io.tcpopt.common.tls.HandshakeFailure;
import io.tcpopt.proto.v1.ApplyPolicyRequest;
import io.tcpopt.proto.v1.ApplyPolicyResponse;
import io.tcpopt.proto.v1.DiffPolicyRequest;
import io.tcpopt.proto.v1.Flow;
import io.tcpopt.proto.v1.FlowState;
import io.tcpopt.proto.v1.FlowsRequest;
import io.tcpopt.proto.v1.FlowsResponse;
import io.tcpopt.proto.v1.GetPolicyRequest;
import io.tcpopt.proto.v1.GetPolicyResponse;
import io.tcpopt.proto.v1.GroupStatus;
import io.tcpopt.proto.v1.Health;
import io.tcpopt.proto.v1.NodeInfo;
import io.tcpopt.proto.v1.NodesRequest;
import io.tcpopt.proto.v1.NodesResponse;
import io.tcpopt.proto.v1.PeerSession;
import io.tcpopt.proto.v1.DrainRequest;
import io.tcpopt.proto.v1.DrainResponse;
import io.tcpopt.proto.v1.NodeControlServiceGrpc;
import io.tcpopt.proto.v1.PolicyServiceGrpc;
import io.tcpopt.proto.v1.PolicyVersionInfo;
import io.tcpopt.proto.v1.PolicyViolation;
import io.tcpopt.proto.v1.RollbackPolicyRequest;
import io.tcpopt.proto.v1.RollbackPolicyResponse;
import io.tcpopt.proto.v1.StatusRequest;
import io.tcpopt.proto.v1.StatusResponse;
import io.tcpopt.proto.v1.StatusServiceGrpc;
import io.tcpopt.proto.v1.ValidatePolicyRequest;
import io.tcpopt.proto.v1.ValidatePolicyResponse;
import java.io.IOException;
import java.net.ConnectException;
import java.net.UnknownHostException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import javax.net.ssl.SSLException;

/**
 * The {@link ControllerClient} over the controller's gRPC API. Maps transport failures to the
 * one-line errors the CLI promises: UNAVAILABLE → "cannot reach controller at HOST:PORT",
 * UNAUTHENTICATED → "controller refused the credentials", PERMISSION_DENIED → "controller
 * refused the call: " and why (e.g. a node certificate used for an operator command),
 * INVALID_ARGUMENT → the controller's description.
 */
final class GrpcControllerClient implements ControllerClient {
  static final Metadata.Key<String> AUTHORIZATION = Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER);
  private static final long DEADLINE_SECONDS = 10;
  /** grpc-netty's description of a connection closed before any HTTP/2 answer. */
  private static final String NETWORK_CLOSED = "Network closed for unknown reason";

  private final ControllerTarget target;
  private final ManagedChannel channel;
  private final StatusServiceGrpc.StatusServiceBlockingStub status;
  private final PolicyServiceGrpc.PolicyServiceBlockingStub policy;
  private final NodeControlServiceGrpc.NodeControlServiceBlockingStub control;

  private GrpcControllerClient(ControllerTarget target) {
    this.target = target;
    this.channel = Grpc.newChannelBuilderForAddress(target.host(), target.port(), credentials(target)).build();
    Channel calls = target.token() == null ? channel : ClientInterceptors.intercept(channel, bearer(target.token()));
    this.status = StatusServiceGrpc.newBlockingStub(calls).withInterceptors(deadline());
    this.policy = PolicyServiceGrpc.newBlockingStub(calls).withInterceptors(deadline());
    this.control = NodeControlServiceGrpc.newBlockingStub(calls).withInterceptors(deadline());
  }

  private static ChannelCredentials credentials(ControllerTarget target) {
    ControllerTarget.Tls tls = target.tls();
    if (tls == null) {
      return InsecureChannelCredentials.create();
    }
    try {
      TlsChannelCredentials.Builder b = TlsChannelCredentials.newBuilder().trustManager(tls.trusted().toFile());
      if (tls.certificate() != null) {
        CertificateKey.read(tls.certificate(), tls.privateKey());
        b.keyManager(tls.certificate().toFile(), tls.privateKey().toFile());
      }
      return b.build();
    } catch (IOException | RuntimeException e) {
      throw new CliException("cannot load TLS files for the controller connection: " + e.getMessage());
    }
  }

  static ControllerClient connect(ControllerTarget target) {
    return new GrpcControllerClient(target);
  }

  /** A fresh deadline for every call (a stub's own deadline would be fixed when the stub is made). */
  private static ClientInterceptor deadline() {
    return new ClientInterceptor() {
      @Override
      public <Q, R> ClientCall<Q, R> interceptCall(MethodDescriptor<Q, R> method, CallOptions options, Channel next) {
        return next.newCall(method, options.withDeadlineAfter(DEADLINE_SECONDS, TimeUnit.SECONDS));
      }
    };
  }

  <T> T call(Supplier<T> rpc) {
    try {
      return rpc.get();
    } catch (StatusRuntimeException e) {
      SSLException tls = sslCause(e);
      if (tls != null) {
        throw new CliException("TLS with controller at " + target + " failed: " + HandshakeFailure.describe(tls, "--tls-ca " + target.tls().trusted()));
      }
      if (target.tls() == null && closedWithoutAnswer(e)) {
        throw new CliException("controller at " + target + " closed the connection without an answer; if it serves TLS (controller.tls), give --tls-ca"
            + " (TCPOPT_TLS_CA)");
      }
      throw translate(e.getStatus(), e.getCause() != null, target);
    }
  }

  /**
   * What gRPC reports when the far end accepts the connection and closes it without a word: a
   * controller serving TLS does that to a plaintext command. gRPC says so either as "Network closed
   * for unknown reason" or with the reset as its cause (both seen against the same controller);
   * a connection never made (refused, unresolvable, timed out) stays "cannot reach". Without the
   * hint the operator read gRPC's words (a stranger's fresh-clone walk, 2026-12-03 11:00 UTC).
   */
  private static boolean closedWithoutAnswer(StatusRuntimeException e) {
    if (e.getStatus().getCode() != Status.Code.UNAVAILABLE) {
      return false;
    }
    if (e.getCause() == null) {
      return NETWORK_CLOSED.equals(e.getStatus().getDescription());
    }
    for (Throwable t = e.getCause(); t != null; t = t.getCause()) {
      if (t instanceof ConnectException || t instanceof UnknownHostException) {
        return false;
      }
    }
    return true;
  }

  private static SSLException sslCause(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof SSLException) {
        return (SSLException) t;
      }
    }
    return null;
  }

  static CliException translate(Status status, boolean cause, ControllerTarget target) {
    String detail = status.getDescription() == null ? status.getCode().toString() : status.getDescription();
    switch (status.getCode()) {
      case UNAVAILABLE:
        // A transport failure carries its cause; an UNAVAILABLE sent by the controller does not.
        return cause || status.getDescription() == null
            ? new CliException("cannot reach controller at " + target)
            : new CliException("controller at " + target + ": " + detail);
      case DEADLINE_EXCEEDED:
        return new CliException("controller at " + target + " did not answer within " + DEADLINE_SECONDS + "s");
      case UNAUTHENTICATED:
        return new CliException("controller refused the credentials" + (status.getDescription() == null ? "" : ": " + detail));
      case PERMISSION_DENIED:
        return new CliException("controller refused the call: " + detail);
      case UNIMPLEMENTED:
        return new CliException("controller at " + target + " does not support this command: " + detail);
      default:
        return new CliException(detail);
    }
  }

  private static ClientInterceptor bearer(String token) {
    return new ClientInterceptor() {
      @Override
      public <Q, R> ClientCall<Q, R> interceptCall(MethodDescriptor<Q, R> method, CallOptions options, Channel next) {
        return new ForwardingClientCall.SimpleForwardingClientCall<>(next.newCall(method, options)) {
          @Override
          public void start(Listener<R> listener, Metadata headers) {
            headers.put(AUTHORIZATION, "Bearer " + token);
            super.start(listener, headers);
          }
        };
      }
    };
  }

  @Override
  public Views.ClusterStatus status() {
    StatusResponse r = call(() -> status.status(StatusRequest.getDefaultInstance()));
    List<Views.Group> groups = new ArrayList<>();
    for (GroupStatus g : r.getGroupsList()) {
      List<Views.Member> members = new ArrayList<>();
      for (NodeInfo n : g.getMembersList()) {
        members.add(new Views.Member(n.getName(), n.getHealth() == Health.RUNNING, n.getLoadPercent(), n.getDraining()));
      }
      groups.add(new Views.Group(g.getName(), g.getSite(), members));
    }
    List<Views.Session> sessions = new ArrayList<>();
    for (PeerSession p : r.getSessionsList()) {
      sessions.add(new Views.Session(p.getReporter(), p.getPeer(), p.getSite(), p.getConnectionsUp(), p.getConnectionsConfigured(),
          p.getRttMicros(), p.getCwndSegments(), p.getRetransmits(), p.getCongestionControl(), p.getReductionLanBytes(), p.getReductionPercent(),
          p.getCacheHitPercent(), p.getCacheBytes(), p.getExpressUp(), p.getExpressConfigured()));
    }
    return new Views.ClusterStatus(health(r.getHealth()), r.getReason(), r.getController() + " (" + target + ")",
        r.getPolicyVersion(), r.getPolicyName(), r.getSitesList(), groups, sessions, r.getFlowsActive(), r.getFlowCapacity(),
        r.getFlowCountsList().stream()
            .map(c -> new Views.NodeFlows(c.getNode(), c.getSite(), c.getActiveFlows(), c.getFlowCapacity()))
            .toList());
  }

  @Override
  public List<Views.Node> nodes() {
    NodesResponse r = call(() -> status.nodes(NodesRequest.getDefaultInstance()));
    List<Views.Node> out = new ArrayList<>();
    for (NodeInfo n : r.getNodesList()) {
      out.add(node(n));
    }
    return out;
  }

  private static Views.Node node(NodeInfo n) {
    List<String> roles = switch (n.getRole()) {
      case "integrated" -> List.of("controller", "service-node");
      case "" -> List.of();
      default -> List.of(n.getRole());
    };
    String state = n.getHealthReason().isEmpty() ? health(n.getHealth()) : health(n.getHealth()) + " (" + n.getHealthReason() + ")";
    return new Views.Node(n.getName(), n.getSite(), roles, n.getAddress(), state, n.getLoadPercent(), n.getActiveFlows(),
        n.getFlowCapacity(), n.getLastHeartbeatUnixMillis() == 0 ? null : Instant.ofEpochMilli(n.getLastHeartbeatUnixMillis()), n.getDraining());
  }

  @Override
  public Views.Node drain(String node, boolean undrain) {
    DrainResponse r = call(() -> control.drain(DrainRequest.newBuilder().setNode(node).setUndrain(undrain).build()));
    return node(r.getNode());
  }

  @Override
  public List<Views.Flow> flows(boolean closed) {
    FlowsResponse r = call(() -> status.flows(FlowsRequest.newBuilder().setClosed(closed).build()));
    List<Views.Flow> out = new ArrayList<>();
    for (Flow f : r.getFlowsList()) {
      out.add(new Views.Flow(f.getId(), f.getVpn(), f.getSource(), f.getDestination(), f.getSite(), f.getServiceNode(),
          String.join(",", f.getServicesList()), flowState(f.getState()), f.getBytesClientToServer(), f.getBytesServerToClient(),
          f.getRateBitsPerSecond(), f.getWanRttMicros(),
          f.getStartedUnixMillis() == 0 ? null : Instant.ofEpochMilli(f.getStartedUnixMillis()),
          Duration.ofMillis(f.getDurationMillis()), f.getReason(), f.getPeer(), f.getHttpReuse(), f.getTls(), f.getWanBytes(),
          f.getReductionPercent()));
    }
    return out;
  }

  @Override
  public Views.PolicyVersion applyPolicy(String yaml, String sourceName, long expectedActive) {
    ApplyPolicyResponse r = call(() -> policy.apply(ApplyPolicyRequest.newBuilder().setYaml(yaml)
        .setComment("tcpopt policy apply -f " + sourceName).setExpectedActiveVersion(expectedActive).build()));
    return version(r.getInfo(), yaml);
  }

  @Override
  public List<Views.PolicyError> validatePolicy(String yaml, String sourceName) {
    ValidatePolicyResponse r = call(() -> policy.validate(ValidatePolicyRequest.newBuilder().setYaml(yaml).build()));
    List<Views.PolicyError> errors = new ArrayList<>();
    for (PolicyViolation v : r.getViolationsList()) {
      errors.add(new Views.PolicyError(v.getPath(), v.getReason()));
    }
    if (!r.getValid() && errors.isEmpty()) {
      errors.add(new Views.PolicyError("", "refused by the controller"));
    }
    return errors;
  }

  @Override
  public Views.PolicyVersion policy(long version) {
    GetPolicyResponse r = call(() -> policy.get(GetPolicyRequest.newBuilder().setVersion(Math.max(0, version)).build()));
    return version(r.getPolicy().getInfo(), r.getPolicy().getYaml());
  }

  @Override
  public String diff(String candidateYaml) {
    return call(() -> policy.diff(DiffPolicyRequest.newBuilder().setToYaml(candidateYaml).build())).getUnifiedDiff();
  }

  @Override
  public Views.PolicyVersion rollback(long version, long expectedActive) {
    RollbackPolicyResponse r = call(() -> policy.rollback(
        RollbackPolicyRequest.newBuilder().setVersion(version).setExpectedActiveVersion(expectedActive).build()));
    return version(r.getInfo(), null);
  }

  private static Views.PolicyVersion version(PolicyVersionInfo info, String yaml) {
    return new Views.PolicyVersion(info.getVersion(), info.getName(), yaml,
        info.getAppliedAtUnixMillis() == 0 ? null : Instant.ofEpochMilli(info.getAppliedAtUnixMillis()));
  }

  private static String health(Health h) {
    return h == Health.HEALTH_UNSPECIFIED || h == Health.UNRECOGNIZED ? "UNKNOWN" : h.name();
  }

  private static String flowState(FlowState s) {
    return s == FlowState.FLOW_STATE_UNSPECIFIED || s == FlowState.UNRECOGNIZED ? "UNKNOWN" : s.name();
  }

  @Override
  public void close() {
    channel.shutdownNow();
    try {
      channel.awaitTermination(2, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
