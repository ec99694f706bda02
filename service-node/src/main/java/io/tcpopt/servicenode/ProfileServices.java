package io.tcpopt.servicenode;

import io.micrometer.core.instrument.MeterRegistry;
import io.tcpopt.servicenode.leg.LegOptions;
import io.tcpopt.servicenode.reuse.PeerReuse;
import io.tcpopt.servicenode.reuse.PoolKey;
import io.tcpopt.servicenode.reuse.ReuseMetrics;
import io.tcpopt.servicenode.reuse.ReusePools;
import io.tcpopt.servicenode.reuse.TcpServerConnector;
import io.tcpopt.servicenode.tls.SslContextCache;
import java.nio.file.Path;
import java.time.Duration;

/**
 * What the application profiles of optimized flows need while the node runs: the server-connection
 * pools of {@code http-reuse} profiles (their connections made like server legs, encrypted for a
 * {@code server-ssl} profile) and the SSL contexts of {@code client-ssl}/{@code server-ssl}
 * profiles.
 *
 * @param reusePools the pools of this node's own policy's profiles
 * @param peerReusePools the pools of profiles peers' OPENs carried ({@link PeerReuse}), bounded apart
 * @param peerReuse what this node honours of peers' profiles
 * @param firstRequestTimeout a reuse flow without a complete request head by then becomes a plain relay
 */
record ProfileServices(ReusePools reusePools, ReusePools peerReusePools, PeerReuse peerReuse, ReuseMetrics reuseMetrics,
    SslContextCache sslContexts, Duration firstRequestTimeout) {
  static final Duration FIRST_REQUEST_TIMEOUT = Duration.ofSeconds(1);

  static ProfileServices create(LegOptions legs, PeerReuse peerReuse, MeterRegistry registry) {
    SslContextCache ssl = new SslContextCache(Path.of(""));
    ReuseMetrics metrics = new ReuseMetrics(registry);
    TcpServerConnector connector = new TcpServerConnector(legs.connectTimeout(), legs.watermarks(), (key, ch) -> {
      if (!PoolKey.PLAIN.equals(key.transport())) {
        ssl.installServerTls(key.transport(), ch, key.server());
      }
    });
    return new ProfileServices(new ReusePools(connector, metrics), new ReusePools(connector, metrics), peerReuse, metrics, ssl,
        FIRST_REQUEST_TIMEOUT);
  }
}
