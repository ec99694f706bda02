package io.tcpopt.servicenode.tls;

import io.netty.channel.Channel;
import io.netty.handler.ssl.SslContext;
import io.tcpopt.common.profile.ClientSslProfile;
import io.tcpopt.common.profile.ServerSslProfile;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node's SSL contexts, one per profile (by all its settings), built on first use: reading a
 * key and building a context is far too slow per flow. A profile whose files cannot be used is
 * remembered with its error for a while, logged once each time it is tried again, and its flows
 * go on without it (the caller records why): a client flow is then optimized unterminated, a
 * server flow is refused rather than sent in plaintext. Thread-safe.
 */
public final class SslContextCache {
  private static final Logger log = LoggerFactory.getLogger(SslContextCache.class);
  private static final long RETRY_NANOS = TimeUnit.SECONDS.toNanos(30);

  private final Path baseDirectory;
  private final Map<Object, Entry> contexts = new ConcurrentHashMap<>();
  private final Map<String, ServerSslProfile> transports = new ConcurrentHashMap<>();

  /** A built context, or why it could not be built and when that was found. */
  private record Entry(SslContext context, String error, long at) {}

  /** @param baseDirectory what relative certificate and key paths resolve against */
  public SslContextCache(Path baseDirectory) {
    this.baseDirectory = baseDirectory;
  }

  /** The server-side context of {@code profile}, or null when its certificate or key cannot be used (see {@link #error}). */
  public SslContext clientSsl(ClientSslProfile profile) {
    return get(profile, () -> SslProfileContexts.clientSsl(profile, baseDirectory)).context;
  }

  /** The client-side context of {@code profile}, or null when it cannot be built (see {@link #error}). */
  public SslContext serverSsl(ServerSslProfile profile) {
    return get(profile, () -> SslProfileContexts.serverSsl(profile, baseDirectory)).context;
  }

  /** Why the profile's context could not be built, or null. */
  public String error(Object profile) {
    Entry e = contexts.get(profile);
    return e == null ? null : e.error;
  }

  private interface Builder {
    SslContext build();
  }

  private Entry get(Object profile, Builder builder) {
    Entry e = contexts.get(profile);
    if (e != null && (e.context != null || System.nanoTime() - e.at < RETRY_NANOS)) {
      return e;
    }
    return contexts.compute(profile, (k, old) -> {
      if (old != null && (old.context != null || System.nanoTime() - old.at < RETRY_NANOS)) {
        return old;
      }
      try {
        return new Entry(builder.build(), null, System.nanoTime());
      } catch (IllegalArgumentException ex) {
        log.warn("{}; its flows go on without it", ex.getMessage());
        return new Entry(null, ex.getMessage(), System.nanoTime());
      }
    });
  }

  /**
   * The pool transport for server connections made with {@code profile} (see {@link
   * io.tcpopt.servicenode.reuse.PoolKey}), registered so that {@link #installServerTls} finds it.
   */
  public String transport(ServerSslProfile profile) {
    String t = ServerTls.transport(profile);
    transports.putIfAbsent(t, profile);
    return t;
  }

  /** Puts the server-SSL handler of {@code transport} on a new server connection; false when it cannot be built. */
  public boolean installServerTls(String transport, Channel connection, InetSocketAddress server) {
    ServerSslProfile profile = transports.get(transport);
    SslContext context = profile == null ? null : serverSsl(profile);
    if (context == null) {
      return false;
    }
    ServerTls.install(connection, context, profile, server);
    return true;
  }
}
