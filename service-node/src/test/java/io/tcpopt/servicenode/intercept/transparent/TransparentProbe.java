package io.tcpopt.servicenode.intercept.transparent;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.EpollChannelOption;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.socket.SocketChannel;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

/**
 * A stand-in for the service node's transparent listener, run inside the branch namespace: installs
 * {@link TproxyRules}, listens with IP_TRANSPARENT and echoes every intercepted connection, printing
 * {@code ORIGINAL local=IP:PORT remote=IP:PORT} (local = the client's original destination). On a
 * {@code quit} line (or stdin EOF) it closes the listener and the rules and prints {@code CLOSED}.
 *
 * <p>Arguments: {@code PORT SOURCES DESTINATIONS}, prefix lists comma separated or {@code -} for any.
 */
public final class TransparentProbe {
  private static final PrintStream OUT = System.out;

  private TransparentProbe() {}

  public static void main(String[] args) throws Exception {
    int port = Integer.parseInt(args[0]);
    List<String> sources = prefixes(args[1]);
    List<String> destinations = prefixes(args[2]);
    EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, EpollIoHandler.newFactory());
    try (TproxyRules rules = TproxyRules.install(port, 1, 100, sources, destinations)) {
      Channel listener =
          new ServerBootstrap()
              .group(group)
              .channel(EpollServerSocketChannel.class)
              .option(EpollChannelOption.IP_TRANSPARENT, true)
              .childHandler(new ChannelInitializer<SocketChannel>() {
                @Override
                protected void initChannel(SocketChannel ch) {
                  say("ORIGINAL local=" + hostPort(ch.localAddress()) + " remote=" + hostPort(ch.remoteAddress()));
                  ch.pipeline().addLast(new Echo());
                }
              })
              .bind(new InetSocketAddress("0.0.0.0", port))
              .sync()
              .channel();
      say("READY");
      BufferedReader stdin = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
      for (String line = stdin.readLine(); line != null && !line.equals("quit"); line = stdin.readLine()) {
        // only quit is understood
      }
      listener.close().sync();
    } finally {
      group.shutdownGracefully(0, 1, java.util.concurrent.TimeUnit.SECONDS).sync();
    }
    say("CLOSED");
  }

  private static final class Echo extends ChannelInboundHandlerAdapter {
    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      ctx.write(msg);
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
      ctx.flush();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      ctx.close();
    }
  }

  private static List<String> prefixes(String arg) {
    return arg.equals("-") ? List.of() : Arrays.asList(arg.split(","));
  }

  private static String hostPort(InetSocketAddress a) {
    return a.getAddress().getHostAddress() + ":" + a.getPort();
  }

  private static synchronized void say(String line) {
    OUT.println(line);
    OUT.flush();
  }
}
