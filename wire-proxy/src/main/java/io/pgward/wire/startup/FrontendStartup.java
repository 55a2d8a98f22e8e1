package io.pgward.wire.startup;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.ScheduledFuture;
import io.pgward.wire.auth.AuthenticationFailed;
import io.pgward.wire.auth.Md5Authentication;
import io.pgward.wire.auth.ScramServerExchange;
import io.pgward.wire.auth.TlsServerEndPoint;
import io.pgward.wire.net.ServerTls;
import io.pgward.wire.codec.FrontendDecoder;
import io.pgward.wire.codec.StartupDecoder;
import io.pgward.wire.config.PgwardConfig;
import io.pgward.wire.pool.BackendConnection;
import io.pgward.wire.pool.BackendException;
import io.pgward.wire.pool.BackendTarget;
import io.pgward.wire.protocol.FrontendMessage;
import io.pgward.wire.protocol.Messages;
import io.pgward.wire.protocol.PgError;
import io.pgward.wire.protocol.ProtocolException;
import io.pgward.wire.protocol.SqlState;
import io.pgward.wire.protocol.StartupPacket;
import io.pgward.wire.protocol.UnansweredProtocolError;
import io.pgward.wire.protocol.Wire;
import io.pgward.wire.clients.ConnectedClient;
import io.pgward.wire.audit.ConnectionLog;
import io.pgward.wire.config.ConfigLoader;
import io.pgward.wire.local.LocalDatabase;
import io.pgward.wire.local.LocalSession;
import io.pgward.wire.relay.Session;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A client's way in, up to its first ReadyForQuery; then it hands the channel to a {@link Session}.
 *
 * <pre>
 *   client                                   pgward
 *   SSLRequest            ─▶  'S' + TLS handshake (or 'N' without a certificate)
 *   GSSENCRequest         ─▶  'N'
 *   CancelRequest         ─▶  relayed to the session's backend; connection closed
 *   StartupMessage 3.0    ─▶  [NegotiateProtocolVersion] AuthenticationSASL | MD5Password | (trust)
 *   SASLInitialResponse   ─▶  AuthenticationSASLContinue
 *   SASLResponse          ─▶  AuthenticationSASLFinal        (wrong password: FATAL 28P01)
 *                             ... backend connection from the pool ...
 *                         ◀─  AuthenticationOk, ParameterStatus*, BackendKeyData (the backend's pid, pgward's
 *                             secret: CancelRegistry), ReadyForQuery(I)
 * </pre>
 *
 * <p>Until authenticated, every message is at most 10,000 bytes, and the whole exchange must finish within
 * {@code startup_timeout}.
 *
 * <p>After authentication, a read-only login's startup settings are read as PostgreSQL reads them and judged
 * ({@link ReadOnlyStartup}); its backend connection starts with pgward's canonical parameters and pinned
 * settings, never with the client's packet. Read-write logins pass their parameters through.
 */
public final class FrontendStartup extends ChannelInboundHandlerAdapter {

    private static final Logger log = LoggerFactory.getLogger(FrontendStartup.class);

    private enum Phase { STARTUP, SASL_INITIAL, SASL_CONTINUE, MD5, CONNECTING, DONE }

    private final ServerContext server;
    private final String connection;
    /** On the loopback listener of pgward's own MCP server: logins open only with the agent secret. */
    private final boolean agent;
    private Phase phase = Phase.STARTUP;
    private boolean encrypted;
    /** TLS began with the client's ClientHello, without an SSLRequest ({@link DirectTls}). */
    private boolean direct;
    private String user;
    private String database;
    private Map<String, String> parameters;
    /** The startup packet's pairs as sent, repeats included, for reading its settings as PostgreSQL does. */
    private List<Map.Entry<String, String>> pairs;
    /** The configuration this client logs in with, read once: a reload meanwhile does not mix two of them. */
    private ActiveConfig active;
    private LoginDirectory.Entry entry;
    private ScramServerExchange scram;
    private byte[] md5Salt;
    private ScheduledFuture<?> timeout;

    public FrontendStartup(ServerContext server, String connection) {
        this(server, connection, false);
    }

    /**
     * @param agent true on the agent listener: every login authenticates with SCRAM against the agent secret
     *              ({@link ServerContext#openAgentLogins}), whatever its configured method
     */
    public FrontendStartup(ServerContext server, String connection, boolean agent) {
        this.server = server;
        this.connection = connection;
        this.agent = agent;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        long millis = server.config().startupTimeout().toMillis();
        timeout = ctx.executor().schedule(() -> timedOut(ctx), millis, TimeUnit.MILLISECONDS);
        ctx.fireChannelActive();
    }

