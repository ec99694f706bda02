package io.tcpopt.servicenode.tls;

import io.netty.channel.Channel;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.concurrent.Future;
import io.tcpopt.common.profile.ClientSslProfile;
import io.tcpopt.servicenode.flow.TlsFigures;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLSession;

/**
 * The leg pipeline hook that terminates a client's TLS at the intercepting node: installed on the
 * accepted client leg before the bridge joins it, it puts {@code [record counter] [SslHandler]
 * [record sizer]} at the head of the pipeline, so everything after it — the bridge — reads and
 * writes plaintext. The client sees the operator's certificate for the server's name. A client
 * that does not complete its handshake within the profile's handshake timeout is closed by the
 * {@link SslHandler} (the bridge sees the leg fail).
 */
public final class ClientTlsTermination {
  private final SslHandler ssl;
  private final RecordSizer sizer;
  private final TlsRecordCounter counter;

  private ClientTlsTermination(SslHandler ssl, RecordSizer sizer, TlsRecordCounter counter) {
    this.ssl = ssl;
    this.sizer = sizer;
    this.counter = counter;
  }

  /** Installs the handlers first in {@code leg}'s pipeline; call on the leg's event loop before it reads. */
  public static ClientTlsTermination install(Channel leg, SslContext context, ClientSslProfile profile) {
    SslHandler ssl = context.newHandler(leg.alloc());
    ssl.setHandshakeTimeout(profile.handshakeTimeout().toMillis(), TimeUnit.MILLISECONDS);
    TlsRecordCounter counter = new TlsRecordCounter(profile.smallRecordSize());
    RecordSizer sizer = new RecordSizer(ssl, profile);
    ChannelPipeline p = leg.pipeline();
    p.addFirst("tls-record-size", sizer);
    p.addFirst("tls", ssl);
    p.addFirst("tls-records", counter);
    return new ClientTlsTermination(ssl, sizer, counter);
  }

  /** Completes when the client's handshake is done (or failed). */
  public Future<Channel> handshake() {
    return ssl.handshakeFuture();
  }

  /** The leg's TLS figures now; any thread. */
  public TlsFigures info() {
    String protocol = null;
    String cipher = null;
    if (ssl.handshakeFuture().isSuccess()) {
      SSLSession s = ssl.engine().getSession();
      protocol = s.getProtocol();
      cipher = s.getCipherSuite();
    }
    return new TlsFigures(protocol, cipher, sizer.dynamic(), sizer.recordSize(), counter.smallRecords(), counter.largeRecords());
  }
}
