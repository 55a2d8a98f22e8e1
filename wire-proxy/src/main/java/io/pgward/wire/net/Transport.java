package io.pgward.wire.net;

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
import java.util.concurrent.ThreadFactory;

/** Native epoll on Linux when its library loads, Java NIO everywhere else. */
public record Transport(String name, IoHandlerFactory ioHandlerFactory, Class<? extends SocketChannel> socketChannel,
                        Class<? extends ServerChannel> serverSocketChannel) {

    public static Transport best() {
        if (Epoll.isAvailable()) {
            return new Transport("epoll", EpollIoHandler.newFactory(), EpollSocketChannel.class,
                    EpollServerSocketChannel.class);
        }
        return new Transport("nio", NioIoHandler.newFactory(), NioSocketChannel.class, NioServerSocketChannel.class);
    }

    public EventLoopGroup newGroup(int threads, ThreadFactory threadFactory) {
        return new MultiThreadIoEventLoopGroup(threads, threadFactory, ioHandlerFactory);
    }
}
