package io.tcpopt.cli.operator;

import io.grpc.CallOptions;
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
import io.tcpopt.cli.CliException;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * The {@link ControllerClient} over the controller's gRPC API. Maps transport failures to the
 * one-line errors the CLI promises: UNAVAILABLE → "cannot reach controller at HOST:PORT",
 * UNAUTHENTICATED → "controller refused the credentials", INVALID_ARGUMENT → the controller's
 * description.
 */
final class GrpcControllerClient implements ControllerClient {
  static final Metadata.Key<String> AUTHORIZATION = Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER);
  private static final long DEADLINE_SECONDS = 10;

  private final ControllerTarget target;
  private final ManagedChannel channel;
  final Channel calls;

  private GrpcControllerClient(ControllerTarget target) {
    this.target = target;
    this.channel = Grpc.newChannelBuilderForAddress(target.host(), target.port(), InsecureChannelCredentials.create()).build();
    this.calls = target.token() == null ? channel : ClientInterceptors.intercept(channel, bearer(target.token()));
  }

  static ControllerClient connect(ControllerTarget target) {
    return new GrpcControllerClient(target);
  }

  CallOptions options() {
    return CallOptions.DEFAULT.withDeadlineAfter(DEADLINE_SECONDS, TimeUnit.SECONDS);
  }

  <T> T call(Supplier<T> rpc) {
    try {
      return rpc.get();
    } catch (StatusRuntimeException e) {
      throw translate(e.getStatus(), target);
    }
  }

  static CliException translate(Status status, ControllerTarget target) {
    String detail = status.getDescription() == null ? status.getCode().toString() : status.getDescription();
    switch (status.getCode()) {
      case UNAVAILABLE:
        return new CliException("cannot reach controller at " + target);
      case DEADLINE_EXCEEDED:
        return new CliException("controller at " + target + " did not answer within " + DEADLINE_SECONDS + "s");
      case UNAUTHENTICATED:
      case PERMISSION_DENIED:
        return new CliException("controller refused the credentials");
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

  private CliException missingApi() {
    return new CliException("controller at " + target + " does not support this command: no controller API in this build");
  }

  @Override
  public Views.ClusterStatus status() {
    throw missingApi();
  }

  @Override
  public List<Views.Node> nodes() {
    throw missingApi();
  }

  @Override
  public List<Views.Flow> flows(boolean closed) {
    throw missingApi();
  }

  @Override
  public Views.PolicyVersion applyPolicy(String yaml, String sourceName) {
    throw missingApi();
  }

  @Override
  public List<Views.PolicyError> validatePolicy(String yaml, String sourceName) {
    throw missingApi();
  }

  @Override
  public Views.PolicyVersion policy(long version) {
    throw missingApi();
  }

  @Override
  public Views.PolicyVersion rollback(long version) {
    throw missingApi();
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
