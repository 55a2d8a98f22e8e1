package io.pgward.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgward.testkit.PostgresTest;
import io.pgward.testkit.SampleData;
import io.pgward.testkit.TestDatabase;
import io.pgward.wire.config.PgwardConfig;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A statement is judged with the search_path PostgreSQL runs it with, also where the path changes between a Parse
 * and its Bind: PostgreSQL analyses a prepared statement again when the session's path is not the one it was
 * analysed with, and a name then resolves anew. Here {@code orders} is the selected public.orders on the default path
 * and a hidden hr.orders on the path {@code hr}, whose rows must never reach the client.
 */
@PostgresTest(sampleData = SampleData.SMALL)
class PreparedAcrossSearchPathIT {

    private static final String HIDDEN_ROW = "hidden-row";
    private static final long ROW_CAP = 5;
    private static ProxyFixture proxy;
    private static String databaseName;
    private static TestDatabase owner;

    @BeforeAll
    static void start(TestDatabase db) throws SQLException {
        databaseName = db.name();
        try (Connection c = db.connect(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE IF NOT EXISTS hr.orders(id bigint, note text)");
            s.execute("TRUNCATE hr.orders");
            s.execute("INSERT INTO hr.orders VALUES (1, '" + HIDDEN_ROW + "')");
            s.execute("CREATE SCHEMA IF NOT EXISTS shadow");
            s.execute("DROP TABLE IF EXISTS shadow.orders");
        }
        owner = db;
        proxy = ProxyFixture.start(db, ProxyFixture.STANDARD_GATES, null, PgwardConfig.TlsMode.DISABLE, 4,
                config -> ProxyFixture.policy("reader", p -> p.withTables(RefusalTextsIT.SELECTION).withRowCap(ROW_CAP))
                        .apply(config));
    }

    @AfterAll
    static void stop() {
        proxy.close();
    }

    private static RawClient reader() throws IOException {
        return RawClient.loggedIn(proxy.port(), "reader", databaseName);
    }

    private static void ok(RawClient client, String sql) throws IOException {
        client.query(sql);
        List<RawClient.Message> reply = client.readUntilReady();
        assertFalse(reply.stream().anyMatch(m -> m.type() == 'E'), sql + ": " + reply);
    }

    /** A Parse of {@code sql} as {@code name} in a request of its own, answered. */
    private static void prepare(RawClient client, String name, String sql) throws IOException {
        client.parse(name, sql);
        client.sync();
        client.readUntilReady();
    }

    /** An Execute of {@code portal} in a request of its own; its answer is left to read. */
    private static void run(RawClient client, String portal) throws IOException {
        client.execute(portal);
        client.sync();
    }

    private static void bindAndRun(RawClient client, String statement) throws IOException {
        client.bind("", statement);
        run(client, "");
    }

    /** The reply holds no row of the hidden table, and an error with {@code sqlState}. */
    private static void refused(List<RawClient.Message> reply, String sqlState) {
        assertFalse(reply.stream().anyMatch(m -> m.text().contains(HIDDEN_ROW)), "a hidden row came back: " + reply);
        assertTrue(reply.stream().anyMatch(m -> m.type() == 'E' && sqlState.equals(m.fields().get('C'))),
                () -> "no " + sqlState + ": " + reply.stream().map(m -> m.type() == 'E' ? "E " + m.fields()
                        : String.valueOf(m.type())).toList());
    }

    @Test
    void aNamedStatementIsJudgedAgainWhenThePathChangedSinceItsParse() throws Exception {
        try (RawClient client = reader()) {
            // The same result type on either path: PostgreSQL would run it on hr.orders, not fail it.
            client.parse("by_name", "SELECT count(*) FROM orders");
            client.sync();
            assertEquals('1', client.readUntilReady().getFirst().type());
            ok(client, "SET search_path = hr");
            bindAndRun(client, "by_name");
            List<RawClient.Message> bound = client.readUntilReady();
            refused(bound, "42501");
            assertEquals(List.of('E', 'Z'), bound.stream().map(RawClient.Message::type).toList());

            // Describe would analyse it again too, and tell the hidden table's columns.
            client.send('D', "Sby_name\0".getBytes(StandardCharsets.UTF_8));
            client.sync();
            List<RawClient.Message> described = client.readUntilReady();
            refused(described, "42501");
            assertEquals(List.of('E', 'Z'), described.stream().map(RawClient.Message::type).toList());

            // Back on the path it was judged with, it runs as before; judged again with another, it runs if allowed.
            ok(client, "RESET search_path");
            bindAndRun(client, "by_name");
            List<RawClient.Message> reply = client.readUntilReady();
            assertEquals(List.of('2', 'D', 'C', 'Z'), reply.stream().map(RawClient.Message::type).toList());
            prepare(client, "qualified", "SELECT count(*) FROM public.orders");
            ok(client, "SET search_path = hr");
            bindAndRun(client, "qualified");
            reply = client.readUntilReady();
            assertEquals(List.of('2', 'D', 'C', 'Z'), reply.stream().map(RawClient.Message::type).toList());
        }
    }

    @Test
    void aStatementAfterAChangeOfThePathInTheSameRequestIsRefused() throws Exception {
        try (RawClient client = reader()) {
            client.parse("", "SET search_path = hr");
            client.bind("", "");
            client.execute("");
            client.parse("", "SELECT * FROM orders");
            client.bind("", "");
            client.execute("");
            client.sync();
            refused(client.readUntilReady(), "42501");
            ok(client, "SELECT 1");
        }
    }

    @Test
    void aPreparedSetThatRunsLaterChangesThePathTheNextStatementIsJudgedWith() throws Exception {
        try (RawClient client = reader()) {
            prepare(client, "set_hr", "SET search_path = hr");
            bindAndRun(client, "set_hr");
            client.readUntilReady();
            client.query("SELECT * FROM orders");
            refused(client.readUntilReady(), "42501");
        }
    }

    /**
     * PostgreSQL looks a COPY's table up only when its portal runs: a portal bound with one path and executed with
     * another would read what was never judged, in a later request or in the same one.
     */
    @Test
    void aCopyPortalDoesNotRunWithAnotherPathThanItWasBoundWith() throws Exception {
        try (RawClient client = reader()) {
            ok(client, "BEGIN");
            client.parse("copied", "COPY orders TO STDOUT");
            client.bind("later", "copied");
            client.sync();
            client.readUntilReady();
            ok(client, "SET search_path = hr");
            run(client, "later");
            refused(client.readUntilReady(), "42501");
            ok(client, "ROLLBACK");

            client.parse("copied_too", "COPY orders TO STDOUT");
            prepare(client, "set_hr", "SET search_path = hr");
            ok(client, "RESET search_path");
            client.bind("c", "copied_too");
            client.bind("s", "set_hr");
            client.execute("s");
            client.execute("c");
            client.sync();
            refused(client.readUntilReady(), "42501");
        }
    }

    /**
     * A portal of a prepared SET made before a savepoint survives a rollback to it, and neither a Bind of its name
     * that the server refuses (42P03) nor a Close it skipped after an error removes it: its Execute still changes
     * the path.
     */
    @Test
    void aPortalOfASetIsFollowedUntilTheServerHasDroppedIt() throws Exception {
        for (boolean rebind : new boolean[] {true, false}) {
            try (RawClient client = reader()) {
                ok(client, "BEGIN");
                client.parse("set_hr", "SET search_path = hr");
                client.bind("p", "set_hr");
                client.sync();
                client.readUntilReady();
                ok(client, "SAVEPOINT a");
                if (rebind) {
                    client.parse("one", "SELECT 1");
                    client.bind("p", "one");
                } else {
                    client.parse("", "selec");
                    client.send('C', "Pp\0".getBytes(StandardCharsets.UTF_8));
                }
                client.sync();
                client.readUntilReady();
                ok(client, "ROLLBACK TO SAVEPOINT a");
                run(client, "p");
                client.readUntilReady();
                client.query("SELECT * FROM orders");
                refused(client.readUntilReady(), "42501");
            }
        }
    }

    /** A ROLLBACK TO SAVEPOINT bound before the session changed its path still takes a later SET back. */
    @Test
    void aRollbackToASavepointBoundBeforeAnyChangeOfThePathIsFollowed() throws Exception {
        try (RawClient client = reader()) {
            ok(client, "BEGIN");
            client.parse("back", "ROLLBACK TO SAVEPOINT a");
            client.bind("p", "back");
            client.sync();
            client.readUntilReady();
            ok(client, "SET search_path = hr");
            ok(client, "SAVEPOINT a");
            ok(client, "SET search_path = public");
            run(client, "p");
            client.readUntilReady();
            client.query("SELECT * FROM orders");
            refused(client.readUntilReady(), "42501");
        }
    }

    /**
     * A result cut by the row cap fails its request; a Query after it without a Sync is skipped as after any error,
     * and the Sync's ReadyForQuery comes, whether the statement finished before the cap's cancel or not.
     */
    @Test
    void aQueryAfterACappedResultWithoutASyncIsSkippedAndTheSyncAnswered() throws Exception {
        try (RawClient client = reader()) {
            client.parse("", "SELECT g FROM generate_series(1, 100) g");
            client.bind("", "");
            client.execute("");
            client.send('Q', "SELECT 2\0".getBytes(StandardCharsets.UTF_8));
            client.sync();
            List<RawClient.Message> reply = client.readUntilReady();
            assertTrue(reply.stream().anyMatch(m -> m.type() == 'E' && "54000".equals(m.fields().get('C'))),
                    reply.toString());
            assertFalse(reply.stream().anyMatch(m -> m.type() == 'C'), "the Query was skipped: " + reply);
            client.query("SELECT 3");
            assertEquals(List.of('T', 'D', 'C', 'Z'), client.readUntilReady().stream()
                    .map(RawClient.Message::type).toList());
        }
    }

    /** The next statement is judged with the new path even when it comes before the reply to the change. */
    @Test
    void aStatementSentBehindAChangeOfThePathIsJudgedWithTheNewPath() throws Exception {
        try (RawClient client = reader()) {
            client.send('Q', "SET search_path = hr\0".getBytes(StandardCharsets.UTF_8));
            client.send('Q', "SELECT * FROM orders\0".getBytes(StandardCharsets.UTF_8));
            client.flush();
            client.readUntilReady();
            refused(client.readUntilReady(), "42501");
        }
    }

    /**
     * A COMMIT prepared before the session ever changed its path changes it back when it ends a transaction with a
     * SET LOCAL: what it does is decided when it runs, not when it was prepared.
     */
    @Test
    void aPreparedCommitPreparedBeforeAnyChangeOfThePathIsFollowed() throws Exception {
        try (RawClient client = reader()) {
            prepare(client, "done", "COMMIT");
            ok(client, "SET search_path = hr");
            ok(client, "BEGIN");
            ok(client, "SET LOCAL search_path = public");
            bindAndRun(client, "done");
            client.readUntilReady();
            client.query("SELECT * FROM orders");
            refused(client.readUntilReady(), "42501");
        }
    }

    /**
     * A table created ahead of a selected one on the session's path is what PostgreSQL resolves a prepared statement's
     * name to once it analyses the statement again (after any invalidation of its plan): the schema poll drops the
     * login's verdicts, and the next Bind has the statement judged again.
     */
    @Test
    void aNamedStatementIsJudgedAgainAfterTheSchemaChanged() throws Exception {
        try (RawClient client = reader()) {
            ok(client, "SET search_path = shadow, public");
            prepare(client, "counted", "SELECT count(*) FROM orders");
            bindAndRun(client, "counted");
            assertEquals(List.of('2', 'D', 'C', 'Z'), client.readUntilReady().stream().map(RawClient.Message::type)
                    .toList());
            try (Connection c = owner.connect(); Statement s = c.createStatement()) {
                s.execute("CREATE TABLE shadow.orders(id bigint)");
                s.execute("ANALYZE public.orders");   // invalidates the statement's plan
            }
            boolean refusedOnce = false;
            for (int attempt = 0; attempt < 100 && !refusedOnce; attempt++) {
                bindAndRun(client, "counted");
                refusedOnce = client.readUntilReady().stream().anyMatch(m -> m.type() == 'E'
                        && "42501".equals(m.fields().get('C')));
                if (!refusedOnce) {
                    Thread.sleep(100);
                }
            }
            assertTrue(refusedOnce, "the statement was never judged again after the schema changed");
        } finally {
            try (Connection c = owner.connect(); Statement s = c.createStatement()) {
                s.execute("DROP TABLE IF EXISTS shadow.orders");
            }
        }
    }
}
