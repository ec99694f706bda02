package io.tcpopt.servicenode.proxy;

import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelOption;
import io.netty.channel.ConnectTimeoutException;
import io.netty.channel.socket.DuplexChannel;
import io.tcpopt.servicenode.wire.WireCodes;
import java.net.ConnectException;

/** Small operations on TCP legs shared by bridges and splices. */
public final class Legs {
  private Legs() {}

  /** Aborts a leg so that its end host sees a reset (SO_LINGER 0, then close). Any thread. */
  public static void reset(Channel leg) {
    if (leg == null || !leg.isOpen()) {
      return;
    }
    try {
      leg.config().setOption(ChannelOption.SO_LINGER, 0);
    } catch (RuntimeException e) {
      // The socket may already be shut down; closing still ends the flow.
    }
    leg.close();
  }

  /** Half-closes a leg after everything written so far is out: the end host reads EOF. */
  static ChannelFuture finishOutput(Channel leg) {
    return leg.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(f -> {
      if (f.isSuccess() && leg.isActive()) {
        ((DuplexChannel) leg).shutdownOutput();
      }
    });
  }

  /** The RST_STREAM code for a failed connect. */
  static int connectFailureCode(Throwable cause) {
    if (cause instanceof ConnectTimeoutException) {
      return WireCodes.CONNECT_TIMEOUT;
    }
    return cause instanceof ConnectException ? WireCodes.CONNECT_REFUSED : WireCodes.CONNECT_REFUSED;
  }
}
