package io.tcpopt.controller.api;

import io.grpc.ServerInterceptors;
import io.grpc.ServerServiceDefinition;
import io.tcpopt.controller.LocalServiceNode;
import io.tcpopt.controller.auth.Authenticator;
import io.tcpopt.controller.cluster.ClusterMember;
import io.tcpopt.controller.membership.NodeRegistry;
import io.tcpopt.controller.policy.PolicyStore;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * The three gRPC services of one controller, each behind the authentication interceptor. {@link
 * GrpcServer} serves them over the network; tests and the in-JVM demo can serve {@link #services()}
 * in-process.
 */
public final class ControllerApi {
  private final AuthInterceptor auth;
  private final Authenticator authenticator;
  private final List<ServerServiceDefinition> services;

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
    this.services =
        List.of(
            ServerInterceptors.intercept(new PolicyGrpcService(c.policies()), auth),
            ServerInterceptors.intercept(
                new NodeGrpcService(c.controllerName(), c.policies(), c.nodes(), reports, c.heartbeatInterval(), c.clock()),
                auth),
            ServerInterceptors.intercept(
                new StatusGrpcService(c.controllerName(), c.site(), c.cluster(), c.policies(), c.nodes(), reports, c.localNode()),
                auth));
  }

  public List<ServerServiceDefinition> services() {
    return services;
  }

  /** Whether the API accepts every caller (no token and no TLS configured). */
  public boolean open() {
    return authenticator.open();
  }
}
