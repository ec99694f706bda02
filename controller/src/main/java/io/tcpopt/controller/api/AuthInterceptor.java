package io.tcpopt.controller.api;

import io.grpc.Context;
import io.grpc.Contexts;
import io.grpc.Grpc;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import io.tcpopt.controller.auth.AuthenticationException;
import io.tcpopt.controller.auth.Authenticator;
import io.tcpopt.controller.auth.Caller;
import io.tcpopt.proto.v1.NodeServiceGrpc;
import java.security.cert.Certificate;
import java.util.List;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Authenticates every call with the {@link Authenticator} and authorizes it by role: the node
 * service (register, heartbeat, watch) is open to nodes and operators, every other method (policy
 * changes and reads, status, and anything added later) to operators only. No credentials, or
 * credentials that identify nobody, get {@code UNAUTHENTICATED}; a node certificate on an
 * operator method gets {@code PERMISSION_DENIED}. The caller is attached to the call's {@link
 * Context} ({@link #CALLER}) so that the node service can hold a node to its own name.
 */
final class AuthInterceptor implements ServerInterceptor {
  static final Metadata.Key<String> AUTHORIZATION = Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER);
  /** The authenticated caller of the current call; set for every call that reaches a service. */
  static final Context.Key<Caller> CALLER = Context.key("tcpopt-caller");

  /** For calls that were authenticated before they reached the API (the console's in-process channel): an operator. */
  static final ServerInterceptor INTERNAL = new ServerInterceptor() {
    @Override
    public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
      return Contexts.interceptCall(Context.current().withValue(CALLER, new Caller(Caller.Role.OPERATOR, "internal")), call, headers, next);
    }
  };

  private static final Logger log = LoggerFactory.getLogger(AuthInterceptor.class);

  private final Authenticator authenticator;

  AuthInterceptor(Authenticator authenticator) {
    this.authenticator = authenticator;
  }

  @Override
  public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
    Caller caller;
    try {
      caller = authenticator.identify(headers.get(AUTHORIZATION), verifiedChain(call));
    } catch (AuthenticationException e) {
      return refuse(call, Status.UNAUTHENTICATED.withDescription(e.getMessage()));
    }
    boolean nodeService = NodeServiceGrpc.SERVICE_NAME.equals(call.getMethodDescriptor().getServiceName());
    if (!nodeService && !caller.isOperator()) {
      log.warn("refused {} to {}: operators only", call.getMethodDescriptor().getBareMethodName(), caller);
      return refuse(call, Status.PERMISSION_DENIED.withDescription(
          "node certificate \"" + caller.name() + "\" may only register, heartbeat and watch as itself; "
              + call.getMethodDescriptor().getFullMethodName() + " needs operator credentials (token or operator certificate)"));
    }
    return Contexts.interceptCall(Context.current().withValue(CALLER, caller), call, headers, next);
  }

  private static <Q, R> ServerCall.Listener<Q> refuse(ServerCall<Q, R> call, Status status) {
    call.close(status, new Metadata());
    return new ServerCall.Listener<>() {};
  }

  private static List<Certificate> verifiedChain(ServerCall<?, ?> call) {
    SSLSession session = call.getAttributes().get(Grpc.TRANSPORT_ATTR_SSL_SESSION);
    if (session == null) {
      return List.of();
    }
    try {
      Certificate[] chain = session.getPeerCertificates();
      return chain == null ? List.of() : List.of(chain);
    } catch (SSLPeerUnverifiedException e) {
      return List.of();
    }
  }
}