    /**
     * As PostgreSQL: a client that has not sent its startup packet in time is closed without a word (the server
     * exits quietly from its startup-packet timeout); one that is authenticating gets the FATAL.
     */
    private void timedOut(ChannelHandlerContext ctx) {
        if (phase == Phase.STARTUP) {
            ConnectionLog.debug(log, connection, "closed: no startup packet within startup_timeout");
            phase = Phase.DONE;
            ctx.close();
            return;
        }
        fail(ctx, PgError.fatal(SqlState.PROTOCOL_VIOLATION, "canceling authentication due to timeout"));
    }

    /** The handler that sees a direct TLS ClientHello; it goes first in the pipeline, before this one. */
    public static io.netty.channel.ChannelHandler directTls(ServerContext server, String connection) {
        return new DirectTls(server, connection);
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object event) {
        if (event == DirectTls.STARTED) {
            encrypted = true;
            direct = true;
            return;
        }
        ctx.fireUserEventTriggered(event);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        cancelTimeout();
        ctx.fireChannelInactive();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        try {
            switch (msg) {
                case StartupPacket packet -> startupPacket(ctx, packet);
                case FrontendMessage.AuthenticationResponse response -> authenticationResponse(ctx, response.body());
                case FrontendMessage.Terminate t -> ctx.close();
                case FrontendMessage other -> throw new ProtocolException(
                        "expected authentication response, got message type " + (int) other.frame().getByte(0));
                default -> throw new ProtocolException("unexpected data during startup");
            }
        } catch (ProtocolException e) {
            fail(ctx, PgError.fatal(e.sqlState(), e.getMessage()));
        } catch (AuthenticationFailed e) {
            ConnectionLog.info(log, connection, "authentication failed for login \"{}\": {}", user, e.getMessage());
            fail(ctx, passwordFailed());
        } finally {
            ReferenceCountUtil.release(msg);
        }
    }

    private void startupPacket(ChannelHandlerContext ctx, StartupPacket packet) {
        if (phase != Phase.STARTUP) {
            throw new ProtocolException("unexpected startup packet");
        }
        switch (packet) {
            case StartupPacket.SslRequest r -> sslRequest(ctx);
            case StartupPacket.GssEncRequest r -> ctx.writeAndFlush(ctx.alloc().buffer(1).writeByte('N'));
            case StartupPacket.CancelRequest r -> {
                server.cancel(r.processId(), r.secretKey());
                ctx.close();
            }
            case StartupPacket.StartupMessage m -> startupMessage(ctx, m);
        }
    }

    private void sslRequest(ChannelHandlerContext ctx) {
        if (encrypted || server.sslContext() == null) {
            if (encrypted) {
                throw new ProtocolException("SSL negotiation packet received on an encrypted connection");
            }
            ctx.writeAndFlush(ctx.alloc().buffer(1).writeByte('N'));
            return;
        }
        StartupDecoder decoder = ctx.pipeline().get(StartupDecoder.class);
        if (decoder.buffered() > 0) {
            // Plaintext after SSLRequest could be spliced into the TLS session by a man in the middle.
            throw new ProtocolException("received unencrypted data after SSL request");
        }
        encrypted = true;
        ctx.writeAndFlush(ctx.alloc().buffer(1).writeByte('S')).addListener(f ->
                ctx.pipeline().addFirst("tls", server.sslContext().newHandler(ctx.alloc())));
    }

