package io.pgward.wire.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioIoHandler;
import io.pgward.sampledb.LocalPostgres;
import io.pgward.wire.config.PgwardConfig.Backend;
import io.pgward.wire.config.PgwardConfig.SslMode;
import io.pgward.wire.net.SelfSignedCertificate.PemFiles;
import java.io.ByteArrayOutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.cert.CertPathBuilderException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLHandshakeException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real PostgreSQL with TLS on (a certificate from {@link SelfSignedCertificate}), reached by pgward's
 * backend TLS after the SSLRequest dance, and by pgjdbc as a reference client.
 */
class BackendTlsWithPostgresIT {

    @TempDir
    static Path dir;

    private static PemFiles certificate;
    private static LocalPostgres postgres;
    private static EventLoopGroup group;

    @BeforeAll
    static void startPostgresWithTls() {
        certificate = SelfSignedCertificate.write(dir);
        postgres = LocalPostgres.start(0, certificate.certificate(), certificate.key());
        group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    }

    @AfterAll
    static void stop() {
        if (group != null) {
            group.shutdownGracefully(0, 5, TimeUnit.SECONDS).syncUninterruptibly();
        }
        if (postgres != null) {
            postgres.close();
        }
    }

    @Test
    void verifyFullCompletesTheSslRequestAndHandshakeAndPostgresSpeaksInsideTls() throws Exception {
        Backend backend = new Backend(postgres.host(), postgres.port(), SslMode.VERIFY_FULL, certificate.certificate());

        List<String> mechanisms = saslMechanismsOverTls(backend);

        // PostgreSQL offers channel binding only on a TLS connection: proof that it sees ours as one.
        assertEquals(List.of("SCRAM-SHA-256-PLUS", "SCRAM-SHA-256"), mechanisms);
    }

    @Test
    void verifyFullAcceptsTheDnsNameInTheCertificate() throws Exception {
        Backend backend = new Backend("localhost", postgres.port(), SslMode.VERIFY_FULL, certificate.certificate());
        assertTrue(saslMechanismsOverTls(backend).contains("SCRAM-SHA-256-PLUS"));
    }

    @Test
    void requireEncryptsWithoutTrustingTheCertificate() throws Exception {
        Backend backend = new Backend(postgres.host(), postgres.port(), SslMode.REQUIRE, null);
        assertTrue(saslMechanismsOverTls(backend).contains("SCRAM-SHA-256-PLUS"));
    }

    @Test
    void verifyFullWithTheJdkTrustStoreRefusesTheSelfSignedCertificate() {
        Backend backend = new Backend(postgres.host(), postgres.port(), SslMode.VERIFY_FULL, null);
        CompletableFuture<Channel> connected = SslRequestClient.connect(group, address(),
                backend, BackendTls.forBackend(backend), new Collector());

        ExecutionException e = assertThrows(ExecutionException.class, () -> connected.get(30, TimeUnit.SECONDS));
        assertTrue(e.getCause() instanceof SSLHandshakeException, String.valueOf(e.getCause()));
        boolean pkix = false;
        for (Throwable t = e.getCause(); t != null; t = t.getCause()) {
            pkix |= t instanceof CertPathBuilderException;
        }
        assertTrue(pkix, String.valueOf(e.getCause()));
    }

    @Test
    void pgjdbcWithSslmodeRequireGetsAnEncryptedSession() throws SQLException {
        try (Connection connection = pgjdbc("ssl=true&sslmode=require")) {
            assertEquals("on", single(connection, "SHOW ssl"));
            assertEquals("t", single(connection, "SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()"));
        }
    }

    @Test
    void pgjdbcWithVerifyFullTrustsTheGeneratedCertificateFor127001() throws SQLException {
        try (Connection connection = pgjdbc("sslmode=verify-full&sslrootcert=" + certificate.certificate())) {
            assertEquals("t", single(connection, "SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()"));
            assertTrue(single(connection, "SELECT version FROM pg_stat_ssl WHERE pid = pg_backend_pid()")
                    .matches("TLSv1\\.[23]"));
        }
    }

