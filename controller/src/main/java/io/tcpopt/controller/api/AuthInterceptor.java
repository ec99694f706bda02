package io.tcpopt.controller.api;

import io.grpc.Grpc;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import io.tcpopt.proto.v1.NodeServiceGrpc;
import javax.net.ssl.SSLSession;

/**
 * Lets a call through when the {@link OperatorAuthority} accepts its credentials: {@code
 * authorization: Bearer <token>} matching the configured token, or a client certificate the TLS
 * server verified against its trusted CA (always enough for the node service; enough for operator
 * services when {@code clientCertificateAuth}). With neither a token nor TLS configured the API is
 * open. Anything else is refused with {@code UNAUTHENTICATED} before the service sees it.
 */
final class AuthInterceptor implements ServerInterceptor {
  static final Metadata.Key<String> AUTHORIZATION = Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER);

  private final OperatorAuthority authority;

  AuthInterceptor(OperatorAuthority authority) {
    this.authority = authority;
  }

  /** Whether every call is let through (no token, no TLS). */
  boolean open() {
    return authority.open();
  }

  @Override
  public <Q, R> ServerCall.Listener<Q> interceptCall(
      ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
    boolean nodeCall = NodeServiceGrpc.SERVICE_NAME.equals(call.getMethodDescriptor().getServiceName());
    SSLSession session = call.getAttributes().get(Grpc.TRANSPORT_ATTR_SSL_SESSION);
    String header = headers.get(AUTHORIZATION);
    String refusal = nodeCall ? authority.nodeRefusal(header, session) : authority.operatorRefusal(header, session);
    if (refusal == null) {
      return next.startCall(call, headers);
    }
    call.close(Status.UNAUTHENTICATED.withDescription(refusal), new Metadata());
    return new ServerCall.Listener<>() {};
  }
}
