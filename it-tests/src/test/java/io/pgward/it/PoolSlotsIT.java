package io.pgward.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgward.testkit.PostgresTest;
import io.pgward.testkit.TestDatabase;
import io.pgward.wire.config.PgwardConfig;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * However a session ends, its backend connection goes back to the pool or is closed: no client can keep a slot
 * and lock the other clients of its backend role out. Each case logs in, leaves the backend in some state (a
 * malformed message of every type, an extended batch without its Sync, a COPY, a failed transaction, a running
 * statement) and vanishes; then no backend connection may stay in use, and the whole pool must be usable.
 */
@PostgresTest
class PoolSlotsIT {

    private static final int POOL = 3;
    private static ProxyFixture proxy;
    private static TestDatabase database;

    @BeforeAll
    static void start(TestDatabase db) {
        database = db;
        proxy = ProxyFixture.start(db, ProxyFixture.STANDARD_GATES, null, PgwardConfig.TlsMode.DISABLE, POOL);
    }

    @AfterAll
    static void stop() {
        proxy.close();
    }

    record Leaving(String name, ThrowingAction action) {
        @Override
        public String toString() {
            return name;
        }
    }

    interface ThrowingAction {
        void run(RawClient client) throws IOException;
    }

    static Stream<Arguments> endings() {
        List<Leaving> cases = new ArrayList<>();
        cases.add(new Leaving("malformed Parse", c -> c.raw(frame('P', new byte[8]))));
        cases.add(new Leaving("malformed Bind", c -> c.raw(frame('B', new byte[] {'x', 0, 'y', 0, (byte) 0xff}))));
        for (char type : new char[] {'D', 'E', 'C', 'H', 'S', 'F', 'd', 'c', 'f', 'X', 'p', 'z'}) {
            cases.add(new Leaving("garbage " + type + " message", c -> c.raw(frame(type, new byte[] {1, 2, 3}))));
        }
        // Malformed bodies the session answers and goes on after: a statement of pgward's is in flight in their place.
        byte[] unterminated = "select 1".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        cases.add(new Leaving("a Query without its NUL", c -> c.raw(frame('Q', unterminated))));
        cases.add(new Leaving("a Query without its NUL, answered", c -> {
            c.raw(frame('Q', unterminated));
            c.readUntilReady();
        }));
        cases.add(new Leaving("a Describe of kind X", c -> c.raw(frame('D', new byte[] {'X', 'f', 'o', 'o', 0}))));
        cases.add(new Leaving("a Parse announcing 60,000 parameter types", c -> c.raw(frame('P',
                new byte[] {0, 's', 'e', 'l', 'e', 'c', 't', ' ', '1', 0, (byte) 0xea, 0x60}))));
        cases.add(new Leaving("an absurd length", c -> c.raw(new byte[] {'Q', 0x7f, (byte) 0xff, (byte) 0xff, 0})));
        cases.add(new Leaving("a Bind error without Sync", c -> {
            c.bind("", "no_such_statement");
            c.execute("");
            c.flush();
        }));
        cases.add(new Leaving("a Parse error without Sync", c -> {
            c.parse("", "select * from no_such_table");
            c.flush();
        }));
        cases.add(new Leaving("a failed transaction", c -> {
            c.query("begin");
            c.readUntilReady();
            c.query("select 1/0");
            c.readUntilReady();
        }));
        cases.add(new Leaving("an open transaction", c -> {
            c.query("begin");
            c.readUntilReady();
        }));
        cases.add(new Leaving("a prepared statement and an open portal without Sync", c -> {
            c.parse("s1", "select generate_series(1, 100000)");
            c.bind("p1", "s1");
            c.flush();
        }));
        List<Arguments> arguments = new ArrayList<>();
        for (Leaving leaving : cases) {
            arguments.add(Arguments.of("trusted", leaving));
            arguments.add(Arguments.of("reader", leaving));
        }
        // Writes need the read-write login.
        arguments.add(Arguments.of("trusted", new Leaving("a COPY FROM STDIN", c -> {
            c.query("create temporary table copied (a int); copy copied from stdin");
            c.read();
        })));
        return arguments.stream();
    }

    @ParameterizedTest(name = "{0}: {1}")
    @MethodSource("endings")
    void theSlotComesBack(String login, Leaving leaving) throws Exception {
        try (RawClient client = RawClient.loggedIn(proxy.port(), login, database.name())) {
            leaving.action().run(client);
        }
        awaitNoneInUse(15_000);
    }

    @Test
    void aStatementLeftRunningIsCancelledAndItsConnectionClosed() throws Exception {
        try (RawClient client = RawClient.loggedIn(proxy.port(), "trusted", database.name())) {
            client.parse("", "select pg_sleep(60)");
            client.bind("", "");
            client.execute("");
            client.flush();
            Thread.sleep(200);
        }
        awaitNoneInUse(30_000);
    }

    @Test
    void theWholePoolIsUsableAfterEveryEnding() throws Exception {
        for (Arguments arguments : endings().toList()) {
            theSlotComesBack((String) arguments.get()[0], (Leaving) arguments.get()[1]);
        }
        assertWholePoolUsable();
    }

    /** The protocol fuzzer, for a bounded number of rounds, leaves every slot free and usable. */
    @Test
    void theFuzzerLeavesEverySlot() throws Exception {
        String shared = System.getProperty("pgward.shared.dir");
        Path fuzzer = shared == null ? null : Path.of(shared, "tools", "fuzz.py");
        if (fuzzer == null || !Files.isRegularFile(fuzzer)) {
            RealClients.missing("the protocol fuzzer shared/tools/fuzz.py is not there (pgward.shared.dir)");
        }
        Path python = RealClients.requirePython("psycopg2", "python3-psycopg2");
        RealClients.Result result = RealClients.run(List.of(python.toString(), fuzzer.toString(), "127.0.0.1",
                String.valueOf(proxy.port()), "reader", "unused", database.name(), "--n", "60", "--seed", "3"),
                null, Map.of("PGSSLMODE", "disable"));
        assertEquals(0, result.exit(), result.out() + result.err());
        awaitNoneInUse(30_000);
        assertWholePoolUsable();
    }

    private static void awaitNoneInUse(long millis) throws InterruptedException {
        long deadline = System.currentTimeMillis() + millis;
        int inUse;
        while ((inUse = inUse()) > 0 && System.currentTimeMillis() < deadline) {
            Thread.sleep(20);
        }
        assertEquals(0, inUse, "backend connections still in use " + millis + " ms after their clients left");
    }

    private static int inUse() {
        return proxy.server().pool().open(database.user(), database.name())
                - proxy.server().pool().idle(database.user(), database.name());
    }

    private static void assertWholePoolUsable() throws SQLException {
        List<Connection> open = new ArrayList<>();
        try {
            for (int i = 0; i < POOL; i++) {
                Connection c = proxy.connect("app");
                open.add(c);
                try (Statement s = c.createStatement(); ResultSet r = s.executeQuery("select 1")) {
                    assertTrue(r.next());
                }
            }
        } finally {
            for (Connection c : open) {
                c.close();
            }
        }
    }

    private static byte[] frame(char type, byte[] body) {
        return ByteBuffer.allocate(5 + body.length).put((byte) type).putInt(4 + body.length).put(body).array();
    }
}
