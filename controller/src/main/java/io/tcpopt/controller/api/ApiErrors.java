package io.tcpopt.controller.api;

import com.google.protobuf.Any;
import com.google.rpc.BadRequest;
import com.google.rpc.Code;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.protobuf.StatusProto;
import io.tcpopt.common.policy.FieldError;
import io.tcpopt.common.policy.PolicyException;
import io.tcpopt.controller.policy.PolicyStoreException;
import java.util.List;

/** Maps store and validation failures to gRPC statuses with one-line descriptions. */
final class ApiErrors {
  private ApiErrors() {}

  /** INVALID_ARGUMENT whose description is "path: reason" and whose details list every field violation. */
  static StatusRuntimeException invalidPolicy(PolicyException e) {
    return invalid(e.getMessage(), e.errors());
  }

  static StatusRuntimeException invalid(String message, List<FieldError> errors) {
    BadRequest.Builder bad = BadRequest.newBuilder();
    for (FieldError f : errors) {
      bad.addFieldViolations(BadRequest.FieldViolation.newBuilder().setField(f.path()).setDescription(f.reason()));
    }
    com.google.rpc.Status status =
        com.google.rpc.Status.newBuilder()
            .setCode(Code.INVALID_ARGUMENT.getNumber())
            .setMessage(message)
            .addDetails(Any.pack(bad.build()))
            .build();
    return StatusProto.toStatusRuntimeException(status);
  }

  static StatusRuntimeException store(PolicyStoreException e) {
    Status status;
    switch (e.kind()) {
      case NO_QUORUM:
        status = Status.FAILED_PRECONDITION;
        break;
      case NOT_FOUND:
        status = Status.NOT_FOUND;
        break;
      case CONFLICT:
        status = Status.ABORTED;
        break;
      default:
        status = Status.UNAVAILABLE;
        break;
    }
    return status.withDescription(e.getMessage()).asRuntimeException();
  }

  static StatusRuntimeException internal(RuntimeException e) {
    return Status.INTERNAL.withDescription("controller error: " + e).asRuntimeException();
  }
}
