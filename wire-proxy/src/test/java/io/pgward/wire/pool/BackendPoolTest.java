package io.pgward.wire.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.Future;
import io.pgward.wire.config.PgwardConfig;
import io.pgward.wire.protocol.SqlState;
import io.pgward.wire.net.Transport;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The session-mode pool over its real connector, against a stand-in for PostgreSQL on the loopback interface that
 * answers every startup packet with AuthenticationOk, BackendKeyData and ReadyForQuery(I) and ignores everything
 * after it. No database server is involved; the stand-in counts the connections the pool opens.
 */
class BackendPoolTest {

    private static final BackendTarget TARGET = new BackendTarget("app", null, "shop", Map.of());

    private EventLoopGroup group;
    private Channel server;
    /** The server side of every connection the pool opened, in order. */
    private final List<Channel> accepted = new CopyOnWriteArrayList<>();

    @BeforeEach
    void startServer() throws InterruptedException {
        group = new MultiThreadIoEventLoopGroup(2, NioIoHandler.newFactory());
        server = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        accepted.add(ch);
                        ch.pipeline().addLast(new LoginOk());
                    }
                })
                .bind("127.0.0.1", 0).sync().channel();
    }

    @AfterEach
    void stop() {
        server.close().syncUninterruptibly();
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    private BackendPool pool(int maxSize, Duration waitTimeout) {
        int port = ((InetSocketAddress) server.localAddress()).getPort();
        Transport nio = new Transport("nio", NioIoHandler.newFactory(), NioSocketChannel.class,
                NioServerSocketChannel.class);
        BackendConnector connector = new BackendConnector(
                new PgwardConfig.Backend("127.0.0.1", port, PgwardConfig.SslMode.DISABLE, null), nio);
        return new BackendPool(connector, new PgwardConfig.Pool(maxSize, waitTimeout));
    }

    private static BackendConnection get(Future<BackendConnection> future) {
        assertTrue(future.awaitUninterruptibly(5, TimeUnit.SECONDS), "no connection within 5 s");
        assertTrue(future.isSuccess(), () -> "acquire failed: " + future.cause());
        return future.getNow();
    }

    /** Runs {@code task} on {@code loop} and waits for it, as a session calls the pool from its own loop. */
    private static void onLoop(EventLoop loop, Runnable task) {
        loop.submit(task).syncUninterruptibly();
    }

    /**
     * Waits until the loop has run every task queued by the work it was doing when this was called: the first hop
     * runs after that work, the second after whatever the work queued.
     */
    private static void afterTasksQueuedBy(EventLoop loop) {
        loop.submit(() -> loop.submit(() -> { })).syncUninterruptibly().getNow().syncUninterruptibly();
    }

    @Test
    void aResetMayTakeHalfOfTheWaitTimeoutBetween100MillisecondsAnd10Seconds() {
        assertEquals(Duration.ofMillis(2_500), BackendPool.resetTimeout(Duration.ofSeconds(5)));
        assertEquals(Duration.ofMillis(100), BackendPool.resetTimeout(Duration.ZERO));
        assertEquals(Duration.ofMillis(100), BackendPool.resetTimeout(Duration.ofMillis(150)));
        assertEquals(Duration.ofSeconds(10), BackendPool.resetTimeout(Duration.ofMinutes(5)));
    }

    @Test
    void aReleasedConnectionIsReusedForTheSameTargetOnTheSameEventLoop() {
        BackendPool pool = pool(2, Duration.ofSeconds(5));
        EventLoop loop = group.next();
        BackendConnection first = get(pool.acquire(loop, TARGET));
        onLoop(loop, () -> pool.release(first));
        assertEquals(1, pool.idle("app", "shop"));

        BackendConnection again = get(pool.acquire(loop, TARGET));

        assertSame(first, again);
        assertTrue(again.channel().isActive());
        assertEquals(1, accepted.size(), "the pool opened a second connection");
        assertEquals(1, pool.open("app", "shop"));
        assertEquals(0, pool.idle("app", "shop"));
        assertFalse(again.channel().pipeline().names().contains("idle"), "the idle watch stayed on the connection");
    }

    @Test
    void anIdleConnectionIsNotReusedOnAnotherEventLoopOrForAnotherTarget() {
        BackendPool pool = pool(3, Duration.ofSeconds(5));
        EventLoop loop = group.next();
        EventLoop otherLoop = group.next();
        BackendConnection first = get(pool.acquire(loop, TARGET));
        onLoop(loop, () -> pool.release(first));

        BackendConnection elsewhere = get(pool.acquire(otherLoop, TARGET));
        BackendTarget otherParameters = new BackendTarget("app", null, "shop", Map.of("application_name", "x"));
        BackendConnection otherTarget = get(pool.acquire(loop, otherParameters));

        assertNotSame(first, elsewhere);
        assertSame(otherLoop, elsewhere.channel().eventLoop());
        assertNotSame(first, otherTarget);
        assertEquals(3, accepted.size());
        assertEquals(3, pool.open("app", "shop"));
        assertEquals(1, pool.idle("app", "shop"));
    }

    @Test
    void atMaxSizeAWaiterIsHandedTheNextReleasedConnection() {
        BackendPool pool = pool(1, Duration.ofSeconds(5));
        EventLoop loop = group.next();
        BackendConnection held = get(pool.acquire(loop, TARGET));

        Future<BackendConnection> waiting = pool.acquire(loop, TARGET);
        assertFalse(waiting.isDone(), "a second connection was handed out");
        onLoop(loop, () -> pool.release(held));

        assertSame(held, get(waiting));
        assertEquals(1, accepted.size());
        assertEquals(1, pool.open("app", "shop"));
        assertEquals(0, pool.idle("app", "shop"));
    }

    @Test
    void aWaiterThatGetsNoConnectionWithinTheWaitTimeoutFailsWith53300() {
        BackendPool pool = pool(1, Duration.ofMillis(50));
        EventLoop loop = group.next();
        get(pool.acquire(loop, TARGET));

        Future<BackendConnection> waiting = pool.acquire(loop, TARGET);

        assertTrue(waiting.awaitUninterruptibly(5, TimeUnit.SECONDS));
        BackendException failure = assertInstanceOf(BackendException.class, waiting.cause());
        assertEquals(SqlState.TOO_MANY_CONNECTIONS, failure.error().sqlState());
        assertEquals("FATAL", failure.error().severity());
        assertTrue(failure.error().message().contains("pool.max_size is 1 for app@shop"), failure.error().message());
        assertEquals(1, pool.open("app", "shop"));
        assertEquals(1, accepted.size());
    }

    @Test
    void discardingAConnectionClosesItAndFreesItsPlace() {
        BackendPool pool = pool(1, Duration.ofSeconds(5));
        EventLoop loop = group.next();
        BackendConnection broken = get(pool.acquire(loop, TARGET));

        onLoop(loop, () -> pool.discard(broken));

        broken.channel().closeFuture().syncUninterruptibly();
        assertEquals(0, pool.open("app", "shop"));
        BackendConnection next = get(pool.acquire(loop, TARGET));
        assertNotSame(broken, next);
        assertEquals(2, accepted.size());
        assertEquals(1, pool.open("app", "shop"));
    }

    @Test
    void discardingAConnectionOpensANewOneForTheFirstWaiter() {
        BackendPool pool = pool(1, Duration.ofSeconds(5));
        EventLoop loop = group.next();
        BackendConnection broken = get(pool.acquire(loop, TARGET));
        Future<BackendConnection> waiting = pool.acquire(loop, TARGET);

        onLoop(loop, () -> pool.discard(broken));

        BackendConnection next = get(waiting);
        assertNotSame(broken, next);
        assertTrue(next.channel().isActive());
        assertEquals(2, accepted.size());
        assertEquals(1, pool.open("app", "shop"));
    }

    @Test
    void aConnectionTheServerClosesWhileIdleIsForgottenAndFreesItsPlace() {
        BackendPool pool = pool(1, Duration.ofSeconds(5));
        EventLoop loop = group.next();
        BackendConnection first = get(pool.acquire(loop, TARGET));
        onLoop(loop, () -> pool.release(first));
        assertEquals(1, pool.idle("app", "shop"));

        accepted.getFirst().close().syncUninterruptibly();   // e.g. pg_terminate_backend
        first.channel().closeFuture().syncUninterruptibly();
        afterTasksQueuedBy(loop);   // channelInactive is queued on the loop after the close future completes

        assertEquals(0, pool.idle("app", "shop"));
        assertEquals(0, pool.open("app", "shop"));
        BackendConnection next = get(pool.acquire(loop, TARGET));
        assertNotSame(first, next);
        assertEquals(2, accepted.size());
    }

    /** Trust login: the first bytes are taken as the startup packet; anything after it is ignored. */
    private static final class LoginOk extends ChannelInboundHandlerAdapter {
        private boolean loggedIn;

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ReferenceCountUtil.release(msg);
            if (loggedIn) {
                return;
            }
            loggedIn = true;
            ByteBuf reply = ctx.alloc().buffer();
            reply.writeByte('R').writeInt(8).writeInt(0);                        // AuthenticationOk
            reply.writeByte('K').writeInt(12).writeInt(4711).writeInt(1234);     // BackendKeyData
            reply.writeByte('Z').writeInt(5).writeByte('I');                     // ReadyForQuery(I)
            ctx.writeAndFlush(reply);
        }
    }
}
