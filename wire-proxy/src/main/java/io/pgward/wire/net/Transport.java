package io.pgward.wire.net;

import io.netty.channel.DefaultSelectStrategyFactory;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SelectStrategyFactory;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import java.nio.channels.spi.SelectorProvider;
import java.time.Duration;
import java.util.concurrent.ThreadFactory;

/** Native epoll on Linux when its library loads, Java NIO everywhere else. */
public record Transport(String name, IoHandlerFactory ioHandlerFactory, Class<? extends SocketChannel> socketChannel,
                        Class<? extends ServerChannel> serverSocketChannel) {

    /** @param busyPoll how long an event loop polls for ready sockets before it sleeps ({@link BusyPoll}) */
    public static Transport best(Duration busyPoll) {
        SelectStrategyFactory strategy = busyPoll.isZero() ? DefaultSelectStrategyFactory.INSTANCE
                : () -> new BusyPoll(busyPoll.toNanos());
        if (Epoll.isAvailable()) {
            return new Transport("epoll", EpollIoHandler.newFactory(0, strategy), EpollSocketChannel.class,
                    EpollServerSocketChannel.class);
        }
        return new Transport("nio", NioIoHandler.newFactory(SelectorProvider.provider(), strategy),
                NioSocketChannel.class, NioServerSocketChannel.class);
    }

    public EventLoopGroup newGroup(int threads, ThreadFactory threadFactory) {
        return new MultiThreadIoEventLoopGroup(threads, threadFactory, ioHandlerFactory);
    }
}
