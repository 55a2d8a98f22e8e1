package io.pgward.wire.startup;

import io.netty.handler.ssl.SslContext;
import io.pgward.wire.audit.AuditLog;
import io.pgward.wire.auth.ScramServerExchange;
import io.pgward.wire.config.PgwardConfig;
import io.pgward.wire.metrics.PgwardMetrics;
import io.pgward.wire.gate.SessionGates;
import io.pgward.wire.gate.StatementGate;
import io.pgward.wire.local.LocalDatabase;
import io.pgward.wire.pool.BackendPool;
import java.util.Map;
import java.util.concurrent.Executor;

/** What every connection of one running pgward shares. The server that makes it owns what it is given. */
public final class ServerContext {

    private final PgwardConfig config;
    private final SslContext sslContext;
    private final LoginDirectory logins;
    /** The logins the agent listener accepts with the agent secret; null without an MCP server. */
    private volatile LoginDirectory agentLogins;
    private final BackendPool pool;
    private final CancelRegistry cancelKeys = new CancelRegistry();
    private final SessionGates gates;
    private final byte[] mockSecret = ScramServerExchange.newMockSecret();
    private final AuditLog audit;
    private final Map<String, LocalDatabase> localDatabases;
    private final PgwardMetrics metrics;
    /** Relayed sessions past startup, for a drain on shutdown. */
    private final Map<CancelRegistry.Key, io.pgward.wire.relay.Session> sessions =
            new java.util.concurrent.ConcurrentHashMap<>();

    /**
     * @param sslContext     null when clients cannot use TLS
     * @param audit          null when nothing is audited
     * @param localDatabases databases pgward answers itself, by the name a client asks for
     */
    public ServerContext(PgwardConfig config, SslContext sslContext, BackendPool pool, SessionGates gates,
                         AuditLog audit, Map<String, LocalDatabase> localDatabases) {
        this(config, sslContext, pool, gates, audit, localDatabases, new PgwardMetrics());
    }

    /** @param metrics where sessions, verdicts and relayed bytes are counted */
    public ServerContext(PgwardConfig config, SslContext sslContext, BackendPool pool, SessionGates gates,
                         AuditLog audit, Map<String, LocalDatabase> localDatabases, PgwardMetrics metrics) {
        this.metrics = metrics;
        this.config = config;
        this.sslContext = sslContext;
        this.logins = new LoginDirectory(config.logins());
        this.pool = pool;
        this.gates = gates;
        this.audit = audit;
        this.localDatabases = Map.copyOf(localDatabases);
    }

    /** Sessions currently holding a cancel key, i.e. connected and past startup. */
    public int sessions() {
        return cancelKeys.size();
    }

    PgwardConfig config() {
        return config;
    }

    SslContext sslContext() {
        return sslContext;
    }

    LoginDirectory logins() {
        return logins;
    }

    /**
     * Opens the agent listener's logins: {@code names}, each with {@code secret} as its only password. Called once,
     * before the agent listener accepts anyone.
     */
    public void openAgentLogins(java.util.Collection<String> names, String secret) {
        agentLogins = LoginDirectory.forAgents(config.logins(), names, secret);
    }

    /** The agent listener's logins; empty (every login fails) until {@link #openAgentLogins}. */
    LoginDirectory agentLogins() {
        LoginDirectory opened = agentLogins;
        return opened == null ? LoginDirectory.forAgents(Map.of(), java.util.List.of(), "") : opened;
    }

    BackendPool pool() {
        return pool;
    }

    CancelRegistry cancelKeys() {
        return cancelKeys;
    }

    byte[] mockSecret() {
        return mockSecret;
    }

    /** The relayed sessions open now. */
    public java.util.Collection<io.pgward.wire.relay.Session> relayedSessions() {
        return java.util.List.copyOf(sessions.values());
    }

    void opened(CancelRegistry.Key key, io.pgward.wire.relay.Session session) {
        sessions.put(key, session);
    }

    void closed(CancelRegistry.Key key) {
        sessions.remove(key);
    }

    PgwardMetrics metrics() {
        return metrics;
    }

    AuditLog audit() {
        return audit;
    }

    Map<String, LocalDatabase> localDatabases() {
        return localDatabases;
    }

    /** The gate of a session run by {@code loop}, its event loop. */
    StatementGate gateFor(PgwardConfig.Login login, Executor loop) {
        return gates.forSession(login, loop);
    }

    /** Cancels the running statement of the session holding these (pgward-made) keys. */
    void cancel(int processId, int secretKey) {
        Runnable cancel = cancelKeys.find(processId, secretKey);
        if (cancel != null) {
            cancel.run();
        }
    }
}
