package io.tcpopt.servicenode.reuse;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.ScheduledFuture;
import io.tcpopt.common.net.HostPort;
import java.net.InetSocketAddress;

/**
 * One server connection of a pool: either idle in the pool or lent to one client flow (its {@code
 * owner}) for one exchange at a time. Confined to its event loop. Its handler hands the server's
 * bytes and endings to the owner; while idle, any byte or ending from the server makes the
 * connection unusable and it leaves the pool.
 */
final class ServerConnection {
  /** What a lent connection reports to the flow using it; called on the connection's loop. */
  interface Owner {
    void serverBytes(ServerConnection c, ByteBuf bytes);

    /** The server sent FIN. */
    void serverEnded(ServerConnection c);

    /** The connection closed or failed; {@code reset} when it was not a clean close. */
    void serverClosed(ServerConnection c, boolean reset, String why);

    /** A batch of reads ended. */
    void serverReadComplete(ServerConnection c);

    void serverWritabilityChanged(ServerConnection c);
  }

  final long id;
  final Channel channel;
  final PoolKey key;
  final long createdNanos;
  private final ServerConnectionPool pool;
  /** Exchanges this connection has carried (the first, then each reuse). */
  int exchanges;
  Owner owner;
  ScheduledFuture<?> idleTimer;
  boolean inputEnded;

  ServerConnection(long id, Channel channel, PoolKey key, ServerConnectionPool pool) {
    this.id = id;
    this.channel = channel;
    this.key = key;
    this.pool = pool;
    this.createdNanos = System.nanoTime();
  }

  /** {@code #id local-port->server}, for the flow table. */
  String describe() {
    InetSocketAddress local = (InetSocketAddress) channel.localAddress();
    return "#" + id + " " + (local == null ? "?" : HostPort.format(local)) + "->" + HostPort.format(key.server());
  }

  boolean usable() {
    return channel.isActive() && !inputEnded;
  }

  long ageNanos() {
    return System.nanoTime() - createdNanos;
  }

  /** The last handler of the connection's pipeline. */
  final class Handler extends ChannelInboundHandlerAdapter {
    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      if (!(msg instanceof ByteBuf buf)) {
        ReferenceCountUtil.release(msg);
        return;
      }
      if (owner != null) {
        owner.serverBytes(ServerConnection.this, buf);
      } else {
        buf.release();
        pool.unusable(ServerConnection.this); // a server does not speak on an idle HTTP connection
      }
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
      if (owner != null) {
        owner.serverReadComplete(ServerConnection.this);
      }
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
      if (evt instanceof ChannelInputShutdownEvent) {
        inputEnded = true;
        if (owner != null) {
          owner.serverEnded(ServerConnection.this);
        } else {
          pool.unusable(ServerConnection.this);
        }
      }
      ReferenceCountUtil.release(evt);
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
      if (owner != null) {
        owner.serverWritabilityChanged(ServerConnection.this);
      }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      closed(true, "server connection failed: " + cause.getMessage());
      ctx.close();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
      closed(false, "server closed the connection");
    }

    private void closed(boolean reset, String why) {
      Owner o = owner;
      owner = null;
      if (o != null) {
        o.serverClosed(ServerConnection.this, reset, why);
      } else {
        pool.unusable(ServerConnection.this);
      }
    }
  }
}
