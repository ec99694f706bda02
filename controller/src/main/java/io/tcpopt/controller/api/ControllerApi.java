package io.tcpopt.controller.api;

import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.ServerInterceptors;
import io.grpc.ServerServiceDefinition;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.tcpopt.controller.LocalServiceNode;
import io.tcpopt.controller.auth.Authenticator;
import io.tcpopt.controller.cluster.ClusterMember;
import io.tcpopt.controller.membership.NodeRegistry;
import io.tcpopt.controller.policy.PolicyStore;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * The gRPC services of one controller, each behind the authentication interceptor. {@link
 * GrpcServer} serves them over the network; tests and the in-JVM demo can serve {@link #services()}
 * in-process. Parts of the controller that authenticate their callers themselves with the same
 * {@link #authenticator()} (the web console) call the very same service code through {@link
 * #internalChannel()}, so every read and every policy change goes through one implementation with
 * one validation.
 */
public final class ControllerApi implements AutoCloseable {
  private final AuthInterceptor auth;
  private final Authenticator authenticator;
  private final List<ServerServiceDefinition> services;
  private final List<ServerServiceDefinition> unauthenticated;
  private Server internalServer;
  private ManagedChannel internalChannel;

  /** Everything the services read: see each service for what it uses. */
  public record Context(
      String controllerName,
      String site,
      ClusterMember cluster,
      PolicyStore policies,
      NodeRegistry nodes,
      Supplier<Optional<LocalServiceNode>> localNode,
      Duration heartbeatInterval,
      Clock clock) {}

  /** @param authenticator decides who each call comes from (see {@link AuthInterceptor} for what each role may call) */
  public ControllerApi(Context c, Authenticator authenticator) {
    this.auth = new AuthInterceptor(authenticator);
    this.authenticator = authenticator;
    NodeReports reports = new NodeReports();
    this.unauthenticated =
        List.of(
            new PolicyGrpcService(c.policies()).bindService(),
            new NodeGrpcService(c.controllerName(), c.policies(), c.nodes(), reports, c.heartbeatInterval(), c.clock())
                .bindService(),
            new StatusGrpcService(c.controllerName(), c.site(), c.cluster(), c.policies(), c.nodes(), reports, c.localNode())
                .bindService(),
            new NodeControlGrpcService(c.nodes(), c.localNode()).bindService());
    this.services = unauthenticated.stream().map(s -> ServerInterceptors.intercept(s, auth)).toList();
  }

  public List<ServerServiceDefinition> services() {
    return services;
  }

  /** Whether the API accepts every caller (no token and no TLS configured). */
  public boolean open() {
    return authenticator.open();
  }

  /** Who a request comes from: the credentials the API accepts, and their roles. */
  public Authenticator authenticator() {
    return authenticator;
  }

  /**
   * An in-process channel to the same service instances <em>without</em> the authentication
   * interceptor, for callers inside this controller that have checked that their user is an
   * operator with {@link #authenticator()} themselves; its calls run as operator {@code internal}.
   * Calls run on the calling thread: never call from an event loop (the services block on
   * Hazelcast).
   */
  public synchronized ManagedChannel internalChannel() {
    if (internalChannel == null) {
      String name = "tcpopt-internal-" + System.identityHashCode(this) + "-" + System.nanoTime();
      InProcessServerBuilder server = InProcessServerBuilder.forName(name).directExecutor();
      unauthenticated.forEach(service -> server.addService(ServerInterceptors.intercept(service, AuthInterceptor.INTERNAL)));
      try {
        internalServer = server.build().start();
      } catch (IOException e) {
        throw new UncheckedIOException("cannot start the in-process API", e);
      }
      internalChannel = InProcessChannelBuilder.forName(name).directExecutor().build();
    }
    return internalChannel;
  }

  @Override
  public synchronized void close() {
    if (internalChannel != null) {
      internalChannel.shutdownNow();
      internalServer.shutdownNow();
    }
  }
}