    private void startupMessage(ChannelHandlerContext ctx, StartupPacket.StartupMessage m) {
        if (direct && !ServerTls.ALPN_PROTOCOL.equals(ctx.pipeline().get(SslHandler.class).applicationProtocol())) {
            // PostgreSQL logs this and closes: without ALPN a direct connection may be some other protocol's.
            ConnectionLog.info(log, connection, "closed a direct TLS connection that did not negotiate the ALPN "
                    + "protocol \"{}\"", ServerTls.ALPN_PROTOCOL);
            ctx.close();
            return;
        }
        if (m.major() != 3) {
            throw new ProtocolException(SqlState.FEATURE_NOT_SUPPORTED, "unsupported frontend protocol "
                    + m.major() + "." + m.minor() + ": server supports 3.0 to 3.0");
        }
        // The agent listener is bound to loopback and its only client is this process.
        if (server.config().tls().mode() == PgwardConfig.TlsMode.REQUIRE && !encrypted && !agent) {
            throw new ProtocolException(SqlState.INVALID_AUTHORIZATION_SPECIFICATION,
                    "pgward accepts only encrypted connections: connect with sslmode=require");
        }
        user = m.parameters().get("user");
        if (user == null || user.isEmpty()) {
            throw new ProtocolException(SqlState.INVALID_AUTHORIZATION_SPECIFICATION,
                    "no PostgreSQL user name specified in startup packet");
        }
        String replication = m.parameters().get("replication");
        if (replication != null && !replication.equalsIgnoreCase("false") && !replication.equals("0")
                && !replication.equalsIgnoreCase("off") && !replication.equalsIgnoreCase("no")) {
            throw new ProtocolException(SqlState.FEATURE_NOT_SUPPORTED, "pgward does not relay replication connections");
        }
        database = m.parameters().getOrDefault("database", user);
        if (database.isEmpty()) {
            database = user;
        }
        pairs = m.pairs();
        parameters = new LinkedHashMap<>();
        List<String> unrecognized = new ArrayList<>();
        m.parameters().forEach((name, value) -> {
            if (name.startsWith("_pq_.")) {
                unrecognized.add(name);
            } else if (!name.equals("user") && !name.equals("database") && !name.equals("replication")) {
                parameters.put(name, value);
            }
        });
        ctx.pipeline().replace(StartupDecoder.class, "frontend-decoder", new FrontendDecoder());
        if (m.minor() > 0 || !unrecognized.isEmpty()) {
            ctx.write(Messages.negotiateProtocolVersion(ctx.alloc(), 0, unrecognized));
        }
        active = server.active();
        entry = agent ? server.agentLogin(active, user) : active.logins().find(user);
        // A trust or md5 login is still SCRAM on the agent listener: there the agent secret is the password.
        PgwardConfig.AuthMethod method = entry == null || agent ? PgwardConfig.AuthMethod.SCRAM_SHA_256
                : entry.login().auth();
        switch (method) {
            case TRUST -> connectBackend(ctx);
            case MD5 -> {
                phase = Phase.MD5;
                md5Salt = Md5Authentication.newSalt();
                ctx.writeAndFlush(Messages.authentication(ctx.alloc(), 5, md5Salt));
            }
            case SCRAM_SHA_256 -> {
                phase = Phase.SASL_INITIAL;
                // Unknown logins run a mock exchange that fails at the end, like a wrong password.
                scram = new ScramServerExchange(user, entry == null ? null : entry.verifier(), server.mockSecret(),
                        channelBinding(ctx));
                ctx.writeAndFlush(Messages.authentication(ctx.alloc(), 10, scram.mechanisms()));
            }
        }
    }

    private void authenticationResponse(ChannelHandlerContext ctx, ByteBuf body) throws AuthenticationFailed {
        switch (phase) {
            case SASL_INITIAL -> {
                String mechanism = Wire.readCString(body);
                if (!scram.select(mechanism)) {
                    throw new ProtocolException(SqlState.PROTOCOL_VIOLATION,
                            "client selected an invalid SASL authentication mechanism");
                }
                int length = body.readableBytes() >= 4 ? body.readInt() : -2;
                if (length < 0 || length != body.readableBytes()) {
                    throw new ProtocolException("malformed SASLInitialResponse message");
                }
                phase = Phase.SASL_CONTINUE;
                ctx.writeAndFlush(Messages.authentication(ctx.alloc(), 11, scram.serverFirst(bytes(body))));
            }
            case SASL_CONTINUE -> {
                byte[] serverFinal = scram.serverFinal(bytes(body));
                ctx.write(Messages.authentication(ctx.alloc(), 12, serverFinal));
                connectBackend(ctx);
            }
            case MD5 -> {
                String response = Wire.readCString(body);
                PgwardConfig.Login login = entry == null ? null : entry.login();
                if (login == null || login.password() == null || !Md5Authentication.matches(
                        Md5Authentication.storedForm(user, login.password().value()), md5Salt, response)) {
                    throw new AuthenticationFailed(user, "md5 response did not match");
                }
                connectBackend(ctx);
            }
            default -> throw new ProtocolException("unexpected authentication response");
        }
    }

    /** The certificate this connection's TLS presented, for SCRAM-SHA-256-PLUS; null without TLS. */
    private byte[] channelBinding(ChannelHandlerContext ctx) {
        SslHandler tls = encrypted ? ctx.pipeline().get(SslHandler.class) : null;
        return tls == null ? null : TlsServerEndPoint.of(tls.engine().getSession());
    }

