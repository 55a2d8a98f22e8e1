package io.pgward.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgward.testkit.PostgresTest;
import io.pgward.testkit.SampleData;
import io.pgward.testkit.TestDatabase;
import io.pgward.wire.config.PgwardConfig;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The session views through pgward (issue 13): an analyst with a table selection reads pg_locks, pg_stat_activity and
 * pg_stat_ssl of its own backend only, in both protocols, while other sessions (another analyst, the owner holding
 * a lock on the hidden payment_tokens) hold locks and run queries; a selected view over payment_tokens
 * ({@code v_token_count}) locks it in the analyst's own transaction, and that lock does not show either.
 */
@PostgresTest(sampleData = SampleData.SMALL)
class SessionViewsIT {

    private static ProxyFixture proxy;
    private static TestDatabase database;
    private static String paymentTokens;
    private static String tokenCount;

    @BeforeAll
    static void start(TestDatabase db) throws SQLException {
        database = db;
        try (Connection c = db.connect(); Statement s = c.createStatement()) {
            s.execute("CREATE VIEW public.v_token_count AS SELECT count(*) AS n FROM public.payment_tokens");
            paymentTokens = single(s, "SELECT 'public.payment_tokens'::regclass::oid");
            tokenCount = single(s, "SELECT 'public.v_token_count'::regclass::oid");
        }
        List<String> selection = new ArrayList<>(RelationsAndDescribeIT.SELECTION);
        selection.add("public.v_token_count");
        proxy = ProxyFixture.start(db, ProxyFixture.STANDARD_GATES, null, PgwardConfig.TlsMode.DISABLE, 6,
                ProxyFixture.policy("analyst", p -> p.withTables(selection)));
    }

    @AfterAll
    static void stop() {
        proxy.close();
    }

    private static Connection connect(String mode) throws SQLException {
        return proxy.connectInMode("analyst", mode);
    }

    private static String single(Statement s, String sql) throws SQLException {
        List<String> rows = rows(s, sql);
        assertEquals(1, rows.size(), sql + ": " + rows);
        return rows.getFirst();
    }

    private static List<String> rows(Statement s, String sql) throws SQLException {
        List<String> rows = new ArrayList<>();
        try (ResultSet rs = s.executeQuery(sql)) {
            int n = rs.getMetaData().getColumnCount();
            while (rs.next()) {
                List<String> cells = new ArrayList<>();
                for (int i = 1; i <= n; i++) {
                    cells.add(String.valueOf(rs.getString(i)));
                }
                rows.add(String.join("|", cells));
            }
        }
        return rows;
    }

    @Test
    void otherSessionsLocksAndQueriesDoNotShow() throws SQLException {
        for (String mode : List.of("simple", "extended")) {
            try (Connection owner = database.connect(); Statement o = owner.createStatement();
                 Connection holder = connect(mode); Statement h = holder.createStatement();
                 Connection reader = connect(mode); Statement r = reader.createStatement()) {
                owner.setAutoCommit(false);
                o.executeQuery("SELECT count(*) FROM public.payment_tokens").close();
                holder.setAutoCommit(false);
                h.executeQuery("SELECT count(*) FROM public.orders").close();
                String holderPid = single(h, "SELECT pg_backend_pid()");
                String own = single(r, "SELECT pg_backend_pid()");
                try (Connection watcher = database.connect(); Statement w = watcher.createStatement()) {
                    assertFalse(rows(w, "SELECT pid FROM pg_catalog.pg_locks WHERE relation = " + paymentTokens)
                            .isEmpty(), "the owner holds a lock on payment_tokens");
                    assertTrue(rows(w, "SELECT query FROM pg_catalog.pg_stat_activity").stream()
                            .anyMatch(q -> q.contains("payment_tokens")), "the owner's query is listed directly");
                }

                assertEquals(List.of(), rows(r, "SELECT pid FROM pg_locks WHERE pid <> pg_backend_pid()"), mode);
                assertEquals(List.of(), rows(r, "SELECT relation FROM pg_catalog.pg_locks WHERE relation = "
                        + paymentTokens), mode);
                assertEquals(List.of(), rows(r, "SELECT l.pid FROM pg_locks l JOIN pg_class c ON c.oid = l.relation "
                        + "WHERE c.relname = 'orders'"), mode);
                assertEquals(List.of(own), rows(r, "SELECT DISTINCT pid FROM pg_locks"), mode);
                assertEquals(List.of(own), rows(r, "SELECT pid FROM pg_stat_activity"), mode);
                assertEquals(List.of(), rows(r, "SELECT query FROM pg_stat_activity WHERE pid = " + holderPid), mode);
                // The owner's last query names payment_tokens; this statement's own text must not, to count it.
                assertEquals(List.of("0"), rows(r, "SELECT count(*) FROM pg_stat_activity "
                        + "WHERE position(chr(112) || 'ayment_tokens' in query) > 0"), mode);
                assertEquals(List.of(own + "|null"), rows(r, "SELECT pid, client_addr FROM pg_stat_ssl "
                        + "JOIN pg_stat_activity USING (pid)"), mode);
                owner.rollback();
                holder.rollback();
            }
        }
    }

