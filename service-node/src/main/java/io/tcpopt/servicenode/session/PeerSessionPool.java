package io.tcpopt.servicenode.session;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.handler.ssl.SslContext;
import io.netty.util.concurrent.ScheduledFuture;
import io.tcpopt.common.transport.NettyTransport;
import io.tcpopt.servicenode.trust.HelloAdmission;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The long-lived WAN connections this node dials to one peer: {@code size} slots, each connected
 * at start and re-established after a failure or loss with exponential backoff (100 ms doubling
 * to 30 s, with jitter). A slot's backoff resets when its connection completes the HELLO exchange.
 * A connection that retires (its stream ids nearly used up, by either side) is replaced at once and
 * left to finish its streams. With {@code express}, one more slot dials the pool's express
 * connection ({@link ConnectionGroup#express}): interactive streams' DATA only, beside the bulk.
 */
public final class PeerSessionPool {
  private static final Logger log = LoggerFactory.getLogger(PeerSessionPool.class);
  static final Duration MIN_BACKOFF = Duration.ofMillis(100);
  static final Duration MAX_BACKOFF = Duration.ofSeconds(30);

  private final String peerName;
  private final InetSocketAddress address;
  private final EventLoopGroup group;
  private final Bootstrap bootstrap;
  private final Slot[] slots;
  private final Consumer<String> onReconnect;
  private volatile boolean closed;
  /** This pool instance's session value, in every one of its connections' HELLOs. */
  private final long session = PooledConnection.newSession();
  /** Numbers the pool's connections in their HELLOs: each dial takes the next, so none is reused within the session. */
  private final java.util.concurrent.atomic.AtomicInteger connectionNumbers = new java.util.concurrent.atomic.AtomicInteger();
  /** The pool's connections once up: a stream's DATA may travel on any of them. */
  private final ConnectionGroup connections = new ConnectionGroup();

  private final class Slot implements SessionListener {
    private final int index;
    private final boolean express;
    private volatile Channel channel;
    private volatile StreamMultiplexer up;
    private int attempts;
    private ScheduledFuture<?> retry;

    Slot(int index, boolean express) {
      this.index = index;
      this.express = express;
    }

    void connect() {
      if (closed) {
        return;
      }
      ChannelFuture f = bootstrap.clone().handler(initializerFor(this)).connect(address);
      channel = f.channel();
      f.addListener(done -> {
        if (!done.isSuccess()) {
          log.debug("connection {} to peer {} at {} failed: {}", index, peerName, address, done.cause().toString());
          scheduleRetry();
        } else {
          // A retired connection closing after its replacement was dialled leaves the slot alone.
          f.channel().closeFuture().addListener(c -> {
            if (channel == f.channel()) {
              scheduleRetry();
            }
          });
        }
      });
    }

    void scheduleRetry() {
      up = null;
      if (closed) {
        return;
      }
      long base = Math.min(MAX_BACKOFF.toMillis(), MIN_BACKOFF.toMillis() << Math.min(attempts, 20));
      attempts++;
      long delay = base / 2 + ThreadLocalRandom.current().nextLong(base / 2 + 1);
      onReconnect.accept(peerName);
      retry = group.next().schedule(this::connect, delay, TimeUnit.MILLISECONDS);
    }

    @Override
    public void sessionUp(StreamMultiplexer connection) {
      attempts = 0;
      up = connection;
      sessionListener.sessionUp(connection);
    }

    @Override
    public void sessionDown(StreamMultiplexer connection, String reason) {
      if (up == connection) {
        up = null;
      }
      sessionListener.sessionDown(connection, reason);
    }

    /** The connection finishes its streams but takes no new ones: its replacement is dialled now. */
    @Override
    public void sessionRetiring(StreamMultiplexer connection) {
      if (up == connection) {
        up = null;
      }
      if (channel == connection.channel()) {
        connect();
      }
      sessionListener.sessionRetiring(connection);
    }
  }

  private final SslContext ssl;
  private final SessionSettings settings;
  private final StreamAcceptor acceptor;
  private final SessionListener sessionListener;
  private final WanSockets sockets;
  private final HelloAdmission admission;

  /**
   * @param onReconnect called with the peer name each time a connection is (re)scheduled after a loss
   * @param admission admits the answering node at its HELLO ({@code PeerAuthority.dialled(peerName)}: that peer only)
   * @param express whether an express connection is dialled beside the {@code size} others
   */
  public PeerSessionPool(String peerName, InetSocketAddress address, int size, boolean express, EventLoopGroup group, SslContext ssl, SessionSettings settings,
      StreamAcceptor acceptor, SessionListener sessionListener, WanSockets sockets, Duration connectTimeout, Consumer<String> onReconnect, HelloAdmission admission) {
    this.admission = admission;
    this.peerName = peerName;
    this.address = address;
    this.group = group;
    this.ssl = ssl;
    this.settings = settings;
    this.acceptor = acceptor;
    this.sessionListener = sessionListener;
    this.sockets = sockets;
    this.onReconnect = onReconnect;
    this.bootstrap = new Bootstrap()
        .group(group)
        .channel(NettyTransport.socketChannel())
        .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) Math.min(Integer.MAX_VALUE, connectTimeout.toMillis()));
    sockets.configure(bootstrap);
    this.slots = new Slot[size + (express ? 1 : 0)];
    for (int i = 0; i < slots.length; i++) {
      slots[i] = new Slot(i, i == size);
    }
  }

  private WanChannelInitializer initializerFor(Slot slot) {
    return new WanChannelInitializer(ssl, settings, true, acceptor, slot, sockets, address, admission)
        .pooledAs(new PooledConnection(session, PooledConnection.number(connectionNumbers.getAndIncrement(), slot.express), connections));
  }

  /** Starts connecting every slot; returns at once. */
  public void start() {
    for (Slot s : slots) {
      s.connect();
    }
  }

  public String peerName() {
    return peerName;
  }

  /** Connections this pool keeps up: {@code size}, plus its express connection when it dials one. */
  public int size() {
    return slots.length;
  }

  /** Whether one of the pool's connections is its express connection. */
  public boolean dialsExpress() {
    return slots[slots.length - 1].express;
  }

  /** The connections of this pool that completed their HELLO and are still up. */
  public List<StreamMultiplexer> upConnections() {
    List<StreamMultiplexer> out = new ArrayList<>();
    for (Slot s : slots) {
      StreamMultiplexer m = s.up;
      if (m != null && m.isUp()) {
        out.add(m);
      }
    }
    return out;
  }

  /** Stops reconnecting and closes every connection (GOAWAY first). */
  public void close() {
    closed = true;
    for (Slot s : slots) {
      ScheduledFuture<?> r = s.retry;
      if (r != null) {
        r.cancel(false);
      }
      StreamMultiplexer m = s.up;
      if (m != null) {
        m.shutdown();
      } else if (s.channel != null) {
        s.channel.close();
      }
    }
  }
}