    @Test
    void stillAcceptsPlaintextClients() throws SQLException {
        try (Connection connection = pgjdbc("sslmode=disable")) {
            assertEquals("f", single(connection, "SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()"));
        }
    }

    /** SSLRequest, TLS, then a StartupMessage; returns the mechanisms of the AuthenticationSASL reply. */
    private static List<String> saslMechanismsOverTls(Backend backend) throws Exception {
        Collector collector = new Collector();
        Channel channel = SslRequestClient.connect(group, address(), backend, BackendTls.forBackend(backend),
                collector).get(30, TimeUnit.SECONDS);
        try {
            channel.writeAndFlush(startupMessage(postgres.superuser(), "postgres")).sync();
            byte[] reply = collector.firstMessage.get(30, TimeUnit.SECONDS);
            // 'R' | int32 len | int32 10 (SASL) | cstring mechanism ... | 0
            ByteBuf in = Unpooled.wrappedBuffer(reply);
            assertEquals('R', in.readByte(), ByteBufUtil.prettyHexDump(in, 0, reply.length));
            in.readInt();
            assertEquals(10, in.readInt(), "AuthenticationSASL");
            List<String> mechanisms = new ArrayList<>();
            while (in.getByte(in.readerIndex()) != 0) {
                int end = in.indexOf(in.readerIndex(), in.writerIndex(), (byte) 0);
                mechanisms.add(in.readCharSequence(end - in.readerIndex(), StandardCharsets.US_ASCII).toString());
                in.skipBytes(1);
            }
            return mechanisms;
        } finally {
            channel.close().sync();
        }
    }

    /** StartupMessage. Wire: int32 len | int32 196608 (3.0) | (cstring name | cstring value)* | 0. */
    private static ByteBuf startupMessage(String user, String database) {
        ByteBuf body = Unpooled.buffer();
        body.writeInt(196608);
        for (String s : new String[] {"user", user, "database", database}) {
            body.writeCharSequence(s, StandardCharsets.UTF_8);
            body.writeByte(0);
        }
        body.writeByte(0);
        ByteBuf message = Unpooled.buffer(4 + body.readableBytes());
        message.writeInt(4 + body.readableBytes()).writeBytes(body);
        body.release();
        return message;
    }

    /** Collects plaintext after TLS until one whole backend message ('type | int32 len | body') arrived. */
    private static final class Collector extends SimpleChannelInboundHandler<ByteBuf> {
        final CompletableFuture<byte[]> firstMessage = new CompletableFuture<>();
        private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, ByteBuf msg) {
            byte[] chunk = ByteBufUtil.getBytes(msg);
            bytes.writeBytes(chunk);
            byte[] all = bytes.toByteArray();
            if (all.length >= 5) {
                int length = Unpooled.wrappedBuffer(all).getInt(1);
                if (all.length >= 1 + length) {
                    firstMessage.complete(Arrays.copyOf(all, 1 + length));
                }
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            firstMessage.completeExceptionally(cause);
            ctx.close();
        }
    }

    private static InetSocketAddress address() {
        return new InetSocketAddress(postgres.host(), postgres.port());
    }

    private static Connection pgjdbc(String parameters) throws SQLException {
        Properties properties = new Properties();
        properties.setProperty("user", postgres.superuser());
        properties.setProperty("password", postgres.password());
        return DriverManager.getConnection(postgres.jdbcUrl("postgres") + "?" + parameters, properties);
    }

    private static String single(Connection connection, String sql) throws SQLException {
        try (Statement statement = connection.createStatement(); ResultSet rs = statement.executeQuery(sql)) {
            assertTrue(rs.next(), sql);
            String value = rs.getString(1);
            assertFalse(rs.next(), sql);
            assertNotNull(value, sql);
            return value;
        }
    }
}
