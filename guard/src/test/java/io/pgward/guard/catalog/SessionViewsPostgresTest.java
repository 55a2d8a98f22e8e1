package io.pgward.guard.catalog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgward.guard.Verdict;
import io.pgward.testkit.PostgresTest;
import io.pgward.testkit.TestDatabase;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The session views a selection login reads filtered (pg_locks, pg_stat_activity, pg_stat_ssl, pg_stat_gssapi and
 * the pg_stat_progress_* views: the own backend only;
 * pg_replication_slots: no rows; the time zone views: whole), on a real PostgreSQL (14 to 18 with -Dpg.version).
 * Beside the guard corpus's selection, {@code public.v_secret_count} is selected: a view over the hidden
 * {@code public.secrets}, so reading it locks a relation the login may not see. A second connection holds locks of
 * its own. Every rewritten statement runs on the connection that reads, as the client's backend would.
 */
@PostgresTest
class SessionViewsPostgresTest {

    private static final String PATH = "\"$user\", public";

    private static TestDatabase db;
    private static CatalogCheck check;
    private static TableSelection selection;
    private static long secrets;
    private static long secretCount;
    private static long orders;

    @BeforeAll
    static void start(TestDatabase database) throws Exception {
        db = database;
        try (Connection c = db.connect(); Statement s = c.createStatement()) {
            GuardFixture.load(c);
            s.execute("CREATE VIEW public.v_secret_count AS SELECT count(*) AS n FROM public.secrets");
            // A user table and function that share the system names, for search_path.
            s.execute("CREATE TABLE public.pg_locks (pid int, relation oid, objid oid, note text)");
            s.execute("INSERT INTO public.pg_locks VALUES (1, 1, NULL, 'user table')");
            s.execute("CREATE FUNCTION public.pg_backend_pid() RETURNS int LANGUAGE sql AS 'SELECT 0'");
            List<String> names = new ArrayList<>(GuardFixture.SELECTED);
            names.add("public.v_secret_count");
            selection = FilteredFixture.filteredSelection(c, names);
            secrets = oid(c, "public.secrets");
            secretCount = oid(c, "public.v_secret_count");
            orders = oid(c, "public.orders");
        }
        check = FilteredFixture.check(db);
    }

    @AfterAll
    static void stop() {
        check.close();
    }

    private static long oid(Connection c, String name) throws SQLException {
        return Long.parseLong(rows(c, "SELECT '" + name + "'::regclass::oid").getFirst());
    }

    private static String rewrite(String sql, String path) {
        return FilteredFixture.rewrite(sql, path, selection);
    }

    private static Verdict verdict(String sql) {
        return check.checkNow(CheckRequest.of(selection, null, PATH, sql));
    }

    /** The statement rewritten, checked as allowed while the client's own text is refused. */
    private static String allowed(String sql) {
        String rewritten = rewrite(sql, PATH);
        assertNotEquals(sql, rewritten, "not rewritten: " + sql);
        assertEquals(Verdict.ALLOW, verdict(rewritten), rewritten);
        assertInstanceOf(Verdict.Refuse.class, verdict(sql), sql);
        return rewritten;
    }

    private static void assertRefused(String sql) {
        Verdict.Refuse refuse = assertInstanceOf(Verdict.Refuse.class, verdict(sql), sql);
        assertEquals(CatalogRefusals.RELATION, refuse.rule(), refuse.message());
    }

    /** Every row, its cells joined with "|". */
    private static List<String> rows(Connection c, String sql) throws SQLException {
        return FilteredFixture.rows(c, sql);
    }

    private static String pid(Connection c) throws SQLException {
        return rows(c, "SELECT pg_backend_pid()").getFirst();
    }

    @Test
    void everySessionViewIsServed() {
        for (FilteredView view : List.of(FilteredView.PG_LOCKS, FilteredView.PG_STAT_ACTIVITY,
                FilteredView.PG_STAT_SSL, FilteredView.PG_REPLICATION_SLOTS, FilteredView.PG_TIMEZONE_NAMES,
                FilteredView.PG_TIMEZONE_ABBREVS, FilteredView.PG_STAT_GSSAPI, FilteredView.PG_STAT_PROGRESS_ANALYZE,
                FilteredView.PG_STAT_PROGRESS_BASEBACKUP, FilteredView.PG_STAT_PROGRESS_CLUSTER,
                FilteredView.PG_STAT_PROGRESS_COPY, FilteredView.PG_STAT_PROGRESS_CREATE_INDEX,
                FilteredView.PG_STAT_PROGRESS_VACUUM)) {
            assertNotNull(selection.views().byName(view.schema(), view.relation()), view.name());
            allowed("SELECT * FROM " + view.schema() + "." + view.relation());
        }
    }

