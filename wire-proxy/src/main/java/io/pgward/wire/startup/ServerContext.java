package io.pgward.wire.startup;

import io.netty.handler.ssl.SslContext;
import io.pgward.wire.audit.AuditLog;
import io.pgward.wire.auth.ScramServerExchange;
import io.pgward.scram.ScramVerifier;
import io.pgward.wire.config.PgwardConfig;
import io.pgward.wire.metrics.PgwardMetrics;
import io.pgward.wire.gate.SessionGates;
import io.pgward.wire.gate.StatementGate;
import io.pgward.wire.local.LocalDatabase;
import io.pgward.wire.pool.BackendPool;
import java.util.Map;
import io.pgward.wire.clients.ClientRegistry;
import io.pgward.wire.clients.ConnectedClient;
import io.pgward.wire.admin.PolicyChange;
import io.pgward.wire.config.ConfigLoader;
import io.pgward.wire.relay.Pause;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicReference;

/** What every connection of one running pgward shares. The server that makes it owns what it is given. */
public final class ServerContext {

    /** Replaced whole by a reload; a session reads it once, when it logs in. */
    private final AtomicReference<ActiveConfig> active;
    private final SslContext sslContext;
    /** The agent listener's logins and their one password; null without an MCP server. */
    private volatile AgentLogins agentLogins;
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
    /** Every session past its login, for the admin console, a reload and KILL. */
    private final ClientRegistry clients = new ClientRegistry();
    private final Pause pause = new Pause();
    private final Map<String, LocalDatabase> adminConsole = new java.util.concurrent.ConcurrentHashMap<>();

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
        this.active = new AtomicReference<>(ActiveConfig.of(config));
        this.sslContext = sslContext;
        this.pool = pool;
        this.gates = gates;
        this.audit = audit;
        this.localDatabases = Map.copyOf(localDatabases);
    }

    /** Sessions currently holding a cancel key, i.e. connected and past startup. */
    public int sessions() {
        return cancelKeys.size();
    }

    /** The configuration in force now. */
    public ActiveConfig active() {
        return active.get();
    }

    /** Puts {@code next} in force at once: sessions that log in from now on get it. */
    public void activate(ActiveConfig next) {
        active.set(next);
    }

    PgwardConfig config() {
        return active.get().config();
    }

    public ClientRegistry clients() {
        return clients;
    }

    /** What PAUSE and RESUME hold and release. */
    public Pause pause() {
        return pause;
    }

    /** Serves the admin console, database {@code pgward}, with {@code console}. */
    public void serveAdminConsole(LocalDatabase console) {
        adminConsole.put(ConfigLoader.ADMIN_DATABASE, console);
    }

    /** The admin console, or null when this server has none. */
    LocalDatabase adminConsole() {
        return adminConsole.get(ConfigLoader.ADMIN_DATABASE);
    }

    SslContext sslContext() {
        return sslContext;
    }

    /**
     * Opens the agent listener's logins: {@code names}, each with {@code secret} as its only password. Called once,
     * before the agent listener accepts anyone.
     */
    public void openAgentLogins(java.util.Collection<String> names, String secret) {
        agentLogins = new AgentLogins(java.util.Set.copyOf(names), ScramVerifier.fromPassword(secret));
    }

    /**
     * A login of the agent listener, with the agent secret as its only password, or null (every login fails until
     * {@link #openAgentLogins}). Its policy is the one {@code current} has, so a reload that narrows or removes the
     * login holds agents to it as it holds clients.
     */
    LoginDirectory.Entry agentLogin(ActiveConfig current, String name) {
        AgentLogins opened = agentLogins;
        PgwardConfig.Login login = current.login(name);
        if (opened == null || login == null || !opened.names().contains(name)) {
            return null;
        }
        return new LoginDirectory.Entry(login, opened.verifier());
    }

    private record AgentLogins(java.util.Set<String> names, ScramVerifier verifier) {
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

    /**
     * A session is past its login. One that logged in with a configuration a reload has since replaced is held to
     * the new one here: the reload may have gone over the sessions before this one was listed.
     */
    void opened(ConnectedClient client) {
        clients.add(client);
        ActiveConfig now = active.get();
        if (now != client.startedUnder()) {
            String narrowed = narrowing(client, now);
            if (narrowed != null) {
                client.control().endWhenIdle(PolicyChange.ended(narrowed));
            }
        }
    }

    /** Why {@code client} cannot go on under {@code config}, or null when it can. */
    public static String narrowing(ConnectedClient client, ActiveConfig config) {
        String name = client.login().name();
        return PolicyChange.narrowing(client.login(), config.login(name),
                client.database().equals(ConfigLoader.ADMIN_DATABASE), config.config().isAdmin(name));
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
