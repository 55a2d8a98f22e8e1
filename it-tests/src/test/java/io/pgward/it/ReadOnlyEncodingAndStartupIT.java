package io.pgward.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgward.testkit.PostgresTest;
import io.pgward.testkit.TestDatabase;
import io.pgward.wire.config.PgwardConfig;
import io.pgward.wire.gate.StatementGate;
import io.pgward.wire.protocol.SqlState;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 11, parts 1 and 2, as an attacker tried them: a read-only login asking for a client encoding in which a
 * backslash hides inside a multibyte character (so pgward and the server would split the text differently), or
 * for settings its policy owns, in every spelling PostgreSQL reads at startup. Each attempt now gets a FATAL, a
 * refusal or a bounded answer; hr.salaries, outside the login's selection, is never read; the database is
 * unchanged; and a bystander session opened before each test still works afterwards, still read-only.
 *
 * <p>Raw startup packets and raw bytes come from {@link RawClient} (no driver sends them); psql is used where
 * that is how the attack was made (PGOPTIONS). The logins {@code reader} (trust) and {@code analyst} (SCRAM) are
 * read-only with the selection {@code public.orders} and a 1 s statement timeout.
 */
@PostgresTest
class ReadOnlyEncodingAndStartupIT {

    private static final String NAME_1 = "Grace Hiddenstein";
    private static final String SALARY_1 = "987654";
    private static final String SALARY_2 = "876543";

    /** The payload after {@code E'}: the SQL that PostgreSQL would run once the literal ends early. */
    private static final String HIDDEN_READ = "' AS x, (SELECT string_agg(full_name||chr(58)||salary, chr(44)) "
            + "FROM hr.salaries WHERE employee_id<3) AS y --'\n";
    /** The string literal's value when the backslash escapes the quote: the hidden read as text, to its last quote. */
    private static final String AS_TEXT = "'" + HIDDEN_READ.substring(1, HIDDEN_READ.length() - 2);

    private static ProxyFixture proxy;
    private static ProxyFixture unguarded;
    private static TestDatabase database;
    private static Map<String, String> fixture;
    private Connection bystander;

    @BeforeAll
    static void start(TestDatabase db) throws SQLException {
        database = db;
        try (Connection c = db.connect(); Statement s = c.createStatement()) {
            s.execute("CREATE SCHEMA hr");
            s.execute("CREATE TABLE hr.salaries (employee_id int PRIMARY KEY, full_name text, salary int)");
            s.execute("INSERT INTO hr.salaries VALUES (1, '" + NAME_1 + "', " + SALARY_1 + "), (2, 'Alan Quietly', "
                    + SALARY_2 + ")");
            s.execute("CREATE TABLE orders (id int PRIMARY KEY, total numeric)");
            s.execute("INSERT INTO orders SELECT i, i * 1.5 FROM generate_series(1, 100) i");
            if (db.serverMajor() >= 17) {
                createLoginTrigger(s);
            }
            fixture = FixtureState.capture(c);
        }
        UnaryOperator<PgwardConfig> policy = config -> {
            PgwardConfig changed = config;
            for (String login : List.of("reader", "analyst")) {
                changed = ProxyFixture.policy(login, p -> p.withTables(List.of("public.orders"))
                        .withStatementTimeout(Duration.ofSeconds(1))).apply(changed);
            }
            return changed;
        };
        proxy = ProxyFixture.start(db, ProxyFixture.STANDARD_GATES, null, PgwardConfig.TlsMode.DISABLE, 8, policy);
        // Every statement allowed: only the pinned settings stand between the session and another encoding.
        unguarded = ProxyFixture.start(db, login -> StatementGate.ALLOW_ALL, null, PgwardConfig.TlsMode.DISABLE, 4,
                policy);
    }

    @AfterAll
    static void stop() throws SQLException {
        proxy.close();
        unguarded.close();
        try (Connection c = database.connect(); Statement s = c.createStatement()) {
            s.execute("DROP EVENT TRIGGER IF EXISTS loosen");
        }
    }

