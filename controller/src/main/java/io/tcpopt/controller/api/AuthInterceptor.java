package io.tcpopt.controller.api;

import io.grpc.Grpc;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import io.tcpopt.proto.v1.NodeServiceGrpc;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.cert.Certificate;
import java.util.Optional;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLSession;

/**
 * Lets a call through when it carries {@code authorization: Bearer <token>} matching the
 * configured token, or arrives over TLS with a client certificate the server verified against its
 * trusted CA (always enough for the node service; enough for operator services when {@code
 * clientCertificateAuth}). With neither a token nor TLS configured the API is open. Anything else
 * is refused with {@code UNAUTHENTICATED} before the service sees it.
 */
final class AuthInterceptor implements ServerInterceptor {
  static final Metadata.Key<String> AUTHORIZATION = Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER);
  private static final String BEARER = "Bearer ";

  private final Optional<byte[]> token;
  private final boolean tls;
  private final boolean clientCertificateAuth;

  AuthInterceptor(Optional<String> token, boolean tls, boolean clientCertificateAuth) {
    this.token = token.map(t -> t.getBytes(StandardCharsets.UTF_8));
    this.tls = tls;
    this.clientCertificateAuth = clientCertificateAuth;
  }

  /** Whether every call is let through (no token, no TLS). */
  boolean open() {
    return token.isEmpty() && !tls;
  }

  @Override
  public <Q, R> ServerCall.Listener<Q> interceptCall(
      ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
    String refusal = refusal(call, headers);
    if (refusal == null) {
      return next.startCall(call, headers);
    }
    call.close(Status.UNAUTHENTICATED.withDescription(refusal), new Metadata());
    return new ServerCall.Listener<>() {};
  }

  private String refusal(ServerCall<?, ?> call, Metadata headers) {
    if (open()) {
      return null;
    }
    boolean nodeCall = NodeServiceGrpc.SERVICE_NAME.equals(call.getMethodDescriptor().getServiceName());
    if ((nodeCall || clientCertificateAuth) && verifiedClientCertificate(call)) {
      return null;
    }
    String header = headers.get(AUTHORIZATION);
    if (token.isPresent() && header != null && header.regionMatches(true, 0, BEARER, 0, BEARER.length())) {
      byte[] presented = header.substring(BEARER.length()).trim().getBytes(StandardCharsets.UTF_8);
      if (MessageDigest.isEqual(presented, token.get())) {
        return null;
      }
      return "invalid bearer token";
    }
    if (token.isPresent()) {
      return nodeCall
          ? "node calls need a verified client certificate or the bearer token"
          : "missing bearer token (authorization: Bearer <token>)";
    }
    return "a verified client certificate is required";
  }

  private static boolean verifiedClientCertificate(ServerCall<?, ?> call) {
    SSLSession session = call.getAttributes().get(Grpc.TRANSPORT_ATTR_SSL_SESSION);
    if (session == null) {
      return false;
    }
    try {
      Certificate[] chain = session.getPeerCertificates();
      return chain != null && chain.length > 0;
    } catch (SSLPeerUnverifiedException e) {
      return false;
    }
  }
}