    /** The owner's COPY into payment_tokens is listed directly; the analyst sees its own backend's rows only. */
    @Test
    void anotherSessionsProgressAndGssapiRowsDoNotShow() throws SQLException {
        for (String mode : List.of("simple", "extended")) {
            try (Connection owner = database.connect(); Connection reader = connect(mode);
                 Statement r = reader.createStatement()) {
                String own = single(r, "SELECT pg_backend_pid()");
                org.postgresql.copy.CopyIn copy = owner.unwrap(org.postgresql.PGConnection.class).getCopyAPI()
                        .copyIn("COPY public.payment_tokens FROM STDIN");
                try {
                    try (Connection watcher = database.connect(); Statement w = watcher.createStatement()) {
                        assertEquals(List.of(paymentTokens),
                                rows(w, "SELECT relid FROM pg_catalog.pg_stat_progress_copy"));
                    }
                    assertEquals(List.of(), rows(r, "SELECT pid, relid FROM pg_stat_progress_copy"), mode);
                    for (String view : List.of("analyze", "basebackup", "cluster", "create_index", "vacuum")) {
                        assertEquals(List.of(), rows(r, "SELECT * FROM pg_catalog.pg_stat_progress_" + view), mode);
                    }
                    assertEquals(List.of(own + "|null"), rows(r, "SELECT pid, principal FROM pg_stat_gssapi"), mode);
                } finally {
                    copy.cancelCopy();
                }
            }
        }
    }

    @Test
    void theOwnLockOnATableUnderASelectedViewDoesNotShow() throws SQLException {
        for (String mode : List.of("simple", "extended")) {
            try (Connection c = connect(mode); Statement s = c.createStatement()) {
                c.setAutoCommit(false);
                single(s, "SELECT n FROM v_token_count");
                List<String> relations = rows(s, "SELECT relation FROM pg_locks WHERE relation IS NOT NULL");
                assertTrue(relations.contains(tokenCount), mode + ": " + relations);
                assertFalse(relations.contains(paymentTokens), mode + ": " + relations);
                assertEquals(List.of("0"), rows(s, "WITH l AS (SELECT * FROM pg_catalog.pg_locks) "
                        + "SELECT count(*) FROM l WHERE relation NOT IN (SELECT oid FROM pg_class)"), mode);
                c.rollback();
            }
        }
    }

    /** The tool corpus's #08, #14, #23 and #56 run. */
    @Test
    void toolCorpusStatementsRun() throws SQLException {
        for (String mode : List.of("simple", "extended")) {
            try (Connection c = connect(mode); Statement s = c.createStatement()) {
                assertEquals(List.of(), rows(s, "select L.transactionid::varchar::bigint as transaction_id "
                        + "from pg_catalog.pg_locks L where L.transactionid is not null "
                        + "order by pg_catalog.age(L.transactionid) desc limit 1"), mode);
                assertTrue(rows(s, "select name, is_dst from pg_catalog.pg_timezone_names union distinct "
                        + "select abbrev as name, is_dst from pg_catalog.pg_timezone_abbrevs").size() > 100, mode);
                assertEquals(List.of("f"), rows(s, "select ssl from pg_stat_ssl where pid = pg_backend_pid()"), mode);
                assertEquals(List.of("null"), rows(s, "SELECT CASE WHEN (SELECT count(extname) FROM "
                        + "pg_catalog.pg_extension WHERE extname='bdr') > 0 THEN 'pgd' WHEN (SELECT COUNT(*) FROM "
                        + "pg_replication_slots) > 0 THEN 'log' ELSE NULL END as type"), mode);
            }
        }
    }
}