    /** The tool corpus's statements #08, #14, #23 and #56 (DataGrip, pgAdmin). */
    @Test
    void toolCorpusStatementsRun() throws SQLException {
        try (Connection c = db.connect()) {
            assertEquals(List.of(), rows(c, allowed("""
                    select L.transactionid::varchar::bigint as transaction_id
                            from pg_catalog.pg_locks L
                            where L.transactionid is not null
                            order by pg_catalog.age(L.transactionid) desc
                            limit 1""")));
            String zones = """
                    select name, is_dst from pg_catalog.pg_timezone_names
                            union distinct
                            select abbrev as name, is_dst from pg_catalog.pg_timezone_abbrevs""";
            List<String> served = rows(c, allowed(zones));
            assertTrue(served.size() > 100, served.toString());
            assertEquals(rows(c, zones + " ORDER BY 1, 2"), rows(c, rewrite(zones + " ORDER BY 1, 2", PATH)));
            assertEquals(List.of("f"), rows(c, allowed("select ssl from pg_stat_ssl where pid = pg_backend_pid()")));
            assertEquals(List.of("null"), rows(c, allowed("""
                    SELECT CASE
                            WHEN (SELECT count(extname) FROM pg_catalog.pg_extension WHERE extname='bdr') > 0
                            THEN 'pgd'
                            WHEN (SELECT COUNT(*) FROM pg_replication_slots) > 0
                            THEN 'log'
                            ELSE NULL
                        END as type""")));
        }
    }

    /**
     * Reading a selected view over a hidden table locks the hidden table too, in the own session: its row does not
     * show, in a join with pg_class, a sublink, a CTE or a set operation, while the view's lock does.
     */
    @Test
    void theOwnLocksOnHiddenRelationsDoNotShow() throws SQLException {
        try (Connection c = db.connect()) {
            c.setAutoCommit(false);
            rows(c, "SELECT n FROM public.v_secret_count");
            List<String> all = rows(c, "SELECT relation FROM pg_catalog.pg_locks WHERE pid = pg_backend_pid()");
            assertTrue(all.contains(Long.toString(secrets)), "the session holds a lock on the hidden table: " + all);
            List<String> relations = rows(c, allowed("SELECT relation FROM pg_catalog.pg_locks"));
            assertTrue(relations.contains(Long.toString(secretCount)), relations.toString());
            assertFalse(relations.contains(Long.toString(secrets)), relations.toString());
            List<String> everything = rows(c, allowed("SELECT * FROM pg_locks"));
            assertFalse(everything.isEmpty());
            everything.forEach(r -> assertFalse(r.contains("|" + secrets + "|"), r));
            List<String> names = rows(c, allowed("SELECT c.relname, l.mode FROM pg_locks l "
                    + "JOIN pg_class c ON c.oid = l.relation ORDER BY 1"));
            assertTrue(names.contains("v_secret_count|AccessShareLock"), names.toString());
            names.forEach(r -> assertFalse(r.startsWith("secrets"), r));
            assertEquals(List.of("0"), rows(c, allowed("SELECT count(*) FROM pg_class WHERE oid IN "
                    + "(SELECT relation FROM pg_catalog.pg_locks) AND relname = 'secrets'")));
            assertEquals(List.of(), rows(c, allowed("WITH l AS (SELECT * FROM pg_locks) SELECT relation FROM l "
                    + "WHERE relation = " + secrets)));
            // A division by zero on the hidden table's row would fail the statement: the row never reaches it.
            assertFalse(rows(c, allowed("SELECT relation FROM pg_locks WHERE relation = " + secrets
                    + " UNION ALL SELECT relation FROM pg_catalog.pg_locks WHERE 1 / (relation::int8 - " + secrets
                    + ") = 0")).contains(Long.toString(secrets)));
            // Built-in catalogs' locks follow what each statement touched: not shown either.
            rows(c, "SELECT count(*) FROM pg_catalog.pg_class");
            assertEquals(List.of(), rows(c, allowed("SELECT relation FROM pg_locks WHERE relation < 16384")));
            c.rollback();
        }
    }