    /**
     * A login event trigger (PostgreSQL 17) that changes the session's settings for one application_name: what
     * pgward's check of a new backend connection must catch.
     */
    private static void createLoginTrigger(Statement s) throws SQLException {
        s.execute("""
                CREATE FUNCTION public.loosen() RETURNS event_trigger LANGUAGE plpgsql AS $$
                BEGIN
                  IF current_setting('application_name') = 'loosen-timeout' THEN
                    PERFORM set_config('statement_timeout', '0', false);
                  ELSIF current_setting('application_name') = 'loosen-encoding' THEN
                    PERFORM set_config('client_encoding', 'SJIS', false);
                  ELSIF current_setting('application_name') = 'loosen-read-only' THEN
                    PERFORM set_config('default_transaction_read_only', 'off', false);
                  END IF;
                END $$""");
        s.execute("CREATE EVENT TRIGGER loosen ON login EXECUTE FUNCTION public.loosen()");
    }

    @BeforeEach
    void openBystander() throws SQLException {
        bystander = proxy.connect("analyst");
        assertBystanderWorks();
    }

    @AfterEach
    void nothingChangedAndTheBystanderStillWorks() throws SQLException {
        assertBystanderWorks();
        bystander.close();
        try (Connection c = database.connect()) {
            assertEquals(fixture, FixtureState.capture(c));
        }
    }

    // ---------------------------------------------------------------- part 1: client encoding

    @Test
    void everySpellingOfAnotherClientEncodingEndsTheLogin() throws Exception {
        List<List<Map.Entry<String, String>>> attempts = List.of(
                pairs("options", "-c client_encoding=SJIS"),
                pairs("options", "-cclient_encoding=SJIS"),
                pairs("options", "--client-encoding=SJIS"),
                pairs("options", "-c client_encoding=SJIS", "client_encoding", "UTF8"),
                pairs("CLIENT_ENCODING", "SJIS"),
                pairs("Client_Encoding", "BIG5"),
                pairs("client_encoding", "GB18030"),
                pairs("client_encoding", "UTF8", "client_encoding", "SJIS"),
                pairs("client_encoding", "LATIN1"),
                pairs("options", "-c client\\_encoding=SJIS"));
        for (List<Map.Entry<String, String>> attempt : attempts) {
            String encoding = attempt.stream().map(e -> e.getValue().replaceAll(".*=", ""))
                    .filter(v -> !v.equals("UTF8")).findFirst().orElseThrow();
            assertFatal(attempt, SqlState.FEATURE_NOT_SUPPORTED,
                    "pgward does not accept client_encoding \"" + encoding + "\" for the "
                    + "read-only login \"reader\": statements in it cannot be checked reliably; use UTF8");
        }
    }

    @Test
    void utf8InAnySpellingConnectsAndTheSessionIsUtf8() throws Exception {
        for (List<Map.Entry<String, String>> spelling : List.of(pairs("client_encoding", "utf-8"),
                pairs("Client_Encoding", "Unicode"), pairs("options", "--client-encoding=UTF8"), pairs())) {
            try (RawClient client = loggedIn(spelling)) {
                assertEquals("UTF8", show(client, "client_encoding"), spelling.toString());
            }
        }
    }

    @Test
    void psqlWithPgoptionsAskingForSjisIsRefusedAndReadsNothing(@TempDir Path directory) throws Exception {
        Path sjis = directory.resolve("sjis.sql");
        Files.write(sjis, hidden(new byte[] {(byte) 0xc3, (byte) 0x81, '\\'}));
        for (String options : List.of("-c client_encoding=SJIS", "-cclient_encoding=SJIS", "--client-encoding=SJIS")) {
            RealClients.Result result = RealClients.run(List.of(RealClients.require("psql").toString(),
                    "-X", "-v", "ON_ERROR_STOP=1", "-d", proxy.uri("analyst"), "-f", sjis.toString()), null,
                    Map.of("PGOPTIONS", options));
            assertEquals(2, result.exit(), options + ": " + result.out() + result.err());
            assertTrue(result.err().contains("FATAL:  pgward does not accept client_encoding \"SJIS\" for the "
                    + "read-only login \"analyst\""), result.err());
            assertNoSalaries(result.out() + result.err());
        }
        // The same file in the pinned UTF8 session: the backslash escapes the quote for pgward and the server alike,
        // so the whole rest is one string literal and the answer is that text.
        RealClients.Result result = RealClients.run(List.of(RealClients.require("psql").toString(), "-X", "-A",
                "-t", "-v", "ON_ERROR_STOP=1", "-d", proxy.uri("analyst"), "-f", sjis.toString()));
        assertEquals(0, result.exit(), result.err());
        assertEquals("\u00c1" + AS_TEXT + "\n", result.out());
    }

