package io.pgward.wire.admin;

import io.pgward.guard.Verdict;
import io.pgward.wire.clients.ConnectedClient;
import io.pgward.wire.config.PgwardConfig;
import io.pgward.wire.local.LocalDatabase;
import io.pgward.wire.local.LocalDatabaseException;
import io.pgward.wire.metrics.PgwardMetrics;
import io.pgward.wire.pool.BackendPool;
import io.pgward.wire.protocol.PgError;
import io.pgward.wire.protocol.SqlState;
import io.pgward.wire.relay.Pause;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The admin console, database {@code pgward}, modelled on PgBouncer's {@code pgbouncer} database: SHOW CLIENTS,
 * SERVERS, POOLS, STATS, LOGINS and HELP, RELOAD, PAUSE, RESUME and KILL. Only {@code admin.logins} reach it
 * (checked when they log in). Served by the same {@code LocalSession} as pgward's other local databases, so the
 * simple and the extended protocol both work; a command takes no parameters.
 *
 * <p>PAUSE, as PgBouncer's: the server stops forwarding new requests of every relayed session, waits until no
 * statement runs on PostgreSQL for any of them, then answers; held requests go on at RESUME. Sessions pgward answers
 * itself (ArangoDB, this console) are not paused.
 */
public final class AdminConsole implements LocalDatabase {

    private static final Logger log = LoggerFactory.getLogger(AdminConsole.class);

    /** What the console reads and acts on. */
    public interface Server {

        List<ConnectedClient> clients();

        /** The configuration in force. */
        PgwardConfig config();

        BackendPool pool();

        PgwardMetrics metrics();

        Pause pause();

        /** Reads the configuration file again; blocks while it does. */
        ReloadReport reload();
    }

    private static final long KILL_WAIT_NANOS = java.util.concurrent.TimeUnit.SECONDS.toNanos(2);

    private final Server server;
    /** RELOAD reads a file and hashes passwords; PAUSE waits: neither may run on an event loop. */
    private final ExecutorService work = Executors.newThreadPerTaskExecutor(
            Thread.ofVirtual().name("pgward-admin-", 0).factory());
    private final Map<String, String> parameterStatus;

    public AdminConsole(Server server) {
        this.server = server;
        // psql warns of the version difference and stays on its current paths.
        this.parameterStatus = LocalDatabase.standardParameterStatus("17.0 (pgward admin console)");
    }

    @Override
    public Map<String, String> parameterStatus() {
        return parameterStatus;
    }

    @Override
    public CompletionStage<Verdict.Answer> execute(Statement statement) {
        try {
            if (!statement.parameters().isEmpty()) {
                throw LocalDatabaseException.error(SqlState.FEATURE_NOT_SUPPORTED,
                        "admin console commands take no parameters");
            }
            return run(AdminCommand.parse(statement.sql()), statement);
        } catch (LocalDatabaseException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    private CompletionStage<Verdict.Answer> run(AdminCommand command, Statement statement) {
        return switch (command) {
            case AdminCommand.Show show -> show(show.what());
            case AdminCommand.Reload r -> CompletableFuture.supplyAsync(() -> reload(statement.login()), work);
            case AdminCommand.Pause p -> CompletableFuture.supplyAsync(() -> pause(statement.login()), work);
            case AdminCommand.Resume r -> CompletableFuture.completedFuture(resume(statement.login()));
            case AdminCommand.Kill kill -> CompletableFuture.supplyAsync(() -> kill(kill.client(), statement.login()),
                    work);
            case AdminCommand.Set set -> CompletableFuture.completedFuture(
                    new Verdict.Answer(List.of(), List.of(), "SET", List.of()));
        };
    }

    private CompletionStage<Verdict.Answer> show(String what) {
        return switch (what) {
            case "CLIENTS" -> AdminViews.clients(server.clients());
            case "SERVERS" -> CompletableFuture.completedFuture(AdminViews.servers(server.clients(), server.pool()));
            case "POOLS" -> CompletableFuture.completedFuture(AdminViews.pools(server.pool()));
            case "STATS" -> CompletableFuture.completedFuture(AdminViews.stats(server.metrics()));
            case "LOGINS" -> CompletableFuture.completedFuture(AdminViews.logins(server.config(), server.clients()));
            case "HELP" -> CompletableFuture.completedFuture(AdminViews.help());
            default -> CompletableFuture.failedFuture(new LocalDatabaseException(SqlState.SYNTAX_ERROR,
                    "SHOW " + what + " is not an admin console command", null, AdminCommand.HINT, "refuse",
                    "admin-command"));
        };
    }

    private Verdict.Answer reload(String login) {
        log.info("RELOAD by login \"{}\"", login);
        ReloadReport report = server.reload();
        if (!report.applied()) {
            // PostgreSQL's class F0 (configuration file error).
            throw new LocalDatabaseException("F0000", "configuration rejected, the old one stays: " + report.error(),
                    null, null, "error", null);
        }
        return new Verdict.Answer(List.of(), List.of(), "RELOAD", report.lines());
    }

    private Verdict.Answer pause(String login) {
        if (server.pause().held()) {
            throw LocalDatabaseException.error("55000", "pgward is already paused");
        }
        log.info("PAUSE by login \"{}\": new requests wait; waiting for running statements", login);
        server.pause().hold();
        while (server.pause().held() && !quiet()) {
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw LocalDatabaseException.error(SqlState.QUERY_CANCELED, "canceling statement due to user request");
            }
        }
        log.info("PAUSE: no statement runs");
        return new Verdict.Answer(List.of(), List.of(), "PAUSE", List.of());
    }

    private boolean quiet() {
        List<CompletableFuture<Boolean>> all = server.clients().stream().filter(c -> c.backend() != null)
                .map(c -> c.control().quiet().toCompletableFuture()).toList();
        return all.stream().allMatch(CompletableFuture::join);
    }

    private Verdict.Answer resume(String login) {
        if (!server.pause().held()) {
            throw LocalDatabaseException.error("55000", "pgward is not paused");
        }
        log.info("RESUME by login \"{}\"", login);
        server.pause().release();
        return new Verdict.Answer(List.of(), List.of(), "RESUME", List.of());
    }

    private Verdict.Answer kill(long id, String login) {
        ConnectedClient client = server.clients().stream().filter(c -> c.id() == id).findFirst()
                .orElseThrow(() -> LocalDatabaseException.error("42704", "no client with id " + id));
        log.info("KILL by login \"{}\": ending session {} of login \"{}\"", login, client.connection(),
                client.login().name());
        client.control().endNow(new PgError("FATAL", SqlState.ADMIN_SHUTDOWN,
                "terminating connection due to administrator command",
                "An administrator ended this session with KILL on pgward's admin console.", null, 0));
        // KILL answers once the session has ended, so that what the caller does next finds it gone.
        long deadline = System.nanoTime() + KILL_WAIT_NANOS;
        while (server.clients().stream().anyMatch(c -> c.id() == id) && System.nanoTime() < deadline) {
            try {
                Thread.sleep(5);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        return new Verdict.Answer(List.of(), List.of(), "KILL", List.of());
    }

    /** Stops the console's own work (a PAUSE that waits); the server calls it when it closes. */
    public void close() {
        work.shutdownNow();
    }
}
