package io.pgward.wire.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import io.netty.util.concurrent.Future;
import io.pgward.wire.config.PgwardConfig.Backend;
import io.pgward.wire.config.PgwardConfig.SslMode;
import io.pgward.wire.config.PgwardConfig.Tls;
import io.pgward.wire.config.PgwardConfig.TlsMode;
import io.pgward.wire.net.SelfSignedCertificate.KeyType;
import io.pgward.wire.net.SelfSignedCertificate.PemFiles;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.cert.CertPathBuilderException;
import java.security.cert.CertPathValidatorException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.ExtendedSSLSession;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SNIServerName;
import javax.net.ssl.SSLHandshakeException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * pgward's two TLS sides against each other on loopback: a Netty server with {@link ServerTls} that echoes
 * what it receives, and a Netty client with {@link BackendTls}. No SSLRequest here; the TLS layer is the
 * subject (see BackendTlsWithPostgresIT for the whole dance against PostgreSQL).
 */
class TlsHandshakeTest {

    private static EventLoopGroup group;

    @TempDir
    Path dir;

    // Added to from the event loop too.
    private final List<Channel> channels = new CopyOnWriteArrayList<>();

    @BeforeAll
    static void startEventLoop() {
        group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    }

    @AfterAll
    static void stopEventLoop() {
        group.shutdownGracefully(0, 5, TimeUnit.SECONDS).syncUninterruptibly();
    }

    @AfterEach
    void closeChannels() {
        channels.forEach(channel -> channel.close().syncUninterruptibly());
    }

    @Test
    void verifyFullTrustingTheCertificateCompletesTheHandshakeAndCarriesBytes() throws Exception {
        PemFiles files = SelfSignedCertificate.write(dir);
        EchoServer server = startServer(files);
        Backend backend = new Backend("127.0.0.1", server.port(), SslMode.VERIFY_FULL, files.certificate());

        Client client = connect(server, backend);

        assertNull(client.handshakeFailure());
        assertEquals("TLSv1.3", client.handler().engine().getSession().getProtocol());
        client.channel().writeAndFlush(Unpooled.copiedBuffer("SELECT 1", StandardCharsets.US_ASCII)).sync();
        assertEquals("SELECT 1", client.received().get(10, TimeUnit.SECONDS));
    }

    @Test
    void verifyFullSendsADnsHostAsSniAndMatchesItAgainstTheDnsNames() throws Exception {
        PemFiles files = SelfSignedCertificate.write(dir, KeyType.RSA_2048, List.of("db.example"));
        EchoServer server = startServer(files);
        // Connected to 127.0.0.1, but the configured host is what TLS checks and announces.
        Backend backend = new Backend("db.example", server.port(), SslMode.VERIFY_FULL, files.certificate());

        Client client = connect(server, backend);

        assertNull(client.handshakeFailure());
        assertEquals(List.of(new SNIHostName("db.example")), server.serverNames().get(10, TimeUnit.SECONDS));
    }

    @Test
    void sendsNoSniForAnIpAddress() throws Exception {
        PemFiles files = SelfSignedCertificate.write(dir);
        EchoServer server = startServer(files);
        Backend backend = new Backend("127.0.0.1", server.port(), SslMode.VERIFY_FULL, files.certificate());

        connect(server, backend);

        assertEquals(List.of(), server.serverNames().get(10, TimeUnit.SECONDS));
    }

    @Test
    void verifyFullRefusesACertificateThatDoesNotNameTheHostsAddress() throws Exception {
        // Trusted, but made out for another name: only hostname verification can catch this.
        PemFiles files = SelfSignedCertificate.write(dir, KeyType.EC_P256, List.of("localhost"));
        EchoServer server = startServer(files);
        Backend backend = new Backend("127.0.0.1", server.port(), SslMode.VERIFY_FULL, files.certificate());

        Throwable failure = connect(server, backend).handshakeFailure();

        assertTrue(failure instanceof SSLHandshakeException, String.valueOf(failure));
        assertTrue(causes(failure).contains("No subject alternative names matching IP address 127.0.0.1 found"),
                causes(failure));
    }

