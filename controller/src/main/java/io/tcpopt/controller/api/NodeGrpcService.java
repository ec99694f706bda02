package io.tcpopt.controller.api;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import io.tcpopt.controller.auth.Caller;
import io.tcpopt.controller.membership.NodeRecord;
import io.tcpopt.controller.membership.DrainOrder;
import io.tcpopt.controller.membership.NodeRegistry;
import io.tcpopt.proto.v1.DrainCommand;
import io.tcpopt.controller.membership.NodeRole;
import io.tcpopt.controller.policy.ActivePolicy;
import io.tcpopt.controller.policy.PolicyStore;
import io.tcpopt.proto.v1.HeartbeatRequest;
import io.tcpopt.proto.v1.HeartbeatResponse;
import io.tcpopt.proto.v1.NodeServiceGrpc;
import io.tcpopt.proto.v1.RegisterRequest;
import io.tcpopt.proto.v1.RegisterResponse;
import io.tcpopt.proto.v1.WatchEvent;
import io.tcpopt.proto.v1.WatchRequest;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Registration, heartbeats and the policy/peer watch stream of external service nodes. */
final class NodeGrpcService extends NodeServiceGrpc.NodeServiceImplBase {
  private static final Logger log = LoggerFactory.getLogger(NodeGrpcService.class);

  private final String controllerName;
  private final PolicyStore policies;
  private final NodeRegistry nodes;
  private final NodeReports reports;
  private final Duration heartbeatInterval;
  private final Clock clock;

  NodeGrpcService(
      String controllerName, PolicyStore policies, NodeRegistry nodes, NodeReports reports, Duration heartbeatInterval,
      Clock clock) {
    this.controllerName = controllerName;
    this.policies = policies;
    this.nodes = nodes;
    this.reports = reports;
    this.heartbeatInterval = heartbeatInterval;
    this.clock = clock;
  }

  @Override
  public void register(RegisterRequest request, StreamObserver<RegisterResponse> out) {
    Caller caller = AuthInterceptor.CALLER.get();
    PolicyGrpcService.respond(out, () -> {
      requireField(request.getName(), "name");
      requireField(request.getSite(), "site");
      if (request.getFlowCapacity() < 0) {
        throw Status.INVALID_ARGUMENT.withDescription("flow_capacity: must not be negative").asRuntimeException();
      }
      NodeRole role = role(request);
      requireSelf(caller, request.getName(), "register as");
      if (!caller.isOperator()) {
        if (role != NodeRole.SERVICE_NODE) {
          throw denied(caller, "register with role " + role.label() + " (controllers register themselves in the cluster)");
        }
        NodeRecord existing = nodes.get(request.getName()).orElse(null);
        if (existing != null && !existing.role().equals(NodeRole.SERVICE_NODE)) {
          throw denied(caller, "replace the " + existing.role().label() + " record named " + request.getName());
        }
      }
      long capacity = role.servesFlows() && request.getFlowCapacity() == 0 ? 10_000 : request.getFlowCapacity();
      nodes.register(
          request.getName(), request.getSite(), request.getGroup(), role, request.getWanAddress(),
          request.getHandoffAddress(), capacity, controllerName);
      return RegisterResponse.newBuilder()
          .setController(controllerName)
          .setHeartbeatIntervalMillis(heartbeatInterval.toMillis())
          .setExpiryMillis(nodes.expiry().toMillis())
          .setActivePolicyVersion(activeVersion())
          .build();
    });
  }

  private static NodeRole role(RegisterRequest request) {
    switch (request.getRole()) {
      case NODE_ROLE_CONTROLLER:
        return NodeRole.CONTROLLER;
      case NODE_ROLE_INTEGRATED:
        return NodeRole.INTEGRATED;
      default:
        return NodeRole.SERVICE_NODE;
    }
  }

  @Override
  public StreamObserver<HeartbeatRequest> heartbeat(StreamObserver<HeartbeatResponse> out) {
    Caller caller = AuthInterceptor.CALLER.get();
    return new StreamObserver<>() {
      @Override
      public void onNext(HeartbeatRequest beat) {
        if (beat.getName().isEmpty()) {
          out.onError(Status.INVALID_ARGUMENT.withDescription("name: is required").asRuntimeException());
          return;
        }
        try {
          requireSelf(caller, beat.getName(), "heartbeat as");
        } catch (StatusRuntimeException e) {
          out.onError(e);
          return;
        }
        NodeRegistry.Heartbeat result;
        try {
          result = nodes.heartbeat(beat.getName(), beat.getActiveFlows(), beat.getPolicyVersion(), beat.getDraining(), controllerName);
        } catch (RuntimeException e) {
          out.onError(Status.UNAVAILABLE.withDescription("membership store unavailable: " + e).asRuntimeException());
          return;
        }
        if (result.known()) {
          reports.put(beat.getName(), beat.getSessionsList(), beat.getFlowsList(), clock.millis());
        }
        out.onNext(HeartbeatResponse.newBuilder().setKnown(result.known()).setActivePolicyVersion(activeVersion())
            .setDrain(command(result.order())).build());
      }

      @Override
      public void onError(Throwable t) {
        log.debug("heartbeat stream ended: {}", t.toString());
      }

      @Override
      public void onCompleted() {
        out.onCompleted();
      }
    };
  }