    /** Another session's locks, activity and connection never show, whatever the statement asks for. */
    @Test
    void otherSessionsDoNotShow() throws SQLException {
        try (Connection reader = db.connect(); Connection other = db.connect()) {
            other.setAutoCommit(false);
            rows(other, "SELECT count(*) FROM public.orders");
            String otherPid = pid(other);
            String own = pid(reader);
            assertTrue(rows(reader, "SELECT pid FROM pg_catalog.pg_locks WHERE relation = " + orders)
                    .contains(otherPid), "the other session holds a lock on orders");
            assertEquals(List.of(), rows(reader, allowed("SELECT pid FROM pg_locks WHERE relation = " + orders)));
            assertEquals(List.of(), rows(reader, allowed("SELECT * FROM pg_locks WHERE pid <> pg_backend_pid()")));
            assertEquals(List.of(), rows(reader, allowed("SELECT * FROM pg_catalog.pg_locks WHERE pid = " + otherPid)));
            assertTrue(rows(reader, "SELECT pid FROM pg_catalog.pg_stat_activity").contains(otherPid));
            assertEquals(List.of(own), rows(reader, allowed("SELECT pid FROM pg_stat_activity")));
            assertEquals(List.of(own), rows(reader, allowed("SELECT pid FROM pg_stat_activity UNION "
                    + "SELECT pid FROM pg_stat_ssl UNION SELECT pid FROM pg_locks")));
            assertEquals(List.of("0"), rows(reader, allowed("SELECT count(*) FROM pg_stat_activity a "
                    + "WHERE EXISTS (SELECT 1 FROM pg_locks l WHERE l.pid <> a.pid)")));
            assertEquals(List.of(), rows(reader, allowed("SELECT query FROM pg_stat_activity WHERE pid = "
                    + otherPid)));
            assertEquals(List.of("null|null|null"), rows(reader, allowed(
                    "SELECT client_addr, client_hostname, client_port FROM pg_stat_activity")));
            assertEquals(List.of(own + "|null|null|null"), rows(reader, allowed(
                    "SELECT pid, client_dn, client_serial, issuer_dn FROM pg_stat_ssl")));
            other.rollback();
        }
    }

    /**
     * Another session's COPY into the hidden table shows in pg_stat_progress_copy with the table's OID; the login sees
     * its own backend's progress only, and its own pg_stat_gssapi row without the principal (pgward's).
     */
    @Test
    void anotherSessionsProgressAndGssapiRowsDoNotShow() throws SQLException {
        try (Connection reader = db.connect(); Connection other = db.connect()) {
            String otherPid = pid(other);
            String own = pid(reader);
            org.postgresql.copy.CopyIn copy = other.unwrap(org.postgresql.PGConnection.class).getCopyAPI()
                    .copyIn("COPY public.secrets FROM STDIN");
            try {
                assertEquals(List.of(otherPid + "|" + secrets),
                        rows(reader, "SELECT pid, relid FROM pg_catalog.pg_stat_progress_copy"));
                assertEquals(List.of(), rows(reader, allowed("SELECT pid, relid FROM pg_stat_progress_copy")));
                assertEquals(List.of(), rows(reader, allowed(
                        "SELECT * FROM pg_catalog.pg_stat_progress_copy WHERE relid = " + secrets)));
            } finally {
                copy.cancelCopy();
            }
            assertTrue(rows(reader, "SELECT pid FROM pg_catalog.pg_stat_gssapi").contains(otherPid));
            assertEquals(List.of(own + "|null"), rows(reader, allowed("SELECT pid, principal FROM pg_stat_gssapi")));
        }
    }

    /** Which session blocks which, by process id, is another session's business. */
    @Test
    void blockingPidsAreRefused() {
        for (String sql : List.of("SELECT pg_blocking_pids(pg_backend_pid())",
                "SELECT pg_catalog.pg_safe_snapshot_blocking_pids(pid) FROM pg_stat_activity",
                "SELECT pg_isolation_test_session_is_blocked(1, '{}')")) {
            Verdict.Refuse refuse = assertInstanceOf(Verdict.Refuse.class, verdict(rewrite(sql, PATH)), sql);
            assertEquals(CatalogRefusals.DENIED_BUILT_IN, refuse.rule(), refuse.message());
        }
    }

    @Test
    void replicationSlotsShowNone() throws SQLException {
        try (Connection c = db.connect()) {
            assertEquals(List.of("0"), rows(c, allowed("SELECT count(*) FROM pg_replication_slots")));
        }
    }

    /** A user table named pg_locks is what a bare name means when public comes before pg_catalog: refused. */
    @Test
    void aUserTableNamedLikeTheViewIsNotTheView() throws SQLException {
        String path = "public, pg_catalog";
        String bare = "SELECT note FROM pg_locks";
        assertEquals(bare, rewrite(bare, path));
        assertRefused(check.checkNow(CheckRequest.of(selection, null, path, bare)));
        // With the default path, the same bare name is the system view, filtered.
        try (Connection c = db.connect()) {
            assertEquals(List.of(), rows(c, allowed("SELECT relation FROM pg_locks WHERE relation = 1")));
        }
    }

