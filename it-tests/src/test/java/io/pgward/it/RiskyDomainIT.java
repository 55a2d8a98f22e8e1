package io.pgward.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.pgward.testkit.PostgresTest;
import io.pgward.testkit.TestDatabase;
import io.pgward.wire.protocol.SqlState;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Properties;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * An ordinary domain whose CHECK calls a user function ({@code CHECK (is_valid_email(VALUE))}) refuses, through the
 * proxy, only the statements that reach it; everything else runs. The function has two visible side effects that
 * a rollback does not undo: it raises a NOTICE and takes a number from a sequence. Neither may ever happen while
 * pgward checks or refuses a statement.
 */
@PostgresTest
class RiskyDomainIT {

    static final String REFUSAL = "ERROR: pgward refused this query: this database has domains whose CHECK could run "
            + "other code or change data while a query is checked: public.email.";

    private static TestDatabase database;
    private static ProxyFixture proxy;

    @BeforeAll
    static void start(TestDatabase db) throws Exception {
        database = db;
        try (Connection owner = db.connect(); Statement s = owner.createStatement()) {
            s.execute("CREATE SEQUENCE public.check_calls");
            s.execute("CREATE FUNCTION public.is_valid_email(text) RETURNS boolean LANGUAGE plpgsql AS $$ BEGIN "
                    + "RAISE NOTICE 'is_valid_email ran'; PERFORM nextval('public.check_calls'); "
                    + "RETURN $1 LIKE '%@%'; END $$");
            s.execute("CREATE DOMAIN public.email AS text CHECK (public.is_valid_email(VALUE))");
            s.execute("CREATE TABLE public.orders(id int PRIMARY KEY, note text)");
            s.execute("INSERT INTO public.orders VALUES (1, 'a@b'), (2, 'none')");
            s.execute("CREATE TABLE public.people(id int, mail text)");
            s.execute("INSERT INTO public.people VALUES (1, 'p@q')");
            s.execute("ALTER TABLE public.people ALTER COLUMN mail TYPE public.email");
            s.execute("CREATE VIEW public.v_people AS SELECT id, mail FROM public.people");
            s.execute("SELECT setval('public.check_calls', 1, false)");   // the ALTER checked the row once
        }
        assertEquals(0, checkCalls(), "the fixture ran the CHECK");
        proxy = ProxyFixture.start(db, ProxyFixture.STANDARD_GATES, null,
                io.pgward.wire.config.PgwardConfig.TlsMode.DISABLE, 4,
                ProxyFixture.policy("analyst", p -> p.withTables(List.of("public.orders", "public.people",
                        "public.v_people"))));
    }

    @AfterAll
    static void stop() {
        proxy.close();
    }

    /** Numbers the CHECK's function has taken, ever (sequences are not rolled back). */
    private static long checkCalls() throws SQLException {
        try (Connection c = database.connect(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT CASE WHEN is_called THEN last_value ELSE 0 END "
                     + "FROM public.check_calls")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    @Test
    void onlyTheStatementsThatReachTheDomainAreRefusedAndItsCheckNeverRuns() throws Exception {
        long before = checkCalls();
        for (String login : List.of("analyst", "reader")) {
            for (String mode : List.of("simple", "extended")) {
                Properties props = new Properties();
                props.setProperty("preferQueryMode", mode);
                try (Connection c = proxy.connect(login, props); Statement s = c.createStatement()) {
                    String where = login + " " + mode;
                    try (ResultSet rs = s.executeQuery("SELECT id FROM public.orders WHERE note LIKE '%@%'")) {
                        rs.next();
                        assertEquals(1, rs.getInt(1), where);
                    }
                    s.execute("SELECT 'a@b'::text, 'email' AS mail");
                    s.execute("SELECT count(*) FROM public.orders o WHERE o.note = 'x@y'");
                    for (String sql : List.of(
                            "SELECT 'a@b'::public.email",                         // a cast to it, by name
                            "SELECT CAST('a@b' AS email)",                        // found by search_path
                            "SELECT '{a@b}'::email[]",                            // an array of it
                            "SELECT * FROM public.people",                        // a column of it
                            "SELECT id FROM public.people WHERE mail = 'p@q'",     // compared with it
                            "SELECT id FROM public.v_people")) {                  // a view with such a column
                        SQLException e = assertThrows(SQLException.class, () -> s.execute(sql), where + " " + sql);
                        assertEquals(SqlState.INSUFFICIENT_PRIVILEGE, e.getSQLState(),
                                where + " " + sql + ": " + e.getMessage());
                        assertEquals(REFUSAL, e.getMessage(), where + " " + sql);
                    }
                    assertNull(s.getWarnings(), where + ": a NOTICE reached the client");
                    assertNull(c.getWarnings(), where + ": a NOTICE reached the client");
                }
            }
        }
        assertEquals(before, checkCalls(), "the CHECK's function ran");
        // The side effect is visible when the CHECK does run: PostgreSQL itself, straight, runs it.
        try (Connection c = database.connect(); Statement s = c.createStatement()) {
            s.execute("SELECT 'a@b'::public.email");
            assertEquals("is_valid_email ran", s.getWarnings().getMessage());
        }
        assertEquals(before + 1, checkCalls());
    }
}