    private void connectBackend(ChannelHandlerContext ctx) {
        phase = Phase.CONNECTING;
        PgwardConfig.Login login = entry.login();
        BackendTarget target;
        if (login.mode() == PgwardConfig.Mode.READ_ONLY) {
            switch (ReadOnlyStartup.decide(pairs, login)) {
                case ReadOnlyStartup.Refused refused -> {
                    ConnectionLog.info(log, connection, "refused the startup settings of read-only login \"{}\" "
                            + "({}): {}", user, refused.rule(), refused.error().message());
                    fail(ctx, refused.error());
                    return;
                }
                case ReadOnlyStartup.Accepted accepted -> target = new BackendTarget(login.backendUser(),
                        login.backendPassword(), database, accepted.parameters(), accepted.pins());
            }
        } else {
            // Read-write logins pass their settings through; a configured timeout comes last, so it wins over
            // any spelling of statement_timeout before it (PostgreSQL applies the keys in packet order).
            Map<String, String> startup = new LinkedHashMap<>(parameters);
            if (login.policy().statementTimeout() != null) {
                startup.keySet().removeIf(name -> StartupSettings.asciiLowerCase(name).equals("statement_timeout"));
                startup.put("statement_timeout", Long.toString(login.policy().statementTimeout().toMillis()));
            }
            target = new BackendTarget(login.backendUser(), login.backendPassword(), database, startup);
        }
        if (database.equals(ConfigLoader.ADMIN_DATABASE)) {
            adminConsole(ctx);
            return;
        }
        LocalDatabase local = server.localDatabases().get(database);
        if (local != null) {
            startLocal(ctx, local);
            return;
        }
        ctx.channel().config().setAutoRead(false);
        server.pool().acquire(ctx.channel().eventLoop(), target).addListener((Future<BackendConnection> f) -> {
            if (!ctx.channel().isActive()) {
                if (f.isSuccess()) {
                    io.pgward.wire.pool.BackendReset.start(server.pool(), f.getNow());
                }
                return;
            }
            if (f.isSuccess()) {
                ready(ctx, f.getNow());
            } else if (f.cause() instanceof BackendException e) {
                fail(ctx, new PgError("FATAL", e.error().sqlState(), e.error().message(), e.error().detail(),
                        e.error().hint(), 0));
            } else {
                fail(ctx, PgError.fatal(SqlState.CONNECTION_FAILURE,
                        "pgward could not connect to the database server: " + f.cause().getMessage()));
            }
        });
    }

    /**
     * Database {@code pgward} is the admin console, never a PostgreSQL database: only {@code admin.logins} get in;
     * anyone else gets PostgreSQL's answer for a database without the CONNECT privilege, after authentication,
     * as PostgreSQL checks it.
     */
    private void adminConsole(ChannelHandlerContext ctx) {
        LocalDatabase console = server.adminConsole();
        if (console == null || !active.config().isAdmin(user)) {
            ConnectionLog.info(log, connection, "refused login \"{}\" on the admin console: not in admin.logins",
                    user);
            fail(ctx, new PgError("FATAL", SqlState.INSUFFICIENT_PRIVILEGE, "permission denied for database \""
                    + database + "\"", "User does not have CONNECT privilege.", null, 0));
            return;
        }
        startLocal(ctx, console);
    }

    private void ready(ChannelHandlerContext ctx, BackendConnection backend) {
        phase = Phase.DONE;
        cancelTimeout();
        CancelRegistry keys = server.cancelKeys();
        CancelRegistry.Key key = keys.newKey(backend.processId());
        Session.Rules rules = new Session.Rules(server.gateFor(entry.login(), ctx.channel().eventLoop()),
                server.audit(), entry.login().policy().rowCap(), server.metrics().forLogin(entry.login().name()),
                server.pause());
        long id = ConnectedClient.number(connection);
        Session session = new Session(new Session.Identity(connection, user, database), rules, ctx.channel(),
                backend, server.pool(), keys.nonce(), unregistering(server, keys, key, id));
        keys.register(key, session::cancel);
        server.opened(key, session);
        server.opened(client(ctx, id, backend, session));
        ctx.write(Messages.authenticationOk(ctx.alloc()));
        backend.parameters().forEach((name, value) -> ctx.write(Messages.parameterStatus(ctx.alloc(), name, value)));
        ctx.write(Messages.backendKeyData(ctx.alloc(), key.processId(), key.secretKey()));
        ctx.write(Messages.readyForQuery(ctx.alloc(), 'I'));
        ctx.pipeline().get(FrontendDecoder.class).authenticated();
        ctx.pipeline().remove(this);
        session.start();
        ctx.flush();
        ctx.channel().config().setAutoRead(true);
        ConnectionLog.debug(log, connection, "login \"{}\" connected to database \"{}\" via {}", user, database,
                backend);
    }

