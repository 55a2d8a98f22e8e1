package io.pgward.guard.catalog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.zaxxer.hikari.HikariDataSource;
import io.pgward.guard.Verdict;
import io.pgward.testkit.PostgresTest;
import io.pgward.testkit.TestDatabase;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * What a control connection keeps from one check to the next, so that a check does not plan its fixed catalog
 * queries anew: the temporary schema (a committed function in it), the reads it prepared with SQL, and pgjdbc's
 * server-prepared statements.
 */
@PostgresTest
class ControlConnectionReuseTest {

    private static final String PATH = "\"$user\", public";

    private static TestDatabase db;
    private static HikariDataSource pool;
    private static CatalogCheck check;
    private static int next;

    @BeforeAll
    static void start(TestDatabase database) throws Exception {
        db = database;
        try (Connection c = db.connect(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE IF NOT EXISTS public.reuse_items (id int PRIMARY KEY, label text)");
        }
        // One connection, so that every check and every look below is on the same session.
        pool = CatalogCheck.controlPool(db.jdbcUrl(), db.user(), db.password(), 1);
        check = new CatalogCheck(pool, new CatalogCheck.Options(Duration.ofSeconds(5), 100, Duration.ZERO));
    }

    @AfterAll
    static void stop() {
        check.close();
    }

    /** A statement no earlier check has seen, so that each is a full check. */
    /**
     * Checks of statements not seen before. Each has a parameter, so that its opening takes a round trip of its own,
     * a statement pgjdbc prepares once it has run it five times (a statement without parameters sends its opening
     * as text with the view, once the domain CHECKs are known: KnownDomainChecksTest).
     */
    private static void neverSeen(int count) {
        for (int i = 0; i < count; i++) {
            String sql = "SELECT id AS c" + next++ + ", label FROM public.reuse_items WHERE id = $1";
            assertEquals(Verdict.ALLOW, check.checkNow(new CheckRequest(TableSelection.NONE, null, PATH, true, sql,
                    List.of(23))));
        }
    }

    /**
     * The pool hands out a connection used in the last minute untested, and it may be gone: an administrator ended
     * its session, or idle_session_timeout did. The check runs again on another, and the statement is answered.
     */
    @Test
    void aCheckWhoseConnectionIsGoneRunsAgainOnAnother() throws Exception {
        neverSeen(1);
        String pid = rows("SELECT pg_catalog.pg_backend_pid()").get(0);
        try (Connection c = db.connect(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT pg_catalog.pg_terminate_backend(" + pid + ", 5000)")) {
            assertTrue(rs.next() && rs.getBoolean(1), "the control connection's session ended");
        }
        neverSeen(1);
        assertNotEquals(pid, rows("SELECT pg_catalog.pg_backend_pid()").get(0));
    }

    private static List<String> rows(String sql) throws SQLException {
        List<String> rows = new ArrayList<>();
        try (Connection c = pool.getConnection(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            while (rs.next()) {
                rows.add(rs.getString(1));
            }
        }
        return rows;
    }

    @Test
    void theTemporarySchemaOutlivesTheChecks() throws Exception {
        neverSeen(2);
        assertEquals(List.of("t"), rows("SELECT pg_catalog.pg_my_temp_schema() <> 0"));
        assertEquals(List.of(PreparedReads.SCHEMA_KEEPER), rows("SELECT p.proname FROM pg_catalog.pg_proc p "
                + "WHERE p.pronamespace = pg_catalog.pg_my_temp_schema()"));
        // Every check's own view is rolled back: the keeper is all that stays.
        assertEquals(List.of("0"), rows("SELECT pg_catalog.count(*) FROM pg_catalog.pg_class "
                + "WHERE relnamespace = pg_catalog.pg_my_temp_schema()"));
    }

    @Test
    void theReadsArePreparedOnceForTheConnection() throws Exception {
        neverSeen(2);
        String prepared = "SELECT name || ' ' || prepare_time FROM pg_catalog.pg_prepared_statements "
                + "WHERE from_sql AND name LIKE 'pgward\\_%' ORDER BY name";
        List<String> before = rows(prepared);
        assertEquals(PreparedReads.Read.values().length, before.size(), before.toString());
        neverSeen(3);
        assertEquals(before, rows(prepared));
    }

    @Test
    void pgjdbcKeepsItsServerStatementsAcrossTheChecksViews() throws Exception {
        // PostgreSQL 18 reports every search_path change, and pgjdbc then drops its statements whatever the setting:
        // the reads that matter are PreparedReads for that reason. Before 18, each check's CREATE VIEW dropped them.
        Assumptions.assumeTrue(Integer.parseInt(rows("SHOW server_version_num").get(0)) < 180000);
        // pgjdbc prepares a statement on the server at its fifth use.
        neverSeen(6);
        String begin = "SELECT name FROM pg_catalog.pg_prepared_statements WHERE statement = "
                + "'BEGIN TRANSACTION READ WRITE' AND NOT from_sql";
        List<String> before = rows(begin);
        assertEquals(1, before.size(), "BEGIN is prepared once: " + before);
        neverSeen(3);
        assertEquals(before, rows(begin));
    }

    @Test
    void keepingTheSchemaIsNoSchemaChange(TestDatabase db) throws Exception {
        // A control connection of its own, so that its first check is the one that keeps the schema.
        try (HikariDataSource own = CatalogCheck.controlPool(db.jdbcUrl(), db.user(), db.password(), 1);
             CatalogCheck fresh = new CatalogCheck(own, new CatalogCheck.Options(Duration.ofSeconds(5), 100,
                     Duration.ZERO));
             Connection c = db.connect()) {
            String before = SchemaFingerprint.read(c);
            assertEquals(Verdict.ALLOW, fresh.checkNow(CheckRequest.of(TableSelection.NONE, null, PATH,
                    "SELECT label FROM public.reuse_items")));
            try (Connection kept = own.getConnection(); Statement s = kept.createStatement();
                 ResultSet rs = s.executeQuery("SELECT pg_catalog.pg_my_temp_schema() <> 0")) {
                assertTrue(rs.next() && rs.getBoolean(1), "the schema is kept");
            }
            assertEquals(before, SchemaFingerprint.read(c));
        }
    }

    @Test
    void theKeeperIsFoundOnlyWhereAStatementNamesPgTemp() {
        neverSeen(1);
        Verdict.Refuse unqualified = assertInstanceOf(Verdict.Refuse.class, check.checkNow(CheckRequest.of(
                TableSelection.NONE, null, PATH, "SELECT " + PreparedReads.SCHEMA_KEEPER + "()")));
        assertEquals("42883", unqualified.sqlState(), unqualified.message());
        // Named with pg_temp, the check sees a function the client's own session lacks: a user function, which
        // the code rules refuse (were it allowed, the client would get PostgreSQL's 42883).
        Verdict.Refuse qualified = assertInstanceOf(Verdict.Refuse.class, check.checkNow(CheckRequest.of(
                TableSelection.NONE, null, PATH, "SELECT pg_temp." + PreparedReads.SCHEMA_KEEPER + "()")));
        assertEquals("function-not-built-in", qualified.rule(), qualified.message());
    }

    @Test
    void aRoleWithoutTempIsStillRefusedOnceTheSchemaIsKept(TestDatabase db) throws Exception {
        try (Connection c = db.connect(); Statement s = c.createStatement()) {
            s.execute("DO $$ BEGIN CREATE ROLE pgward_reuse_notemp; EXCEPTION WHEN duplicate_object THEN NULL; END $$");
            s.execute("GRANT pgward_reuse_notemp TO CURRENT_USER");
            s.execute("GRANT TEMPORARY ON DATABASE " + db.name() + " TO CURRENT_USER");
            s.execute("REVOKE TEMPORARY ON DATABASE " + db.name() + " FROM PUBLIC");
        }
        try {
            neverSeen(1);
            assertEquals(List.of("t"), rows("SELECT pg_catalog.pg_my_temp_schema() <> 0"));
            Verdict.Refuse r = assertInstanceOf(Verdict.Refuse.class, check.checkNow(
                    CheckRequest.of(TableSelection.NONE, "pgward_reuse_notemp", PATH, "SELECT 1")));
            assertEquals("pgward refused this query: it could not be checked: this database login has no TEMP "
                    + "privilege on the database", r.message());
        } finally {
            try (Connection c = db.connect(); Statement s = c.createStatement()) {
                s.execute("GRANT TEMPORARY ON DATABASE " + db.name() + " TO PUBLIC");
            }
        }
    }
}
