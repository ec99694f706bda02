package io.tcpopt.common.transport;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;

/** Native epoll on Linux when available, NIO otherwise: event loop groups and channel classes. */
public final class NettyTransport {
  private NettyTransport() {}

  public static boolean isEpoll() {
    return Epoll.isAvailable();
  }

  public static EventLoopGroup group(int threads, String name) {
    IoHandlerFactory io = isEpoll() ? EpollIoHandler.newFactory() : NioIoHandler.newFactory();
    return new MultiThreadIoEventLoopGroup(threads, new DefaultThreadFactory(name, true), io);
  }

  public static Class<? extends SocketChannel> socketChannel() {
    return isEpoll() ? EpollSocketChannel.class : NioSocketChannel.class;
  }

  public static Class<? extends ServerChannel> serverChannel() {
    return isEpoll() ? EpollServerSocketChannel.class : NioServerSocketChannel.class;
  }
}
