package io.tcpopt.controller.api;

import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import io.tcpopt.common.policy.FieldError;
import io.tcpopt.common.policy.PolicyDocument;
import io.tcpopt.common.policy.PolicyException;
import io.tcpopt.controller.policy.ActivePolicy;
import io.tcpopt.controller.policy.PolicyStore;
import io.tcpopt.controller.policy.PolicyStoreException;
import io.tcpopt.controller.policy.PolicyVersion;
import io.tcpopt.proto.v1.ApplyPolicyRequest;
import io.tcpopt.proto.v1.ApplyPolicyResponse;
import io.tcpopt.proto.v1.DiffPolicyRequest;
import io.tcpopt.proto.v1.DiffPolicyResponse;
import io.tcpopt.proto.v1.GetPolicyRequest;
import io.tcpopt.proto.v1.GetPolicyResponse;
import io.tcpopt.proto.v1.ListPolicyVersionsRequest;
import io.tcpopt.proto.v1.ListPolicyVersionsResponse;
import io.tcpopt.proto.v1.Policy;
import io.tcpopt.proto.v1.PolicyServiceGrpc;
import io.tcpopt.proto.v1.PolicyVersionInfo;
import io.tcpopt.proto.v1.PolicyViolation;
import io.tcpopt.proto.v1.RollbackPolicyRequest;
import io.tcpopt.proto.v1.RollbackPolicyResponse;
import io.tcpopt.proto.v1.ValidatePolicyRequest;
import io.tcpopt.proto.v1.ValidatePolicyResponse;
import java.util.List;
import java.util.function.Supplier;

/** Operator calls on the versioned policy store. */
final class PolicyGrpcService extends PolicyServiceGrpc.PolicyServiceImplBase {
  private final PolicyStore store;

  PolicyGrpcService(PolicyStore store) {
    this.store = store;
  }

  @Override
  public void apply(ApplyPolicyRequest request, StreamObserver<ApplyPolicyResponse> out) {
    respond(out, () -> {
      long expected = request.getExpectedActiveVersion() == 0 ? -1 : request.getExpectedActiveVersion();
      PolicyVersion v = store.apply(request.getYaml(), request.getComment(), expected);
      return ApplyPolicyResponse.newBuilder().setInfo(info(v, true)).build();
    });
  }

  @Override
  public void get(GetPolicyRequest request, StreamObserver<GetPolicyResponse> out) {
    respond(out, () -> {
      PolicyVersion v = store.get(request.getVersion()).orElseThrow(() -> notFound(request.getVersion()));
      return GetPolicyResponse.newBuilder().setPolicy(policy(v, activeVersion())).build();
    });
  }

  @Override
  public void validate(ValidatePolicyRequest request, StreamObserver<ValidatePolicyResponse> out) {
    respond(out, () -> {
      ValidatePolicyResponse.Builder b = ValidatePolicyResponse.newBuilder();
      try {
        PolicyDocument d = store.validate(request.getYaml());
        return b.setValid(true).setName(d.name()).build();
      } catch (PolicyException e) {
        b.setValid(false);
        e.errors().forEach(f -> b.addViolations(violation(f)));
        return b.build();
      }
    });
  }

  @Override
  public void listVersions(ListPolicyVersionsRequest request, StreamObserver<ListPolicyVersionsResponse> out) {
    respond(out, () -> {
      long active = store.activeVersionInCluster();
      ListPolicyVersionsResponse.Builder b = ListPolicyVersionsResponse.newBuilder().setActiveVersion(active);
      for (PolicyVersion v : store.versions()) {
        b.addVersions(info(v, v.version() == active));
      }
      return b.build();
    });
  }

  @Override
  public void rollback(RollbackPolicyRequest request, StreamObserver<RollbackPolicyResponse> out) {
    respond(out, () -> {
      if (request.getVersion() <= 0) {
        throw ApiErrors.invalid("version: must be a stored version number", List.of(new FieldError("version", "must be a stored version number")));
      }
      long expected = request.getExpectedActiveVersion() == 0 ? -1 : request.getExpectedActiveVersion();
      PolicyVersion v = store.rollback(request.getVersion(), expected);
      return RollbackPolicyResponse.newBuilder().setInfo(info(v, true)).build();
    });
  }

  @Override
  public void diff(DiffPolicyRequest request, StreamObserver<DiffPolicyResponse> out) {
    respond(out, () -> {
      PolicyVersion from = store.get(request.getFromVersion()).orElseThrow(() -> notFound(request.getFromVersion()));
      String toName;
      String toText;
      if (!request.getToYaml().isEmpty()) {
        toName = "candidate";
        toText = request.getToYaml();
      } else {
        PolicyVersion to = store.get(request.getToVersion()).orElseThrow(() -> notFound(request.getToVersion()));
        toName = "v" + to.version();
        toText = to.yaml();
      }
      return DiffPolicyResponse.newBuilder()
          .setUnifiedDiff(LineDiff.unified("v" + from.version(), from.yaml(), toName, toText))
          .build();
    });
  }

  private long activeVersion() {
    ActivePolicy a = store.active();
    return a == null ? 0 : a.versionNumber();
  }

  private static RuntimeException notFound(long version) {
    return version == 0
        ? Status.NOT_FOUND.withDescription("no policy has been applied yet").asRuntimeException()
        : Status.NOT_FOUND.withDescription("no policy version " + version).asRuntimeException();
  }

  static PolicyVersionInfo info(PolicyVersion v, boolean active) {
    return PolicyVersionInfo.newBuilder()
        .setVersion(v.version())
        .setName(v.name())
        .setAppliedBy(v.appliedBy())
        .setAppliedAtUnixMillis(v.appliedAtMillis())
        .setComment(v.comment())
        .setActive(active)
        .setSha256(v.sha256())
        .build();
  }

  static Policy policy(PolicyVersion v, long activeVersion) {
    return Policy.newBuilder().setInfo(info(v, v.version() == activeVersion)).setYaml(v.yaml()).build();
  }

  private static PolicyViolation violation(FieldError f) {
    return PolicyViolation.newBuilder().setPath(f.path()).setReason(f.reason()).build();
  }

  /** Runs {@code body} and completes the call, mapping failures to statuses. */
  static <T> void respond(StreamObserver<T> out, Supplier<T> body) {
    T result;
    try {
      result = body.get();
    } catch (PolicyException e) {
      out.onError(ApiErrors.invalidPolicy(e));
      return;
    } catch (PolicyStoreException e) {
      out.onError(ApiErrors.store(e));
      return;
    } catch (io.grpc.StatusRuntimeException e) {
      out.onError(e);
      return;
    } catch (RuntimeException e) {
      out.onError(ApiErrors.internal(e));
      return;
    }
    out.onNext(result);
    out.onCompleted();
  }
}
