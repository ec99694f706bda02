package io.tcpopt.controller.console;

import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.MethodDescriptor;
import io.tcpopt.proto.v1.ApplyPolicyRequest;
import io.tcpopt.proto.v1.DiffPolicyRequest;
import io.tcpopt.proto.v1.FlowsRequest;
import io.tcpopt.proto.v1.FlowsResponse;
import io.tcpopt.proto.v1.GetPolicyRequest;
import io.tcpopt.proto.v1.ListPolicyVersionsRequest;
import io.tcpopt.proto.v1.ListPolicyVersionsResponse;
import io.tcpopt.proto.v1.NodeInfo;
import io.tcpopt.proto.v1.NodesRequest;
import io.tcpopt.proto.v1.Policy;
import io.tcpopt.proto.v1.PolicyServiceGrpc;
import io.tcpopt.proto.v1.PolicyVersionInfo;
import io.tcpopt.proto.v1.RollbackPolicyRequest;
import io.tcpopt.proto.v1.StatusRequest;
import io.tcpopt.proto.v1.StatusResponse;
import io.tcpopt.proto.v1.StatusServiceGrpc;
import io.tcpopt.proto.v1.ValidatePolicyRequest;
import io.tcpopt.proto.v1.ValidatePolicyResponse;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * What the console reads and changes, as calls on the controller's own gRPC services (through the
 * API's internal channel): the same status, flow and policy code as {@code tcpopt}, including the
 * policy validation. Failures are the services' {@link io.grpc.StatusRuntimeException}s.
 */
final class ControllerData {
  private static final long DEADLINE_SECONDS = 10;

  private final StatusServiceGrpc.StatusServiceBlockingStub status;
  private final PolicyServiceGrpc.PolicyServiceBlockingStub policy;

  ControllerData(Channel channel) {
    ClientInterceptor deadline = new ClientInterceptor() {
      @Override
      public <Q, R> ClientCall<Q, R> interceptCall(MethodDescriptor<Q, R> method, CallOptions options, Channel next) {
        return next.newCall(method, options.withDeadlineAfter(DEADLINE_SECONDS, TimeUnit.SECONDS));
      }
    };
    this.status = StatusServiceGrpc.newBlockingStub(channel).withInterceptors(deadline);
    this.policy = PolicyServiceGrpc.newBlockingStub(channel).withInterceptors(deadline);
  }

  StatusResponse status() {
    return status.status(StatusRequest.getDefaultInstance());
  }

  List<NodeInfo> nodes() {
    return status.nodes(NodesRequest.getDefaultInstance()).getNodesList();
  }

  FlowsResponse flows(FlowsRequest request) {
    return status.flows(request);
  }

  ListPolicyVersionsResponse versions() {
    return policy.listVersions(ListPolicyVersionsRequest.getDefaultInstance());
  }

  /** A stored version, or the active one for {@code version} 0. */
  Policy policy(long version) {
    return policy.get(GetPolicyRequest.newBuilder().setVersion(version).build()).getPolicy();
  }

  ValidatePolicyResponse validate(String yaml) {
    return policy.validate(ValidatePolicyRequest.newBuilder().setYaml(yaml).build());
  }

  String diff(long from, long to) {
    return policy.diff(DiffPolicyRequest.newBuilder().setFromVersion(from).setToVersion(to).build()).getUnifiedDiff();
  }

  /** From the active version to a candidate document. */
  String diffCandidate(String yaml) {
    return policy.diff(DiffPolicyRequest.newBuilder().setToYaml(yaml).build()).getUnifiedDiff();
  }

  PolicyVersionInfo apply(String yaml, String comment, long expectedActiveVersion) {
    return policy.apply(ApplyPolicyRequest.newBuilder().setYaml(yaml).setComment(comment)
        .setExpectedActiveVersion(expectedActiveVersion).build()).getInfo();
  }

  PolicyVersionInfo rollback(long version) {
    return policy.rollback(RollbackPolicyRequest.newBuilder().setVersion(version).build()).getInfo();
  }
}