    @Test
    void theHiddenStatementsAreOneStringLiteralInTheUtf8Session() throws Exception {
        // The bytes: SJIS c3 81 5c 27 and BIG5 e4 b8 a5 5c 27 are valid UTF-8 followed by \' .
        for (byte[] lead : List.of(new byte[] {(byte) 0xc3, (byte) 0x81, '\\'},
                new byte[] {(byte) 0xe4, (byte) 0xb8, (byte) 0xa5, '\\'})) {
            String prefix = new String(lead, 0, lead.length - 1, StandardCharsets.UTF_8);
            try (RawClient client = loggedIn(pairs())) {
                client.query(hidden(lead));
                assertEquals(List.of(prefix + AS_TEXT), values(client.readUntilReady()));

                client.parse("", hidden(lead));
                client.bind("", "");
                client.execute("");
                client.sync();
                assertEquals(List.of(prefix + AS_TEXT), values(client.readUntilReady()));
            }
        }
    }

    @Test
    void whatTheEncodingTrickRanIsHarmlessText() throws Exception {
        for (String statement : List.of("SET SESSION CHARACTERISTICS AS TRANSACTION READ WRITE",
                "SELECT lo_creat(-1)", "ALTER ROLE CURRENT_USER SET statement_timeout = 0",
                "SELECT pg_advisory_lock(42)",
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE pid <> pg_backend_pid()")) {
            byte[] sql = concat("SELECT E'".getBytes(StandardCharsets.UTF_8), new byte[] {(byte) 0xc3, (byte) 0x81},
                    ("\\'; " + statement + "; --'").getBytes(StandardCharsets.UTF_8));
            try (RawClient client = loggedIn(pairs())) {
                client.query(sql);
                assertEquals(List.of("\u00c1'; " + statement + "; --"), values(client.readUntilReady()));
                assertEquals("on", show(client, "transaction_read_only"));
            }
        }
    }

    @Test
    void textThatIsNotUtf8IsRefusedWithPostgresErrorInBothProtocols() throws Exception {
        // SJIS without the UTF-8 lead: 0x81 0x5c is one SJIS character and no UTF-8 at all.
        byte[] sjis = hidden(new byte[] {(byte) 0x81, '\\'});
        byte[] big5 = hidden(new byte[] {(byte) 0xe4, (byte) 0xb8, '\\'});
        try (RawClient client = loggedIn(pairs())) {
            client.query(sjis);
            assertError(client.readUntilReady(), SqlState.CHARACTER_NOT_IN_REPERTOIRE,
                    "invalid byte sequence for encoding \"UTF8\": 0x81");
            client.parse("s1", big5);
            client.bind("", "s1");
            client.execute("");
            client.sync();
            assertError(client.readUntilReady(), SqlState.CHARACTER_NOT_IN_REPERTOIRE,
                    "invalid byte sequence for encoding \"UTF8\": 0xe4 0xb8 0x5c");
            client.query("SELECT count(*) FROM orders");
            assertEquals(List.of("100"), values(client.readUntilReady()), "the session carries on");
        }
    }

    @Test
    void noStatementReachesAnotherEncoding() throws Exception {
        try (RawClient client = loggedIn(pairs())) {
            for (String attempt : List.of("SET client_encoding = 'SJIS'", "SET client_encoding TO BIG5",
                    "SET NAMES 'SJIS'", "SET SESSION client_encoding = 'GB18030'", "SET LOCAL client_encoding = 'SJIS'",
                    "SELECT set_config('client_encoding', 'SJIS', false)",
                    "SELECT pg_catalog.set_config('client_encoding', 'BIG5', false)")) {
                client.query(attempt);
                List<RawClient.Message> reply = client.readUntilReady();
                assertEquals(SqlState.INSUFFICIENT_PRIVILEGE, error(reply).get('C'), attempt + ": " + reply);
                assertEquals("UTF8", show(client, "client_encoding"), attempt);
            }
            for (String allowed : List.of("RESET client_encoding", "SET client_encoding TO DEFAULT",
                    "SET client_encoding = 'utf-8'", "SET NAMES 'UTF8'", "SET NAMES", "RESET ALL", "DISCARD ALL")) {
                client.query(allowed);
                List<RawClient.Message> reply = client.readUntilReady();
                assertTrue(reply.stream().noneMatch(m -> m.type() == 'E'), allowed + ": " + reply);
                assertEquals("UTF8", show(client, "client_encoding"), "after " + allowed);
            }
        }
    }

    @Test
    void aServerThatReportsAnotherEncodingMidSessionEndsItAndTheBackendIsClosed() throws Exception {
        for (String change : List.of("SET client_encoding = 'SJIS'", "SELECT set_config('client_encoding', 'BIG5', false)",
                "SET standard_conforming_strings = off", "SET default_transaction_read_only = off")) {
            int pid;
            try (RawClient client = new RawClient(unguarded.port())) {
                client.startup(pairs("user", "reader", "database", database.name()));
                client.readUntilReady();
                client.query("SELECT pg_backend_pid()");
                pid = Integer.parseInt(values(client.readUntilReady()).getFirst());
                client.query(change);
                List<RawClient.Message> end = client.readUntilClosed();
                RawClient.Message fatal = end.getLast();
                assertEquals("FATAL", fatal.fields().get('S'), change + ": " + end);
                assertEquals(SqlState.INSUFFICIENT_PRIVILEGE, fatal.fields().get('C'));
                assertTrue(fatal.fields().get('M').startsWith("pgward ended the session of the read-only login "
                        + "\"reader\": the database server reports "), fatal.fields().get('M'));
                assertTrue(end.stream().noneMatch(m -> m.type() == 'Z'), "nothing runs after the report: " + end);
            }
            awaitGone(pid);
        }
    }

    // ---------------------------------------------------------------- part 2: startup settings

    @Test
    void settingsThePolicyOwnsCannotBeGivenAtStartupInAnySpelling() throws Exception {
        List<List<Map.Entry<String, String>>> attempts = List.of(
                pairs("DEFAULT_TRANSACTION_READ_ONLY", "off"),
                pairs("Default_Transaction_Read_Only", "0"),
                pairs("default_transaction_read_only", "on", "Default_Transaction_Read_Only", "no"),
                pairs("transaction_read_only", "off"),
                pairs("Statement_Timeout", "0"),
                pairs("statement_timeout", "10s"),
                pairs("options", "-c default_transaction_read_only=off"),
                pairs("options", "-cdefault_transaction_read_only=off"),
                pairs("options", "--default-transaction-read-only=off"),
                pairs("options", "-c statement_timeout=0"),
                pairs("options", "--statement-timeout=0"),
                pairs("options", "-c Statement_Timeout=0"),
                pairs("options", "-c\\ statement_timeout=0"),
                pairs("standard_conforming_strings", "off"),
                pairs("options", "-c standard_conforming_strings=off"),
                pairs("role", database.user()),
                pairs("session_authorization", database.user()),
                pairs("options", "-c role=" + database.user()),
                pairs("work_mem", "1TB"),
                pairs("event_triggers", "off"));
        for (List<Map.Entry<String, String>> attempt : attempts) {
            List<RawClient.Message> reply = attempt(attempt);
            assertEquals(1, reply.size(), attempt + ": " + reply);
            Map<Character, String> error = reply.getFirst().fields();
            assertEquals("FATAL", error.get('S'), attempt.toString());
            assertEquals(SqlState.INSUFFICIENT_PRIVILEGE, error.get('C'), attempt + ": " + error);
            assertTrue(error.get('M').startsWith("pgward does not accept the setting "), error.get('M'));
            assertTrue(error.get('D').startsWith("It is judged as SET "), error.get('D'));
        }
    }

    @Test
    void switchesOtherThanSettingsInOptionsEndTheLogin() throws Exception {
        for (String options : List.of("-e", "-f s", "-B 100", "-c application_name=x shop", "--single", "-d 5",
                "-c statement_timeout")) {
            List<RawClient.Message> reply = attempt(pairs("options", options));
            assertEquals(SqlState.INSUFFICIENT_PRIVILEGE, reply.getFirst().fields().get('C'), options + ": " + reply);
            assertTrue(reply.getFirst().fields().get('M').endsWith("options may only hold settings "
                    + "(-c name=value or --name=value)"), reply.toString());
        }
    }

    @Test
    void escapedBlanksInOptionsStayInsideTheValue() throws Exception {
        try (RawClient client = loggedIn(pairs("options",
                "-c application_name=x\\ -c\\ default_transaction_read_only=off --DateStyle=German"))) {
            assertEquals("x -c default_transaction_read_only=off", show(client, "application_name"));
            assertEquals("German, DMY", show(client, "DateStyle"));
            assertEquals("on", show(client, "transaction_read_only"));
            assertEquals("1s", show(client, "statement_timeout"));
        }
    }

    @Test
    void theLoginsStatementTimeoutBoundsEveryStatementAndMayOnlyBeLowered() throws Exception {
        try (RawClient client = loggedIn(pairs("application_name", "no-timeout-here"))) {
            assertEquals("1s", show(client, "statement_timeout"));
            long started = System.nanoTime();
            client.query("SELECT count(*) FROM generate_series(1, 1000000000)");
            assertError(client.readUntilReady(), SqlState.QUERY_CANCELED,
                    "canceling statement due to statement timeout");
            assertTrue(System.nanoTime() - started < TimeUnit.SECONDS.toNanos(8), "bounded by the login's 1 s");
        }
        try (RawClient client = loggedIn(pairs("options", "-c statement_timeout=250ms"))) {
            assertEquals("250ms", show(client, "statement_timeout"));
        }
    }

    @Test
    void aNewBackendConnectionWhoseSettingsDifferFromThePolicyIsNeverUsed() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(database.serverMajor() >= 17,
                "login event triggers need PostgreSQL 17");
        for (String[] loosen : new String[][] {{"loosen-timeout", "statement_timeout is 0 ms (pgward needs 1000 ms)"},
                {"loosen-encoding", "client_encoding is SJIS (pgward needs UTF8)"},
                {"loosen-read-only", "default_transaction_read_only is off (pgward needs on)"}}) {
            List<RawClient.Message> reply = attempt(pairs("application_name", loosen[0]));
            assertEquals(1, reply.size(), reply.toString());
            assertEquals(SqlState.INSUFFICIENT_PRIVILEGE, reply.getFirst().fields().get('C'));
            assertEquals("pgward will not use the new connection to the database server as \"" + database.user()
                    + "\": its session does not have the settings the read-only policy pins (" + loosen[1] + ")",
                    reply.getFirst().fields().get('M'));
            awaitNoBackend(loosen[0]);
        }
    }

