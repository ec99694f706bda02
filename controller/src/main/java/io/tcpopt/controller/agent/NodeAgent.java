package io.tcpopt.controller.agent;

import io.grpc.CallCredentials;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;
import io.grpc.stub.StreamObserver;
import io.tcpopt.proto.v1.DrainCommand;
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
import java.util.ArrayList;
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
 * Keeps one service node known to the controller cluster over gRPC channels the caller owns, one
 * per controller of its site (TLS with the node's certificate in production, in-process in tests):
 *
 * <ul>
 *   <li>registers with the current controller, then sends a heartbeat (built by {@code state})
 *       every interval the controller asked for; re-registers when the controller no longer knows
 *       the node or the heartbeat stream breaks;
 *   <li>fails over: a registration that fails moves on to the next controller of the list (all of
 *       them share one Hazelcast cluster, so any one will do); the watch follows;
 *   <li>keeps a watch stream open and hands every pushed policy and peer list to the listeners;
 *   <li>retries with exponential backoff (capped at {@code maxBackoff}) once every controller has
 *       failed in a row, keeping the last policy it received meanwhile.
 * </ul>
 *
 * All work runs on one scheduler thread of its own; listeners are called on gRPC threads.
 */
public final class NodeAgent implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(NodeAgent.class);

  private final List<NodeServiceGrpc.NodeServiceStub> stubs;
  private final List<String> targets;
  private final RegisterRequest registration;
  private final Supplier<HeartbeatRequest> state;
  private final Consumer<Policy> onPolicy;
  private final Consumer<List<NodeInfo>> onPeers;
  private final Duration maxBackoff;
  private final ScheduledExecutorService scheduler;
  private volatile boolean closed;
  private volatile boolean registered;
  private volatile Policy policy;
  private volatile Consumer<Boolean> onDrain = on -> {};
  private volatile Duration heartbeatInterval = Duration.ofSeconds(1);
  private StreamObserver<HeartbeatRequest> beats;
  private ClientCallStreamObserver<WatchRequest> watch;
  private long generation;
  private long registerBackoffMillis = 100;
  private long watchBackoffMillis = 100;
  /** The controller registrations and the watch go to; moved on by {@link #failover}. */
  private volatile int current;
  /** Controllers that failed in a row: a full round of them backs off, a partial one tries the next at once. */
  private int failedInRow;

  private NodeAgent(
      List<ManagedChannel> channels, Optional<String> token, RegisterRequest registration, Supplier<HeartbeatRequest> state,
      Consumer<Policy> onPolicy, Consumer<List<NodeInfo>> onPeers, Duration maxBackoff) {
    if (channels.isEmpty()) {
      throw new IllegalArgumentException("no controller channel");
    }
    List<NodeServiceGrpc.NodeServiceStub> list = new ArrayList<>();
    List<String> names = new ArrayList<>();
    for (ManagedChannel channel : channels) {
      NodeServiceGrpc.NodeServiceStub s = NodeServiceGrpc.newStub(channel);
      list.add(token.isPresent() ? s.withCallCredentials(bearer(token.get())) : s);
      names.add(channel.authority());
    }
    this.stubs = List.copyOf(list);
    this.targets = List.copyOf(names);
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
    return start(List.of(channel), token, registration, state, onPolicy, onPeers, maxBackoff);
  }

  /** As the single-channel {@code start}, with one channel per controller, failing over along them in order. */
  public static NodeAgent start(
      List<ManagedChannel> channels, Optional<String> token, RegisterRequest registration, Supplier<HeartbeatRequest> state,
      Consumer<Policy> onPolicy, Consumer<List<NodeInfo>> onPeers, Duration maxBackoff) {
    NodeAgent agent = new NodeAgent(channels, token, registration, state, onPolicy, onPeers, maxBackoff);
    agent.scheduler.execute(agent::register);
    agent.scheduler.execute(agent::watch);
    return agent;
  }

  /** What to do when an operator's drain ({@code true}) or undrain order arrives with a heartbeat's answer. */
  public void onDrain(Consumer<Boolean> action) {
    onDrain = action;
  }

  /** The last policy pushed by a controller, if any. */
  public Optional<Policy> policy() {
    return Optional.ofNullable(policy);
  }

  public boolean registered() {
    return registered;
  }

  /** The address of the controller the agent registers with now. */
  public String controller() {
    return targets.get(current);
  }

  private void register() {
    if (closed) {
      return;
    }
    int at = current;
    stubs.get(at).register(registration, new StreamObserver<RegisterResponse>() {
      @Override
      public void onNext(RegisterResponse r) {
        heartbeatInterval = Duration.ofMillis(Math.max(50, r.getHeartbeatIntervalMillis()));
        registered = true;
        log.info("node {} registered with controller {} at {} (heartbeat every {} ms)", registration.getName(), r.getController(),
            targets.get(at), heartbeatInterval.toMillis());
      }

      @Override
      public void onError(Throwable t) {
        registered = false;
        log.debug("registration of {} at {} failed: {}", registration.getName(), targets.get(at), t.toString());
        scheduler.execute(() -> later(NodeAgent.this::register, failover(at, t)));
      }

      @Override
      public void onCompleted() {
        scheduler.execute(() -> {
          registerBackoffMillis = 100;
          failedInRow = 0;
          openHeartbeats();
          long current = ++generation;
          later(() -> beat(current), heartbeatInterval.toMillis());
        });
      }
    });
  }

  /**
   * Moves on from controller {@code failed} (scheduler thread): the next one is tried at once until
   * every controller has failed in a row, then with the growing backoff. Returns the delay.
   */
  private long failover(int failed, Throwable why) {
    if (failed != current) {
      return 0; // someone already moved on
    }
    failedInRow++;
    if (stubs.size() > 1) {
      current = (failed + 1) % stubs.size();
      log.info("node {}: controller {} failed ({}); trying {}", registration.getName(), targets.get(failed),
          Status.fromThrowable(why).getCode(),
          targets.get(current));
      if (watch != null) {
        watch.cancel("failing over to " + targets.get(current), null); // re-opens at the new controller
      }
    }
    if (failedInRow < stubs.size()) {
      return 0;
    }
    failedInRow = 0;
    return registerBackoffMillis = backoff(registerBackoffMillis);
  }

  private void openHeartbeats() {
    beats = stubs.get(current).heartbeat(new StreamObserver<HeartbeatResponse>() {
      @Override
      public void onNext(HeartbeatResponse ack) {
        if (ack.getDrain() != DrainCommand.DRAIN_COMMAND_NONE && ack.getDrain() != DrainCommand.UNRECOGNIZED) {
          onDrain.accept(ack.getDrain() == DrainCommand.DRAIN_COMMAND_DRAIN);
        }
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
    stubs.get(current).watch(WatchRequest.newBuilder().setName(registration.getName()).setKnownPolicyVersion(known).build(),
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
