package io.pgward.wire.server;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.handler.ssl.SslContext;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.pgward.mcp.AgentDoor;
import io.pgward.wire.admin.AdminConsole;
import io.pgward.wire.admin.ReloadReport;
import io.pgward.wire.audit.AuditLog;
import io.pgward.wire.codec.StartupDecoder;
import io.pgward.wire.config.PgwardConfig;
import io.pgward.wire.gate.Gates;
import io.pgward.wire.gate.SessionGates;
import io.pgward.wire.gate.StatementGate;
import io.pgward.wire.local.LocalDatabase;
import io.pgward.wire.metrics.MetricsServer;
import io.pgward.wire.metrics.PgwardMetrics;
import io.pgward.wire.net.ServerTls;
import io.pgward.wire.net.Transport;
import io.pgward.wire.pool.BackendConnector;
import io.pgward.wire.pool.BackendPool;
import io.pgward.wire.startup.FrontendStartup;
import io.pgward.wire.startup.ServerContext;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The pgward server: accepts PostgreSQL clients on the configured address and relays each session to the
 * configured PostgreSQL. One event loop per core serves both sides of every session it accepted.
 */
public final class PgwardServer implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(PgwardServer.class);

    private final PgwardConfig config;
    private final EventLoopGroup boss;
    private final EventLoopGroup workers;
    private final BackendPool pool;
    private final AuditLog audit;
    private final SessionGates gates;
    private final ServerContext context;
    private final int ioThreads;
    private final Transport transport;
    private final AtomicLong connections = new AtomicLong();
    private final PgwardMetrics metrics;
    private final Reloader reloader;
    private final AdminConsole console;
    private Channel listener;
    private Channel agentListener;
    private MetricsServer metricsServer;
    private boolean closed;

    private PgwardServer(PgwardConfig config, Function<AuditLog, SessionGates> gates,
                         Map<String, LocalDatabase> localDatabases) {
        this.config = config;
        int threads = config.io().threadsFor(Runtime.getRuntime().availableProcessors());
        this.ioThreads = threads;
        this.transport = Transport.best(config.io().busyPoll());
        this.boss = transport.newGroup(1, new DefaultThreadFactory("pgward-accept", true));
        this.workers = transport.newGroup(threads, new DefaultThreadFactory("pgward-io", true));
        SslContext ssl = config.tls().mode() == PgwardConfig.TlsMode.DISABLE ? null : ServerTls.forClients(config.tls());
        this.pool = new BackendPool(new BackendConnector(config.backend(), transport), config.pool());
        this.audit = switch (config.audit().target()) {
            case STDOUT -> AuditLog.to(System.out);
            case FILE -> AuditLog.toFile(config.audit().file());
            case OFF -> null;
        };
        this.gates = gates.apply(audit);
        this.metrics = new PgwardMetrics().pool(pool);
        if (audit != null) {
            metrics.audit(audit);
        }
        this.gates.countIn(metrics);
        this.context = new ServerContext(config, ssl, pool, this.gates, audit, localDatabases, metrics);
        this.reloader = new Reloader(context, this.gates, workers);
        this.console = new AdminConsole(new ConsoleView());
        context.serveAdminConsole(console);
        log.info("pgward using {} transport with {} I/O threads{}", transport.name(), threads,
                config.io().busyPoll().isZero() ? "" : ", busy polling up to "
                        + config.io().busyPoll().toNanos() / 1000 + " µs");
    }

    /** Starts serving with every guard layer ({@link Gates#standard}). */
    public static PgwardServer start(PgwardConfig config) {
        return start(config, audit -> Gates.standard(config, audit), Map.of());
    }

    /**
     * Starts serving. {@code gates} makes, with the server's audit log (null when auditing is off), what decides
     * each session's {@link StatementGate}; the server closes it. A client that asks for one of the names in
     * {@code localDatabases} talks to that {@link LocalDatabase} instead of PostgreSQL.
     *
     * @throws IllegalStateException when the address cannot be bound
     */
    public static PgwardServer start(PgwardConfig config, Function<AuditLog, SessionGates> gates,
                                     Map<String, LocalDatabase> localDatabases) {
        PgwardServer server = new PgwardServer(config, gates, localDatabases);
        server.bind();
        return server;
    }

    /**
     * Starts without the clients' listener or metrics: only {@link #openAgentDoor} will accept sessions. For
     * {@code pgward mcp}, an agent's own process that serves one login over stdio.
     */
    public static PgwardServer startForAgentsOnly(PgwardConfig config, Map<String, LocalDatabase> localDatabases) {
        return new PgwardServer(config, audit -> Gates.standard(config, audit), localDatabases);
    }

    private void bind() {
        try {
            listener = bootstrap(false).bind(config.listen().host(), config.listen().port()).syncUninterruptibly()
                    .channel();
        } catch (Exception e) { // BindException arrives unchecked from Netty's future
            close();
            throw new IllegalStateException("cannot listen on " + config.listen() + ": " + e.getMessage(), e);
        }
        bound();
    }

    /**
     * Opens the agent listener for pgward's own MCP server: loopback, an ephemeral port, and {@code logins} each
     * opened only by a secret made here (256 random bits), held in memory and handed to the caller alone. The
     * statements that arrive there are relayed and judged exactly as on the clients' listener.
     */
    public synchronized AgentDoor openAgentDoor(java.util.Collection<String> logins, String database) {
        if (agentListener != null) {
            throw new IllegalStateException("the agent listener is open already");
        }
        byte[] random = new byte[32];
        new java.security.SecureRandom().nextBytes(random);
        String secret = java.util.HexFormat.of().formatHex(random);
        context.openAgentLogins(logins, secret);
        agentListener = bootstrap(true).bind("127.0.0.1", 0).syncUninterruptibly().channel();
        InetSocketAddress address = (InetSocketAddress) agentListener.localAddress();
        log.info("pgward agent listener on {} for the MCP server's logins {}", address, logins);
        return new AgentDoor(address.getHostString(), address.getPort(), database, secret);
    }

    private ServerBootstrap bootstrap(boolean agent) {
        return new ServerBootstrap()
                .group(boss, workers)
                .channel(transport.serverSocketChannel())
                .option(ChannelOption.SO_BACKLOG, 1024)
                .option(ChannelOption.SO_REUSEADDR, true)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childOption(ChannelOption.SO_KEEPALIVE, true)
                .childHandler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        String connection = (agent ? "a" : "c") + connections.incrementAndGet();
                        ch.pipeline().addLast("direct-tls", FrontendStartup.directTls(context, connection))
                                .addLast("startup-decoder", new StartupDecoder())
                                .addLast("startup", new FrontendStartup(context, connection, agent));
                    }
                });
    }

    private void bound() {
        log.info("pgward listening on {}, forwarding to {}", address(), pool.connector().address());
        if (config.metrics().isPresent()) {
            try {
                metricsServer = MetricsServer.start(config, metrics, () -> listener.isActive());
            } catch (IllegalStateException e) {
                close();
                throw e;
            }
            log.info("pgward serving metrics and health on http://{}:{}/metrics", config.metrics().get().host(),
                    metricsServer.port());
        }
    }

    /**
     * Reloads from {@code file} from now on (SIGHUP, RELOAD): it is read as at start, then {@code check} may refuse
     * it (throwing IllegalArgumentException with the key) before it is put in force.
     */
    public void reloadFrom(java.util.function.Supplier<PgwardConfig> file, java.util.function.Consumer<PgwardConfig> check) {
        reloader.from(file, check);
    }

    /** Reads the configuration file again: see {@link Reloader}. Blocks while it does; never on an event loop. */
    public ReloadReport reload() {
        return reloader.reload();
    }

    /** The configuration in force now (the logins a reload put in force). */
    public PgwardConfig activeConfig() {
        return context.active().config();
    }

    /** What the admin console reads of this server. */
    private final class ConsoleView implements AdminConsole.Server {
        @Override
        public java.util.List<io.pgward.wire.clients.ConnectedClient> clients() {
            return context.clients().all();
        }

        @Override
        public PgwardConfig config() {
            return context.active().config();
        }

        @Override
        public BackendPool pool() {
            return pool;
        }

        @Override
        public PgwardMetrics metrics() {
            return metrics;
        }

        @Override
        public io.pgward.wire.relay.Pause pause() {
            return context.pause();
        }

        @Override
        public ReloadReport reload() {
            return reloader.reload();
        }
    }

    /** The port of /metrics, /livez and /readyz, when {@code metrics.listen} is set. */
    public java.util.OptionalInt metricsPort() {
        return metricsServer == null ? java.util.OptionalInt.empty() : java.util.OptionalInt.of(metricsServer.port());
    }

    public PgwardMetrics metrics() {
        return metrics;
    }

    public InetSocketAddress address() {
        return (InetSocketAddress) listener.localAddress();
    }

    public int port() {
        return address().getPort();
    }

    /** The pool, for tests and metrics. */
    public BackendPool pool() {
        return pool;
    }

    public int ioThreads() {
        return ioThreads;
    }

    /** Sessions currently holding a cancel key, i.e. connected and past startup. */
    public int sessions() {
        return context.sessions();
    }

    /**
     * Stops as PostgreSQL's smart shutdown would for statements: accepts no more clients, lets each session's
     * running statements reach their ReadyForQuery (nothing sent later is forwarded), then ends the session with
     * 57P01; after {@code timeout} it ends the sessions left, cancelling what they run. Then {@link #close}s.
     * Sessions pgward answers itself (ArangoDB) end at the close.
     */
    public void drain(java.time.Duration timeout) {
        if (listener != null) {
            listener.close().syncUninterruptibly();
        }
        context.relayedSessions().forEach(io.pgward.wire.relay.Session::endWhenIdle);
        log.info("pgward stopping: {} sessions finish their statements, for at most {}",
                context.relayedSessions().size(), timeout);
        awaitNoSessions(timeout);
        java.util.Collection<io.pgward.wire.relay.Session> left = context.relayedSessions();
        if (!left.isEmpty()) {
            log.warn("pgward stopping: ending {} sessions whose statements did not finish in {}", left.size(),
                    timeout);
            left.forEach(io.pgward.wire.relay.Session::endNow);
            awaitNoSessions(java.time.Duration.ofSeconds(2));
        }
        close();
    }

    private void awaitNoSessions(java.time.Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!context.relayedSessions().isEmpty() && System.nanoTime() < deadline) {
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (metricsServer != null) {
            metricsServer.close();
        }
        if (listener != null) {
            listener.close().syncUninterruptibly();
        }
        if (agentListener != null) {
            agentListener.close().syncUninterruptibly();
        }
        pool.closeIdle();
        console.close();
        pool.connector().awaitCancels();
        workers.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
        boss.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
        gates.close();
        if (audit != null) {
            audit.close();
        }
    }
}