  private static DrainCommand command(DrainOrder order) {
    switch (order) {
      case DRAIN:
        return DrainCommand.DRAIN_COMMAND_DRAIN;
      case UNDRAIN:
        return DrainCommand.DRAIN_COMMAND_UNDRAIN;
      default:
        return DrainCommand.DRAIN_COMMAND_NONE;
    }
  }

  @Override
  public void watch(WatchRequest request, StreamObserver<WatchEvent> plainOut) {
    try {
      requireSelf(AuthInterceptor.CALLER.get(), request.getName(), "watch as");
    } catch (StatusRuntimeException e) {
      plainOut.onError(e);
      return;
    }
    ServerCallStreamObserver<WatchEvent> out = (ServerCallStreamObserver<WatchEvent>) plainOut;
    Watcher watcher = new Watcher(out, request.getKnownPolicyVersion());
    out.setOnCancelHandler(watcher::stop);
    policies.addListener(watcher.onPolicy);
    nodes.addListener(watcher.onPeers);
    watcher.sendPeers();
  }

  /** One watch stream; sends are serialized because listeners run on several threads. */
  private final class Watcher {
    private final ServerCallStreamObserver<WatchEvent> out;
    private long sentPolicy;
    private String sentPeers = "";
    private boolean stopped;
    final Consumer<ActivePolicy> onPolicy = this::sendPolicy;
    final Runnable onPeers = this::sendPeers;

    Watcher(ServerCallStreamObserver<WatchEvent> out, long knownPolicy) {
      this.out = out;
      this.sentPolicy = knownPolicy;
    }

    synchronized void sendPolicy(ActivePolicy policy) {
      if (stopped || policy.versionNumber() <= sentPolicy) {
        return;
      }
      sentPolicy = policy.versionNumber();
      send(WatchEvent.newBuilder().setPolicy(PolicyGrpcService.policy(policy.version(), policy.versionNumber())).build());
    }

    synchronized void sendPeers() {
      if (stopped) {
        return;
      }
      List<NodeRecord> all = nodes.snapshot();
      StringBuilder key = new StringBuilder();
      WatchEvent.Builder event = WatchEvent.newBuilder();
      for (NodeRecord r : all) {
        if (!r.role().servesFlows()) {
          continue;
        }
        boolean healthy = nodes.isHealthy(r);
        key.append(r.name()).append('|').append(r.site()).append('|').append(r.address()).append('|').append(healthy).append(';');
        event.addPeers(StatusGrpcService.nodeInfo(r, healthy, nodes.expiry()));
      }
      if (key.toString().equals(sentPeers)) {
        return;
      }
      sentPeers = key.toString();
      send(event.build());
    }

    private void send(WatchEvent event) {
      try {
        out.onNext(event);
      } catch (RuntimeException e) {
        stop();
      }
    }

    synchronized void stop() {
      if (!stopped) {
        stopped = true;
        policies.removeListener(onPolicy);
        nodes.removeListener(onPeers);
      }
    }
  }

  private long activeVersion() {
    ActivePolicy a = policies.active();
    return a == null ? 0 : a.versionNumber();
  }

  /** A node may act only as the node its certificate names; operators as any. */
  private static void requireSelf(Caller caller, String name, String action) {
    if (caller == null) {
      throw Status.PERMISSION_DENIED.withDescription("unauthenticated call reached the node service").asRuntimeException();
    }
    if (!caller.isOperator() && !caller.name().equals(name)) {
      throw denied(caller, action + " \"" + name + "\"");
    }
  }

  private static StatusRuntimeException denied(Caller caller, String what) {
    log.warn("refused: {} may not {}", caller, what);
    return Status.PERMISSION_DENIED.withDescription("node certificate \"" + caller.name() + "\" may not " + what).asRuntimeException();
  }

  private static void requireField(String value, String field) {
    if (value.isBlank()) {
      throw Status.INVALID_ARGUMENT.withDescription(field + ": is required").asRuntimeException();
    }
  }

}
