package io.tcpopt.controller.api;

import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import io.tcpopt.controller.LocalServiceNode;
import io.tcpopt.controller.membership.DrainOrder;
import io.tcpopt.controller.membership.NodeRecord;
import io.tcpopt.controller.membership.NodeRegistry;
import io.tcpopt.proto.v1.DrainRequest;
import io.tcpopt.proto.v1.DrainResponse;
import io.tcpopt.proto.v1.NodeControlServiceGrpc;
import java.util.Optional;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Operator actions on one node: drain and undrain. The order is left in the node's registry record
 * and carried to the node by the answer to its next heartbeat, whichever controller receives it
 * (the integrated node of this JVM gets it at once). The node's own state is what {@code nodes}
 * and {@code status} show, from its heartbeats; a restarted node starts undrained.
 */
final class NodeControlGrpcService extends NodeControlServiceGrpc.NodeControlServiceImplBase {
  private static final Logger log = LoggerFactory.getLogger(NodeControlGrpcService.class);

  private final NodeRegistry nodes;
  private final Supplier<Optional<LocalServiceNode>> localNode;

  NodeControlGrpcService(NodeRegistry nodes, Supplier<Optional<LocalServiceNode>> localNode) {
    this.nodes = nodes;
    this.localNode = localNode;
  }

  @Override
  public void drain(DrainRequest request, StreamObserver<DrainResponse> out) {
    PolicyGrpcService.respond(out, () -> {
      String name = request.getNode();
      if (name.isEmpty()) {
        throw Status.INVALID_ARGUMENT.withDescription("node: is required").asRuntimeException();
      }
      NodeRecord record = nodes.get(name).orElseThrow(
          () -> Status.NOT_FOUND.withDescription("no node named \"" + name + "\" is registered (see tcpopt nodes)").asRuntimeException());
      if (!record.role().servesFlows()) {
        throw Status.FAILED_PRECONDITION.withDescription(name + " is a " + record.role().label() + ": it carries no flows to drain")
            .asRuntimeException();
      }
      boolean drain = !request.getUndrain();
      if (!nodes.order(name, drain ? DrainOrder.DRAIN : DrainOrder.UNDRAIN)) {
        throw Status.NOT_FOUND.withDescription("node \"" + name + "\" was deregistered meanwhile").asRuntimeException();
      }
      Optional<LocalServiceNode> local = localNode.get().filter(n -> n.name().equals(name));
      local.ifPresent(n -> n.drain(drain));
      log.info("{} of node {} ordered by {}", drain ? "drain" : "undrain", name, AuthInterceptor.CALLER.get());
      NodeRecord now = local.map(n -> record.withActiveFlows(n.activeFlows()).withDraining(n.draining())).orElse(record);
      return DrainResponse.newBuilder().setNode(StatusGrpcService.nodeInfo(now, nodes.isHealthy(record), nodes.expiry())).build();
    });
  }
}
