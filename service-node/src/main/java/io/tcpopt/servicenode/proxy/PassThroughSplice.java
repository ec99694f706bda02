package io.tcpopt.servicenode.proxy;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.channel.socket.DuplexChannel;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.handler.timeout.IdleStateHandler;
import io.netty.util.ReferenceCountUtil;
import io.tcpopt.servicenode.flow.FlowEntry;
import io.tcpopt.servicenode.flow.FlowState;
import java.util.concurrent.TimeUnit;

/**
 * Fail-open and pass-through: the accepted client is spliced to a direct connection to the original
 * destination, both legs on the client's event loop (no locks). Backpressure from writability:
 * a leg whose peer leg is unwritable stops reading. FIN and RST are propagated like on a stream.
 */
public final class PassThroughSplice {
  private final FlowEntry flow;
  private final LegOptions options;
  private Channel client;
  private Channel server;
  private boolean clientInputEnded;
  private boolean serverInputEnded;
  private int outputsShut;
  private boolean finished;
  /** Bytes the client sent before the server leg connected (epoll reads them on a half-close). */
  private final java.util.ArrayDeque<ByteBuf> early = new java.util.ArrayDeque<>();

  private PassThroughSplice(FlowEntry flow, LegOptions options) {
    this.flow = flow;
    this.options = options;
  }

  /** Connects to the flow's server and splices; the client (not reading yet) is reset if that fails. */
  public static void start(FlowEntry flow, Channel client, LegOptions options, Bootstrap bootstrap) {
    PassThroughSplice splice = new PassThroughSplice(flow, options);
    splice.client = client;
    options.configure(bootstrap.group(client.eventLoop()));
    bootstrap.handler(new ChannelInboundHandlerAdapter() {
      @Override
      public void handlerAdded(ChannelHandlerContext ctx) {
        options.legs().add(ctx.channel());
        ctx.pipeline().addLast(new IdleStateHandler(0, 0, options.idleTimeout().toNanos(), TimeUnit.NANOSECONDS));
        ctx.pipeline().addLast(splice.new Side(false));
        ctx.pipeline().remove(this);
      }
    });
    ChannelFuture f = bootstrap.connect(flow.server());
    options.legs().add(client);
    client.pipeline().addLast(new IdleStateHandler(0, 0, options.idleTimeout().toNanos(), TimeUnit.NANOSECONDS));
    client.pipeline().addLast(splice.new Side(true));
    f.addListener(done -> {
      if (!done.isSuccess()) {
        splice.abort("connect to " + flow.server() + " failed: " + done.cause().getMessage());
        return;
      }
      if (splice.finished) {
        Legs.reset(f.channel());
        return;
      }
      splice.server = f.channel();
      flow.state(FlowState.OPEN);
      ByteBuf b;
      while ((b = splice.early.poll()) != null) {
        splice.server.write(b);
      }
      splice.server.flush();
      if (splice.clientInputEnded) {
        splice.shutdownOutputAfterWrites(splice.server);
      } else {
        client.config().setAutoRead(true);
      }
      splice.server.config().setAutoRead(true);
    });
  }

  private void shutdownOutputAfterWrites(Channel ch) {
    ch.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(f -> {
      if (f.isSuccess() && ch.isActive()) {
        ((DuplexChannel) ch).shutdownOutput().addListener(s -> outputShut());
      }
    });
  }

  private void abort(String reason) {
    if (finished) {
      return;
    }
    finished = true;
    ByteBuf b;
    while ((b = early.poll()) != null) {
      b.release();
    }
    Legs.reset(client);
    Legs.reset(server);
    flow.close(reason);
  }

  private void outputShut() {
    outputsShut++;
    if (outputsShut == 2 && !finished) {
      finished = true;
      client.close();
      server.close();
      flow.close("completed");
    }
  }

  /** One leg's handler; {@code isClient} says which. */
  private final class Side extends ChannelInboundHandlerAdapter {
    private final boolean isClient;

    Side(boolean isClient) {
      this.isClient = isClient;
    }

    private Channel other() {
      return isClient ? server : client;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      Channel other = other();
      if (finished || !(msg instanceof ByteBuf)) {
        ReferenceCountUtil.release(msg);
        return;
      }
      int n = ((ByteBuf) msg).readableBytes();
      if (isClient) {
        flow.addClientToServer(n);
      } else {
        flow.addServerToClient(n);
      }
      if (other == null) {
        early.add((ByteBuf) msg);
        return;
      }
      other.write(msg);
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
      Channel other = other();
      if (other != null) {
        other.flush();
        if (!other.isWritable()) {
          ctx.channel().config().setAutoRead(false);
        }
      }
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
      Channel other = other();
      boolean otherEnded = isClient ? serverInputEnded : clientInputEnded;
      if (other != null && ctx.channel().isWritable() && !otherEnded && !finished) {
        other.config().setAutoRead(true);
      }
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
      if (evt instanceof ChannelInputShutdownEvent) {
        if (isClient) {
          clientInputEnded = true;
        } else {
          serverInputEnded = true;
        }
        Channel other = other();
        if (other != null) {
          shutdownOutputAfterWrites(other);
        }
      } else if (evt instanceof IdleStateEvent) {
        abort("idle timeout: no bytes on the " + (isClient ? "client" : "server") + " leg for " + options.idleTimeout());
      }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      abort((isClient ? "client" : "server") + " leg failed: " + cause.getMessage());
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
      if (!(clientInputEnded && serverInputEnded)) {
        abort((isClient ? "client" : "server") + " leg closed before the flow completed");
      }
    }
  }
}
