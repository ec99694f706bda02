package io.tcpopt.servicenode.tls;

import io.netty.channel.Channel;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslHandler;
import io.tcpopt.common.profile.ServerSslProfile;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

/**
 * The leg pipeline hook that encrypts a server leg at the far node (server-SSL profile): an
 * {@link SslHandler} in client mode first in the pipeline. It sends the profile's {@code
 * server-name} as SNI and verifies the certificate against it; without a name it verifies against
 * the server's IP address and sends no SNI. The leg is usable once {@link SslHandler#handshakeFuture()}
 * succeeded.
 */
public final class ServerTls {
  private ServerTls() {}

  /** Installs the handler first in {@code leg}'s pipeline, before it connects to {@code server}. */
  public static SslHandler install(Channel leg, SslContext context, ServerSslProfile profile, InetSocketAddress server) {
    String peer = profile.serverName() != null ? profile.serverName() : server.getAddress().getHostAddress();
    SslHandler ssl = context.newHandler(leg.alloc(), peer, server.getPort());
    ssl.setHandshakeTimeout(profile.handshakeTimeout().toMillis(), TimeUnit.MILLISECONDS);
    leg.pipeline().addFirst("tls", ssl);
    return ssl;
  }

  /** The pool key's transport for connections made with {@code profile}. */
  public static String transport(ServerSslProfile profile) {
    return "tls:" + profile.name() + "@" + Integer.toHexString(profile.hashCode()); // new settings, new connections
  }
}