    /** A database pgward answers itself: no backend, pgward's own server parameters. */
    private void startLocal(ChannelHandlerContext ctx, LocalDatabase local) {
        phase = Phase.DONE;
        cancelTimeout();
        CancelRegistry keys = server.cancelKeys();
        CancelRegistry.Key key = keys.newKey();
        long id = ConnectedClient.number(connection);
        LocalSession session = new LocalSession(connection, ctx.channel(), local, user, database,
                entry.login().policy(), server.audit(), unregistering(server, keys, key, id));
        keys.register(key, session::cancel);
        server.opened(client(ctx, id, null, session));
        ctx.write(Messages.authenticationOk(ctx.alloc()));
        Map<String, String> status = new LinkedHashMap<>(local.parameterStatus());
        status.putIfAbsent("client_encoding", "UTF8");
        status.putIfAbsent("server_encoding", "UTF8");
        status.putIfAbsent("standard_conforming_strings", "on");
        status.putIfAbsent("integer_datetimes", "on");
        status.putIfAbsent("DateStyle", "ISO, MDY");
        status.putIfAbsent("application_name", parameters.getOrDefault("application_name", ""));
        status.forEach((name, value) -> ctx.write(Messages.parameterStatus(ctx.alloc(), name, value)));
        ctx.write(Messages.backendKeyData(ctx.alloc(), key.processId(), key.secretKey()));
        ctx.write(Messages.readyForQuery(ctx.alloc(), 'I'));
        ctx.pipeline().get(FrontendDecoder.class).authenticated();
        ctx.pipeline().replace(this, "session", session);
        ctx.flush();
        ConnectionLog.debug(log, connection, "login \"{}\" connected to local database \"{}\"", user, database);
    }

    /**
     * What a session runs when it ends. Built from arguments, not from this handler: the session lives as long as
     * its client, and a lambda that captured {@code this} would keep the whole login exchange (startup packet,
     * SCRAM state, the cancelled timer) in memory for as long, about 0.8 KB per idle session.
     */
    /** Static, so that a session's end action keeps nothing of its login exchange alive (IdleSessionMemoryIT). */
    private static Runnable unregistering(ServerContext server, CancelRegistry keys, CancelRegistry.Key key,
                                          long id) {
        return () -> {
            keys.unregister(key);
            server.closed(key);
            server.clients().remove(id);
        };
    }

    private ConnectedClient client(ChannelHandlerContext ctx, long id, BackendConnection backend,
                                   ConnectedClient.Control control) {
        return new ConnectedClient(id, connection, entry.login(), database, ctx.channel().remoteAddress(),
                ctx.channel().localAddress(), java.time.Instant.now(), encrypted,
                parameters.getOrDefault("application_name", ""), active, backend, control);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        Throwable root = cause instanceof DecoderException && cause.getCause() != null ? cause.getCause() : cause;
        if (root instanceof UnansweredProtocolError e) {
            if (phase != Phase.DONE) {
                ConnectionLog.info(log, connection, "closed without an answer: {}", e.getMessage());
            }
            phase = Phase.DONE;
            cancelTimeout();
            ctx.close();
        } else if (root instanceof ProtocolException p) {
            fail(ctx, PgError.fatal(p.sqlState(), p.getMessage()));
        } else if (root instanceof javax.net.ssl.SSLException) {
            ConnectionLog.debug(log, connection, "TLS handshake failed: {}", root.getMessage());
            ctx.close();
        } else {
            ConnectionLog.warn(log, connection, "startup failed: {}", root.toString());
            fail(ctx, PgError.fatal(SqlState.PROTOCOL_VIOLATION, "pgward closed the connection: " + root.getMessage()));
        }
    }

    private PgError passwordFailed() {
        return PgError.fatal(SqlState.INVALID_PASSWORD, "password authentication failed for user \"" + user + "\"");
    }

    private void fail(ChannelHandlerContext ctx, PgError error) {
        phase = Phase.DONE;
        cancelTimeout();
        if (ctx.channel().isActive()) {
            ctx.writeAndFlush(error.encode(ctx.alloc())).addListener(f -> ctx.close());
        }
    }

    private void cancelTimeout() {
        if (timeout != null) {
            timeout.cancel(false);
        }
    }

    private static byte[] bytes(ByteBuf body) {
        byte[] bytes = new byte[body.readableBytes()];
        body.readBytes(bytes);
        return bytes;
    }
}
