package io.pgward.wire.admin;

import io.pgward.guard.Verdict;
import io.pgward.wire.clients.ConnectedClient;
import io.pgward.wire.config.PgwardConfig;
import io.pgward.wire.metrics.LoginMetrics;
import io.pgward.wire.metrics.PgwardMetrics;
import io.pgward.wire.pool.BackendConnection;
import io.pgward.wire.pool.BackendPool;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * The admin console's SHOW tables, with PgBouncer's column names where the column means the same. Every value is
 * text. Nothing here shows a password, a verifier, a statement's text or a bound value.
 */
final class AdminViews {

    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss 'UTC'")
            .withZone(ZoneOffset.UTC);

    private AdminViews() {
    }

    /** One row per session past its login; {@code state} is asked of each session on its own event loop. */
    static CompletionStage<Verdict.Answer> clients(List<ConnectedClient> clients) {
        List<CompletableFuture<String>> states = clients.stream()
                .map(c -> c.control().state().toCompletableFuture()).toList();
        return CompletableFuture.allOf(states.toArray(CompletableFuture[]::new)).thenApply(done -> {
            List<List<String>> rows = new ArrayList<>();
            for (int i = 0; i < clients.size(); i++) {
                ConnectedClient c = clients.get(i);
                rows.add(row(c.id(), c.login().name(), c.database(), states.get(i).join(), host(c.remote()),
                        port(c.remote()), host(c.local()), port(c.local()), TIME.format(c.connected()),
                        c.tls() ? "yes" : "no", c.applicationName(), mode(c.login().policy().mode()),
                        c.backend() == null ? "" : c.backend().processId()));
            }
            return answer(List.of("id", "user", "database", "state", "addr", "port", "local_addr", "local_port",
                    "connect_time", "tls", "application_name", "mode", "server_pid"), rows);
        });
    }

    /** The connections to PostgreSQL: those sessions use ({@code active}, with the client's id) and idle ones. */
    static Verdict.Answer servers(List<ConnectedClient> clients, BackendPool pool) {
        List<List<String>> rows = new ArrayList<>();
        for (ConnectedClient c : clients) {
            if (c.backend() != null) {
                rows.add(server(c.backend(), "active", Long.toString(c.id())));
            }
        }
        for (BackendConnection idle : pool.idleConnections()) {
            rows.add(server(idle, "idle", ""));
        }
        return answer(List.of("type", "user", "database", "state", "addr", "port", "local_addr", "local_port",
                "remote_pid", "link"), rows);
    }

    private static List<String> server(BackendConnection c, String state, String link) {
        SocketAddress remote = c.channel().remoteAddress();
        SocketAddress local = c.channel().localAddress();
        return row("S", c.target().user(), c.target().database(), state, host(remote), port(remote), host(local),
                port(local), c.processId(), link);
    }

    /** One row per PostgreSQL role and database the pool has served; pgward pools in session mode only. */
    static Verdict.Answer pools(BackendPool pool) {
        List<List<String>> rows = new ArrayList<>();
        for (BackendPool.SlotStats slot : pool.slotStats()) {
            int active = slot.open() - slot.idle();
            rows.add(row(slot.database(), slot.user(), active, slot.waiting(), active, slot.idle(),
                    pool.maxSize(), "session"));
        }
        return answer(List.of("database", "user", "cl_active", "cl_waiting", "sv_active", "sv_idle", "pool_size",
                "pool_mode"), rows);
    }

    /** Per login since pgward started: sessions, statements by verdict, row-cap stops and bytes. */
    static Verdict.Answer stats(PgwardMetrics metrics) {
        List<List<String>> rows = new ArrayList<>();
        for (Map.Entry<String, LoginMetrics> login : metrics.logins().entrySet()) {
            LoginMetrics.Totals t = login.getValue().totals();
            long statements = t.verdicts().values().stream().mapToLong(Long::longValue).sum();
            rows.add(row(login.getKey(), t.sessions(), t.openSessions(), statements,
                    t.verdicts().getOrDefault("allow", 0L), t.verdicts().getOrDefault("refuse", 0L),
                    t.verdicts().getOrDefault("answer", 0L), t.verdicts().getOrDefault("rewrite", 0L),
                    t.rowCapStops(), t.bytesFromClients(), t.bytesToClients()));
        }
        return answer(List.of("user", "total_sessions", "open_sessions", "total_query_count", "allowed", "refused",
                "answered", "rewritten", "row_cap_stops", "total_received", "total_sent"), rows);
    }

    /** Each configured login's policy in short: never its password, verifier or backend password. */
    static Verdict.Answer logins(PgwardConfig config, List<ConnectedClient> clients) {
        List<List<String>> rows = new ArrayList<>();
        for (PgwardConfig.Login login : config.logins().values()) {
            PgwardConfig.Policy policy = login.policy();
            long open = clients.stream().filter(c -> c.login().name().equals(login.name())).count();
            rows.add(row(login.name(), mode(policy.mode()), login.auth().name().toLowerCase().replace('_', '-'),
                    login.backendUser(), config.isAdmin(login.name()) ? "yes" : "no",
                    policy.tables().isEmpty() ? "all" : Integer.toString(policy.tables().size()),
                    String.join(", ", policy.tables()), policy.rowCap() == 0 ? "" : policy.rowCap(),
                    policy.statementTimeout() == null ? "" : policy.statementTimeout().toMillis() + "ms",
                    policy.rules() == null ? "no" : "yes", open));
        }
        return answer(List.of("user", "mode", "auth", "backend_user", "admin", "tables", "selection", "row_cap",
                "statement_timeout", "rules", "sessions"), rows);
    }

    static final List<String> HELP = List.of(
            "Console usage",
            "\tSHOW HELP|CLIENTS|SERVERS|POOLS|STATS|LOGINS",
            "\tRELOAD",
            "\tPAUSE",
            "\tRESUME",
            "\tKILL <client id>");

    static Verdict.Answer help() {
        return new Verdict.Answer(List.of(), List.of(), "SHOW", HELP);
    }

    private static String mode(PgwardConfig.Mode mode) {
        return mode == PgwardConfig.Mode.READ_ONLY ? "read-only" : "read-write";
    }

    private static String host(SocketAddress address) {
        return address instanceof InetSocketAddress inet ? inet.getAddress() == null ? inet.getHostString()
                : inet.getAddress().getHostAddress() : "";
    }

    private static String port(SocketAddress address) {
        return address instanceof InetSocketAddress inet ? Integer.toString(inet.getPort()) : "";
    }

    private static List<String> row(Object... values) {
        List<String> row = new ArrayList<>(values.length);
        for (Object value : values) {
            row.add(String.valueOf(value));
        }
        return row;
    }

    private static Verdict.Answer answer(List<String> columns, List<List<String>> rows) {
        return new Verdict.Answer(columns, rows, "SHOW", List.of());
    }
}