    @Test
    void verifyFullRefusesACertificateThatDoesNotNameTheHost() throws Exception {
        PemFiles files = SelfSignedCertificate.write(dir, KeyType.EC_P256, List.of("db.example", "127.0.0.1"));
        EchoServer server = startServer(files);
        Backend backend = new Backend("other.example", server.port(), SslMode.VERIFY_FULL, files.certificate());

        Throwable failure = connect(server, backend).handshakeFailure();

        assertTrue(failure instanceof SSLHandshakeException, String.valueOf(failure));
        assertTrue(causes(failure).contains("other.example"), causes(failure));
    }

    @Test
    void verifyFullRefusesACertificateFromAnotherRoot() throws Exception {
        PemFiles served = SelfSignedCertificate.write(dir.resolve("served"), KeyType.EC_P256, List.of("127.0.0.1"));
        PemFiles trusted = SelfSignedCertificate.write(dir.resolve("trusted"), KeyType.EC_P256, List.of("db.example"));
        EchoServer server = startServer(served);
        Backend backend = new Backend("127.0.0.1", server.port(), SslMode.VERIFY_FULL, trusted.certificate());

        Throwable failure = connect(server, backend).handshakeFailure();

        assertTrue(failure instanceof SSLHandshakeException, String.valueOf(failure));
        assertNotNull(cause(failure, CertPathBuilderException.class), causes(failure));
    }

    @Test
    void verifyFullRefusesAnImpostorWithTheTrustedNameButAnotherKey() throws Exception {
        // Same subject and names as the trusted root, so the path is built and its signature check fails.
        PemFiles impostor = SelfSignedCertificate.write(dir.resolve("impostor"));
        PemFiles trusted = SelfSignedCertificate.write(dir.resolve("trusted"));
        EchoServer server = startServer(impostor);
        Backend backend = new Backend("127.0.0.1", server.port(), SslMode.VERIFY_FULL, trusted.certificate());

        Throwable failure = connect(server, backend).handshakeFailure();

        assertTrue(failure instanceof SSLHandshakeException, String.valueOf(failure));
        assertNotNull(cause(failure, CertPathValidatorException.class), causes(failure));
    }

    @Test
    void verifyFullWithoutARootCertificateTrustsOnlyTheJdkTrustStore() throws Exception {
        PemFiles files = SelfSignedCertificate.write(dir);
        EchoServer server = startServer(files);
        Backend backend = new Backend("127.0.0.1", server.port(), SslMode.VERIFY_FULL, null);

        Throwable failure = connect(server, backend).handshakeFailure();

        assertNotNull(cause(failure, CertPathBuilderException.class), causes(failure));
    }

    @Test
    void requireEncryptsWithAnUntrustedCertificateForAnotherName() throws Exception {
        PemFiles files = SelfSignedCertificate.write(dir, KeyType.EC_P256, List.of("elsewhere.example"));
        EchoServer server = startServer(files);
        // The root certificate does not matter to require: a different, unrelated one is given on purpose.
        PemFiles unrelated = SelfSignedCertificate.write(dir.resolve("unrelated"));
        Backend backend = new Backend("127.0.0.1", server.port(), SslMode.REQUIRE, unrelated.certificate());

        Client client = connect(server, backend);

        assertNull(client.handshakeFailure());
        client.channel().writeAndFlush(Unpooled.copiedBuffer("hello", StandardCharsets.US_ASCII)).sync();
        assertEquals("hello", client.received().get(10, TimeUnit.SECONDS));
    }

    @Test
    void requireStillSendsSni() throws Exception {
        PemFiles files = SelfSignedCertificate.write(dir);
        EchoServer server = startServer(files);
        Backend backend = new Backend("pooler.example", server.port(), SslMode.REQUIRE, null);

        connect(server, backend);

        assertEquals(List.of(new SNIHostName("pooler.example")), server.serverNames().get(10, TimeUnit.SECONDS));
    }

