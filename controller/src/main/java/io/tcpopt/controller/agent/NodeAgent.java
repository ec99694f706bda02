package io.tcpopt.controller.agent;

import io.grpc.CallCredentials;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;
import io.grpc.stub.StreamObserver;
import io.tcpopt.proto.v1.HeartbeatRequest;
import io.tcpopt.proto.v1.HeartbeatResponse;
import io.tcpopt.proto.v1.NodeInfo;
import io.tcpopt.proto.v1.NodeServiceGrpc;
import io.tcpopt.proto.v1.Policy;
import io.tcpopt.proto.v1.RegisterRequest;
import io.tcpopt.proto.v1.RegisterResponse;
import io.tcpopt.proto.v1.WatchEvent;
import io.tcpopt.proto.v1.WatchRequest;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps one service node known to the controller cluster over a gRPC channel the caller owns (TLS
 * with the node's certificate in production, in-process in tests):
 *
 * <ul>
 *   <li>registers, then sends a heartbeat (built by {@code state}) every interval the controller
 *       asked for; re-registers when the controller no longer knows the node;
 *   <li>keeps a watch stream open and hands every pushed policy and peer list to the listeners;
 *   <li>retries everything with exponential backoff (capped at {@code maxBackoff}) while the
 *       controller is unreachable, keeping the last policy it received.
 * </ul>
 *
 * All work runs on one scheduler thread of its own; listeners are called on gRPC threads.
 */
public final class NodeAgent implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(NodeAgent.class);

  private final NodeServiceGrpc.NodeServiceStub stub;
  private final RegisterRequest registration;
  private final Supplier<HeartbeatRequest> state;
  private final Consumer<Policy> onPolicy;
  private final Consumer<List<NodeInfo>> onPeers;
  private final Duration maxBackoff;
  private final ScheduledExecutorService scheduler;
  private volatile boolean closed;
  private volatile boolean registered;
  private volatile Policy policy;
  private volatile Duration heartbeatInterval = Duration.ofSeconds(1);
  private StreamObserver<HeartbeatRequest> beats;
  private ClientCallStreamObserver<WatchRequest> watch;
  private long generation;
  private long registerBackoffMillis = 100;
  private long watchBackoffMillis = 100;

  private NodeAgent(
      ManagedChannel channel, Optional<String> token, RegisterRequest registration, Supplier<HeartbeatRequest> state,
      Consumer<Policy> onPolicy, Consumer<List<NodeInfo>> onPeers, Duration maxBackoff) {
    NodeServiceGrpc.NodeServiceStub s = NodeServiceGrpc.newStub(channel);
    this.stub = token.isPresent() ? s.withCallCredentials(bearer(token.get())) : s;
    this.registration = registration;
    this.state = state;
    this.onPolicy = onPolicy;
    this.onPeers = onPeers;
    this.maxBackoff = maxBackoff;
    this.scheduler = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "tcpopt-node-agent-" + registration.getName());
      t.setDaemon(true);
      return t;
    });
  }

  /**
   * Starts registering and watching in the background.
   *
   * @param token bearer token when the controller uses one instead of client certificates
   * @param state the node's current load, sessions and flows; the agent fills in the name
   */
  public static NodeAgent start(
      ManagedChannel channel, Optional<String> token, RegisterRequest registration, Supplier<HeartbeatRequest> state,
      Consumer<Policy> onPolicy, Consumer<List<NodeInfo>> onPeers, Duration maxBackoff) {
    NodeAgent agent = new NodeAgent(channel, token, registration, state, onPolicy, onPeers, maxBackoff);
    agent.scheduler.execute(agent::register);
    agent.scheduler.execute(agent::watch);
    return agent;
  }

  /** The last policy pushed by a controller, if any. */
  public Optional<Policy> policy() {
    return Optional.ofNullable(policy);
  }

  public boolean registered() {
    return registered;
  }

  private void register() {
    if (closed) {
      return;
    }
    stub.register(registration, new StreamObserver<RegisterResponse>() {
      @Override
      public void onNext(RegisterResponse r) {
        heartbeatInterval = Duration.ofMillis(Math.max(50, r.getHeartbeatIntervalMillis()));
        registered = true;
        log.info("node {} registered with controller {} (heartbeat every {} ms)", registration.getName(), r.getController(),
            heartbeatInterval.toMillis());
      }

      @Override
      public void onError(Throwable t) {
        registered = false;
        log.debug("registration of {} failed: {}", registration.getName(), t.toString());
        scheduler.execute(() -> later(NodeAgent.this::register, registerBackoffMillis = backoff(registerBackoffMillis)));
      }

      @Override
      public void onCompleted() {
        scheduler.execute(() -> {
          registerBackoffMillis = 100;
          openHeartbeats();
          long current = ++generation;
          later(() -> beat(current), heartbeatInterval.toMillis());
        });
      }
    });
  }

  private void openHeartbeats() {
    beats = stub.heartbeat(new StreamObserver<HeartbeatResponse>() {
      @Override
      public void onNext(HeartbeatResponse ack) {
        if (!ack.getKnown() && registered) {
          registered = false;
          scheduler.execute(NodeAgent.this::reRegister);
        }
      }

      @Override
      public void onError(Throwable t) {
        log.debug("heartbeat stream of {} failed: {}", registration.getName(), t.toString());
        scheduler.execute(NodeAgent.this::reRegister);
      }

      @Override
      public void onCompleted() {}
    });
  }

  private void reRegister() {
    if (beats != null) {
      StreamObserver<HeartbeatRequest> old = beats;
      beats = null;
      try {
        old.onCompleted();
      } catch (RuntimeException e) {
        // already broken
      }
      later(this::register, registerBackoffMillis = backoff(registerBackoffMillis));
    }
  }

  private void beat(long loop) {
    if (closed || beats == null || loop != generation) {
      return; // a newer registration runs its own heartbeat loop
    }
    try {
      beats.onNext(state.get().toBuilder().setName(registration.getName()).build());
    } catch (RuntimeException e) {
      log.debug("heartbeat of {} failed: {}", registration.getName(), e.toString());
    }
    later(() -> beat(loop), heartbeatInterval.toMillis());
  }

  private void watch() {
    if (closed) {
      return;
    }
    long known = policy == null ? 0 : policy.getInfo().getVersion();
    stub.watch(WatchRequest.newBuilder().setName(registration.getName()).setKnownPolicyVersion(known).build(),
        new ClientResponseObserver<WatchRequest, WatchEvent>() {
          @Override
          public void beforeStart(ClientCallStreamObserver<WatchRequest> call) {
            watch = call;
          }

          @Override
          public void onNext(WatchEvent event) {
            watchBackoffMillis = 100;
            if (event.hasPolicy()) {
              policy = event.getPolicy();
              onPolicy.accept(event.getPolicy());
            }
            if (event.getPeersCount() > 0) {
              onPeers.accept(event.getPeersList());
            }
          }

          @Override
          public void onError(Throwable t) {
            log.debug("watch stream of {} ended: {}", registration.getName(), t.toString());
            scheduler.execute(() -> later(NodeAgent.this::watch, watchBackoffMillis = backoff(watchBackoffMillis)));
          }

          @Override
          public void onCompleted() {
            scheduler.execute(() -> later(NodeAgent.this::watch, watchBackoffMillis = backoff(watchBackoffMillis)));
          }
        });
  }

  private long backoff(long current) {
    return Math.min(current * 2, maxBackoff.toMillis());
  }

  private void later(Runnable task, long millis) {
    if (!closed) {
      try {
        scheduler.schedule(task, millis, TimeUnit.MILLISECONDS);
      } catch (java.util.concurrent.RejectedExecutionException e) {
        // closing
      }
    }
  }

  @Override
  public void close() {
    closed = true;
    scheduler.execute(() -> {
      if (watch != null) {
        watch.cancel("node agent closed", null);
      }
      if (beats != null) {
        try {
          beats.onCompleted();
        } catch (RuntimeException e) {
          // already broken
        }
      }
    });
    scheduler.shutdown();
    try {
      scheduler.awaitTermination(2, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static CallCredentials bearer(String token) {
    return new CallCredentials() {
      @Override
      public void applyRequestMetadata(RequestInfo info, Executor executor, MetadataApplier applier) {
        Metadata m = new Metadata();
        m.put(Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER), "Bearer " + token);
        applier.apply(m);
      }
    };
  }
}