    @Test
    void realClientsStillConnectAsTheReadOnlyLogin() throws Exception {
        try (Connection c = proxy.connect("analyst"); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT count(*) FROM orders")) {
            rs.next();
            assertEquals(100, rs.getInt(1));
        }
        RealClients.Result psql = RealClients.run(List.of(RealClients.require("psql").toString(), "-X", "-A", "-t",
                "-d", proxy.uri("analyst") + "?application_name=psql&options=-c%20search_path%3Dpublic%20-c%20"
                        + "lock_timeout%3D5s%20-c%20statement_timeout%3D500", "-c", "SHOW statement_timeout",
                "-c", "SELECT count(*) FROM orders"), null, Map.of("PGCLIENTENCODING", "UTF8",
                        "PGOPTIONS", "-c extra_float_digits=3"));
        assertEquals(0, psql.exit(), psql.err());
        assertEquals("500ms\n100\n", psql.out());
    }

    @Test
    void pythonAndNodeDriversConnectAsTheReadOnlyLogin() throws Exception {
        String query = "SELECT count(*)::text || ' ' || current_setting('transaction_read_only') FROM orders";
        Map<String, String> python = Map.of(
                "psycopg2", "import psycopg2, sys\nc = psycopg2.connect(sys.argv[1])\ncur = c.cursor()\n"
                        + "cur.execute(\"" + query + "\")\nprint(cur.fetchone()[0])",
                "psycopg", "import psycopg, sys\nc = psycopg.connect(sys.argv[1])\n"
                        + "print(c.execute(\"" + query + "\").fetchone()[0])",
                "asyncpg", "import asyncio, asyncpg, sys\nasync def main():\n"
                        + "    c = await asyncpg.connect(sys.argv[1])\n"
                        + "    print(await c.fetchval(\"" + query + "\"))\nasyncio.run(main())");
        for (Map.Entry<String, String> driver : python.entrySet()) {
            Path interpreter = RealClients.requirePython(driver.getKey(), "python3-" + driver.getKey());
            RealClients.Result result = RealClients.run(List.of(interpreter.toString(), "-E", "-s", "-B", "-c",
                    driver.getValue(), proxy.uri("analyst")));
            assertEquals(0, result.exit(), driver.getKey() + ": " + result.err());
            assertEquals("100 on\n", result.out(), driver.getKey());
        }
        Path node = ClientScript.clientsDirectory().resolve("node");
        if (!Files.isDirectory(node.resolve("node_modules"))) {
            RealClients.missing("the Node drivers are not installed: run npm ci in " + node);
        }
        // postgres.js reads pg_type for array types by default, outside this login's selection: not a startup matter.
        Map<String, String> javascript = Map.of(
                "pg", "import pg from 'pg'; const c = new pg.Client(process.argv[1]); await c.connect(); "
                        + "console.log((await c.query(\"" + query + "\")).rows[0]['?column?']); await c.end();",
                "postgres", "import postgres from 'postgres'; const sql = postgres(process.argv[1], {fetch_types: false}); "
                        + "console.log((await sql.unsafe(\"" + query + "\"))[0]['?column?']); await sql.end();");
        for (Map.Entry<String, String> driver : javascript.entrySet()) {
            RealClients.Result result = RealClients.run(List.of(RealClients.require("node", "Node.js 20 or newer")
                    .toString(), "--input-type=module", "-e", driver.getValue(), proxy.uri("analyst")), node);
            assertEquals(0, result.exit(), driver.getKey() + ": " + result.err());
            assertEquals("100 on\n", result.out(), driver.getKey());
        }
    }