    private static void assertRefused(Verdict verdict) {
        Verdict.Refuse refuse = assertInstanceOf(Verdict.Refuse.class, verdict);
        assertEquals(CatalogRefusals.RELATION, refuse.rule(), refuse.message());
    }

    /** Hand-written copies of the exact filters are the filters; near copies are refused. */
    @Test
    void nearCopiesOfTheFiltersAreRefused() {
        ViewFilters.Filter locks = selection.views().byName("pg_catalog", "pg_locks");
        String condition = locks.condition();
        String exact = "SELECT * FROM (SELECT pid FROM pg_catalog.pg_locks WHERE " + condition + " OFFSET 0) l";
        assertEquals(Verdict.ALLOW, verdict(exact));
        String own = "\"pid\" OPERATOR(pg_catalog.=) pg_catalog.pg_backend_pid()";
        assertTrue(condition.contains(own), condition);
        for (String near : List.of(
                condition.replace(own, "\"pid\" OPERATOR(pg_catalog.<>) pg_catalog.pg_backend_pid()"),
                condition.replace(own, "\"pid\" OPERATOR(pg_catalog.=) (pg_catalog.pg_backend_pid() + 0)"),
                condition.replace(own, "\"pid\" OPERATOR(pg_catalog.=) 12345"),
                condition.replace(own, "\"pid\" OPERATOR(pg_catalog.=) public.pg_backend_pid()"),
                condition.replace(own, "\"pid\" OPERATOR(pg_catalog.=) pg_catalog.pg_backend_pid() OR true"),
                condition.replace(own, "\"pid\"::int8 OPERATOR(pg_catalog.=) pg_catalog.pg_backend_pid()"),
                condition.replace("\"relation\" IS NULL", "\"relation\" IS NOT NULL"),
                condition.replace("\"relation\" IS NULL", "\"objid\" IS NULL"),
                condition.replace("\"objid\" IS NULL", "\"relation\" IS NULL"),
                condition.replace("\"objid\" IS NULL", "true"),
                condition.replace("{", "{" + secrets + ","),
                condition.replace(" AND (\"objid\" IS NULL)", "").replace("(\"objid\" IS NULL) AND ", ""))) {
            assertNotEquals(condition, near);
            assertRefused(verdict("SELECT * FROM (SELECT pid FROM pg_catalog.pg_locks WHERE " + near
                    + " OFFSET 0) l"));
        }
        assertRefused(verdict("SELECT * FROM (SELECT pid FROM pg_catalog.pg_locks WHERE " + condition + ") l"));
        assertRefused(verdict("SELECT * FROM (SELECT pid FROM pg_catalog.pg_locks WHERE " + condition
                + " AND pid > 0 OFFSET 0) l"));
        // The whole time zone view has no WHERE; one of its own making is another statement.
        assertEquals(Verdict.ALLOW, verdict("SELECT * FROM (SELECT name FROM pg_catalog.pg_timezone_names "
                + "OFFSET 0) z"));
        assertRefused(verdict("SELECT * FROM (SELECT name FROM pg_catalog.pg_timezone_names) z"));
        // Another view's filter around pg_locks, and the slots' empty list with a name in it.
        String activity = selection.views().byName("pg_catalog", "pg_stat_activity").condition();
        assertRefused(verdict("SELECT * FROM (SELECT pid FROM pg_catalog.pg_locks WHERE " + activity
                + " OFFSET 0) l"));
        String slots = selection.views().byName("pg_catalog", "pg_replication_slots").condition();
        assertRefused(verdict("SELECT * FROM (SELECT slot_name FROM pg_catalog.pg_replication_slots WHERE "
                + slots.replace("{}", "{x}") + " OFFSET 0) s"));
    }

    /**
     * Why txid_current and pg_current_xact_id stay denied (denied-functions.txt): PostgreSQL assigns a transaction
     * id in a read-only transaction, which is how a read-only login's backend session runs.
     */
    @Test
    void aReadOnlyTransactionAssignsATransactionIdOnTxidCurrent() throws SQLException {
        try (Connection c = db.connect()) {
            c.setAutoCommit(false);
            try (Statement s = c.createStatement()) {
                s.execute("SET TRANSACTION READ ONLY");
            }
            assertEquals(List.of("null"), rows(c, "SELECT txid_current_if_assigned()"));
            rows(c, "SELECT txid_current()");
            assertNotEquals(List.of("null"), rows(c, "SELECT txid_current_if_assigned()"));
            c.rollback();
        }
    }
}