    @Test
    void disableNeedsNoContext() {
        assertNull(BackendTls.forBackend(new Backend("127.0.0.1", 5432, SslMode.DISABLE, null)));
    }

    private record EchoServer(Channel channel, CompletableFuture<List<SNIServerName>> serverNames) {
        int port() {
            return ((InetSocketAddress) channel.localAddress()).getPort();
        }
    }

    private record Client(Channel channel, SslHandler handler, Throwable handshakeFailure,
                          CompletableFuture<String> received) {
    }

    /** Serves one connection: TLS with {@code files}, then echoes; reports the SNI names the client sent. */
    private EchoServer startServer(PemFiles files) throws InterruptedException {
        SslContext context = ServerTls.forClients(new Tls(TlsMode.REQUIRE, files.certificate(), files.key()));
        CompletableFuture<List<SNIServerName>> serverNames = new CompletableFuture<>();
        Channel channel = new ServerBootstrap()
                .group(group)
                .channel(NioServerSocketChannel.class)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        channels.add(ch);
                        SslHandler tls = context.newHandler(ch.alloc());
                        ch.pipeline().addLast(tls, new ChannelInboundHandlerAdapter() {
                            @Override
                            public void userEventTriggered(ChannelHandlerContext ctx, Object event) {
                                if (event instanceof SslHandshakeCompletionEvent done && done.isSuccess()) {
                                    serverNames.complete(
                                            ((ExtendedSSLSession) tls.engine().getSession()).getRequestedServerNames());
                                }
                                ctx.fireUserEventTriggered(event);
                            }

                            @Override
                            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                                ctx.writeAndFlush(msg);
                            }

                            @Override
                            public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
                                // The client refusing our certificate shows up here as an alert; the client
                                // side asserts on it.
                                ctx.close();
                            }
                        });
                    }
                })
                .bind("127.0.0.1", 0).sync().channel();
        channels.add(channel);
        return new EchoServer(channel, serverNames);
    }

    private Client connect(EchoServer server, Backend backend) throws InterruptedException {
        SslContext context = BackendTls.forBackend(backend);
        CompletableFuture<String> received = new CompletableFuture<>();
        // Kept from the initializer, not looked up in the pipeline after connect: a refused handshake can close
        // the channel, which empties its pipeline, before this thread gets to look.
        CompletableFuture<SslHandler> tls = new CompletableFuture<>();
        Channel channel = new Bootstrap()
                .group(group)
                .channel(NioSocketChannel.class)
                .handler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        SslHandler handler = BackendTls.handler(context, ch.alloc(), backend);
                        tls.complete(handler);
                        ch.pipeline().addLast(handler,
                                new SimpleChannelInboundHandler<ByteBuf>() {
                                    @Override
                                    protected void channelRead0(ChannelHandlerContext ctx, ByteBuf msg) {
                                        received.complete(msg.toString(StandardCharsets.US_ASCII));
                                    }

                                    @Override
                                    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
                                        // Handshake failures are read from the handshake future.
                                        ctx.close();
                                    }
                                });
                    }
                })
                .connect(server.channel().localAddress()).sync().channel();
        channels.add(channel);
        // The initializer ran when the channel registered, before the connect it waited for.
        SslHandler handler = tls.getNow(null);
        assertNotNull(handler, "TLS handler added");
        Future<Channel> handshake = handler.handshakeFuture();
        assertTrue(handshake.await(10, TimeUnit.SECONDS), "handshake finished");
        return new Client(channel, handler, handshake.cause(), received);
    }

    private static <T extends Throwable> T cause(Throwable failure, Class<T> type) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (type.isInstance(t)) {
                return type.cast(t);
            }
        }
        return null;
    }

    private static String causes(Throwable failure) {
        StringBuilder text = new StringBuilder();
        for (Throwable t = failure; t != null; t = t.getCause()) {
            text.append(t).append(" <- ");
        }
        return text.toString();
    }
}