    // ---------------------------------------------------------------- helpers

    /** {@code SELECT E'<lead>} followed by the hidden read, as bytes. */
    private static byte[] hidden(byte[] lead) {
        return concat("SELECT E'".getBytes(StandardCharsets.UTF_8), lead, HIDDEN_READ.getBytes(StandardCharsets.UTF_8));
    }

    private static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        for (byte[] part : parts) {
            bytes.writeBytes(part);
        }
        return bytes.toByteArray();
    }

    private static List<Map.Entry<String, String>> pairs(String... keysAndValues) {
        List<Map.Entry<String, String>> pairs = new ArrayList<>();
        for (int i = 0; i < keysAndValues.length; i += 2) {
            pairs.add(Map.entry(keysAndValues[i], keysAndValues[i + 1]));
        }
        return pairs;
    }

    /** The reader's login with these pairs after user and database; fails unless it gets to ReadyForQuery. */
    private static RawClient loggedIn(List<Map.Entry<String, String>> extra) throws Exception {
        RawClient client = new RawClient(proxy.port());
        client.startup(withLogin(extra));
        List<RawClient.Message> reply = client.readUntilReady();
        assertEquals('R', reply.getFirst().type(), extra + ": " + reply);
        assertEquals("UTF8", reply.stream().filter(m -> m.type() == 'S' && m.text().startsWith("client_encoding\0"))
                .map(m -> m.text().split("\0")[1]).findFirst().orElseThrow());
        return client;
    }

    /** A login attempt that must end: what pgward sent before closing. */
    private static List<RawClient.Message> attempt(List<Map.Entry<String, String>> extra) throws Exception {
        try (RawClient client = new RawClient(proxy.port())) {
            client.startup(withLogin(extra));
            List<RawClient.Message> reply = client.readUntilClosed();
            assertFalse(reply.stream().anyMatch(m -> m.type() == 'Z'), extra + " logged in: " + reply);
            assertNoSalaries(reply.toString());
            return reply;
        }
    }

    private static void assertFatal(List<Map.Entry<String, String>> extra, String sqlState, String message)
            throws Exception {
        List<RawClient.Message> reply = attempt(extra);
        assertEquals(1, reply.size(), extra + ": " + reply);
        assertEquals(Map.of('S', "FATAL", 'V', "FATAL", 'C', sqlState, 'M', message), reply.getFirst().fields(),
                extra.toString());
    }

    private static List<Map.Entry<String, String>> withLogin(List<Map.Entry<String, String>> extra) {
        List<Map.Entry<String, String>> all = new ArrayList<>(pairs("user", "reader", "database", database.name()));
        all.addAll(extra);
        return all;
    }

    private static String show(RawClient client, String setting) throws Exception {
        client.query("SHOW " + setting);
        return values(client.readUntilReady()).getFirst();
    }

    /** The text of the first column of every DataRow; fails on an ErrorResponse. */
    private static List<String> values(List<RawClient.Message> reply) {
        List<String> values = new ArrayList<>();
        for (RawClient.Message m : reply) {
            if (m.type() == 'E') {
                throw new AssertionError("error: " + m.fields());
            }
            if (m.type() == 'D') {
                byte[] body = m.body();
                int length = java.nio.ByteBuffer.wrap(body, 2, 4).getInt();
                values.add(length < 0 ? null : new String(body, 6, length, StandardCharsets.UTF_8));
            }
        }
        assertNoSalaries(String.join("\n", values.stream().map(String::valueOf).toList()));
        return values;
    }

    private static Map<Character, String> error(List<RawClient.Message> reply) {
        return reply.stream().filter(m -> m.type() == 'E').findFirst()
                .orElseThrow(() -> new AssertionError("no error: " + reply)).fields();
    }

    private static void assertError(List<RawClient.Message> reply, String sqlState, String message) {
        Map<Character, String> error = error(reply);
        assertEquals(sqlState, error.get('C'), error.toString());
        assertEquals(message, error.get('M'));
        assertTrue(reply.stream().noneMatch(m -> m.type() == 'D'), reply.toString());
    }

    private static void assertNoSalaries(String text) {
        for (String secret : List.of(NAME_1, SALARY_1, SALARY_2, "Alan Quietly")) {
            assertFalse(text.contains(secret), "hr.salaries was read: " + text);
        }
    }

    private void assertBystanderWorks() throws SQLException {
        try (Statement s = bystander.createStatement()) {
            try (ResultSet rs = s.executeQuery("SELECT count(*) FROM orders")) {
                rs.next();
                assertEquals(100, rs.getInt(1));
            }
            try (ResultSet rs = s.executeQuery("SHOW transaction_read_only")) {
                rs.next();
                assertEquals("on", rs.getString(1));
            }
        }
    }

    private static void awaitGone(int pid) throws SQLException {
        awaitCount("SELECT count(*) FROM pg_stat_activity WHERE pid = " + pid, "backend " + pid);
    }

    private static void awaitNoBackend(String applicationName) throws SQLException {
        awaitCount("SELECT count(*) FROM pg_stat_activity WHERE application_name = '" + applicationName + "'",
                "backends of " + applicationName);
    }

    private static void awaitCount(String sql, String what) throws SQLException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        int seen = -1;
        try (Connection admin = database.connect(); Statement s = admin.createStatement()) {
            while (System.nanoTime() < deadline) {
                try (ResultSet rs = s.executeQuery(sql)) {
                    rs.next();
                    seen = rs.getInt(1);
                }
                if (seen == 0) {
                    return;
                }
            }
        }
        assertEquals(0, seen, what + " still open");
    }
}
