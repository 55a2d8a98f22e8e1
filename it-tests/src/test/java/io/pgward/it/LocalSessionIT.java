package io.pgward.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgward.guard.Verdict;
import io.pgward.wire.config.PgwardConfig;
import io.pgward.wire.local.LocalDatabase;
import io.pgward.wire.local.LocalDatabaseException;
import io.pgward.wire.protocol.SqlState;
import io.pgward.wire.server.PgwardServer;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The server side of the protocol pgward speaks for a database it answers itself, message by message: simple and
 * extended query, empty statements, portal suspension, Close, errors skipping to Sync, cancel. The database is a
 * small one written here; no PostgreSQL is involved.
 */
class LocalSessionIT {

    private static final String DATABASE = "local";
    private static final ScriptedDatabase LOCAL = new ScriptedDatabase();
    private static PgwardServer server;

    /**
     * Statements: {@code rows N} (columns n and square, a notice), {@code params} (one row of the parameters),
     * {@code write} (no result set), {@code fail} (22012), {@code slow} (never finishes on its own).
     */
    static final class ScriptedDatabase implements LocalDatabase {
        final List<Statement> received = new CopyOnWriteArrayList<>();
        final CountDownLatch slowStarted = new CountDownLatch(1);

        @Override
        public CompletionStage<Verdict.Answer> execute(Statement statement) {
            received.add(statement);
            String sql = statement.sql().strip();
            if (sql.startsWith("rows ")) {
                int n = Integer.parseInt(sql.substring(5));
                List<List<String>> rows = new ArrayList<>();
                for (int i = 1; i <= n; i++) {
                    rows.add(List.of(Integer.toString(i), Integer.toString(i * i)));
                }
                return CompletableFuture.supplyAsync(() -> new Verdict.Answer(List.of("n", "square"), rows,
                        "SELECT " + n, List.of("counted " + n)));
            }
            return switch (sql) {
                case "params" -> CompletableFuture.completedFuture(new Verdict.Answer(
                        IntStream.rangeClosed(1, statement.parameters().size()).mapToObj(i -> "p" + i).toList(),
                        List.of(statement.parameters()), "SELECT 1", List.of()));
                case "write" -> CompletableFuture.completedFuture(
                        new Verdict.Answer(List.of(), List.of(), "INSERT 0 1", List.of()));
                case "fail" -> CompletableFuture.failedFuture(
                        LocalDatabaseException.error("22012", "division by zero"));
                case "slow" -> {
                    slowStarted.countDown();
                    yield new CompletableFuture<>();
                }
                default -> CompletableFuture.failedFuture(new LocalDatabaseException(SqlState.SYNTAX_ERROR,
                        "syntax error at \"" + sql + "\"", "scripted", null, "error", null));
            };
        }

        @Override
        public Map<String, String> parameterStatus() {
            return Map.of("server_version", "17.0 (pgward, scripted)", "TimeZone", "UTC");
        }
    }

    @BeforeAll
    static void start() {
        PgwardConfig.Login trusted = new PgwardConfig.Login("trusted", PgwardConfig.AuthMethod.TRUST, null, null,
                "nobody", null, PgwardConfig.Mode.READ_ONLY);
        // The backend is never contacted: every session here is on the local database.
        PgwardConfig config = new PgwardConfig(new PgwardConfig.Listen("127.0.0.1", 0), Duration.ofSeconds(5),
                new PgwardConfig.Tls(PgwardConfig.TlsMode.DISABLE, null, null),
                new PgwardConfig.Backend("127.0.0.1", 1, PgwardConfig.SslMode.DISABLE, null),
                new PgwardConfig.Pool(2, Duration.ofSeconds(1)), Map.of("trusted", trusted));
        server = PgwardServer.start(config, audit -> (login, loop) -> request -> CompletableFuture.completedFuture(
                new Verdict.Refuse(SqlState.INSUFFICIENT_PRIVILEGE, "no backend in this test")), Map.of(DATABASE, LOCAL));
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    @BeforeEach
    void clear() {
        LOCAL.received.clear();
    }

    @Test
    void loginReportsTheDatabasesParametersAndPgwardsDefaults() throws IOException {
        try (RawClient client = new RawClient(server.port())) {
            client.startup(Map.of("user", "trusted", "database", DATABASE, "application_name", "probe"));
            List<RawClient.Message> login = client.readUntilReady();
            Map<String, String> status = login.stream().filter(m -> m.type() == 'S').map(RawClient.Message::body)
                    .map(LocalSessionIT::cstrings)
                    .collect(Collectors.toMap(s -> s.get(0), s -> s.get(1)));
            assertEquals("17.0 (pgward, scripted)", status.get("server_version"));
            assertEquals("UTC", status.get("TimeZone"));
            assertEquals("UTF8", status.get("client_encoding"));
            assertEquals("on", status.get("standard_conforming_strings"));
            assertEquals("probe", status.get("application_name"));
            assertEquals("RSSSSSSSKZ", types(login).replaceAll("S+", "SSSSSSS"));
        }
    }

    @Test
    void simpleQueryAnswersWithNoticeRowsAndTag() throws IOException {
        try (RawClient client = login()) {
            client.query("rows 2");
            List<RawClient.Message> reply = client.readUntilReady();
            assertEquals("NTDDCZ", types(reply));
            assertEquals("counted 2", reply.get(0).fields().get('M'));
            assertEquals(List.of("n", "square"), columns(reply.get(1)));
            assertEquals(List.of("2", "4"), values(reply.get(3)));
            assertEquals("SELECT 2", cstrings(reply.get(4).body()).get(0));
            assertEquals('I', (char) reply.get(5).body()[0]);
            assertEquals("trusted", LOCAL.received.get(0).login());
            assertTrue(LOCAL.received.get(0).readOnly());
        }
    }

    @Test
    void emptyStatementsGetEmptyQueryResponseInBothProtocols() throws IOException {
        try (RawClient client = login()) {
            client.query("  \n ");
            assertEquals("IZ", types(client.readUntilReady()));

            parse(client, "", " ");
            bind(client, "", "", new short[0], new byte[0][]);
            describe(client, 'P', "");
            execute(client, "", 0);
            client.sync();
            assertEquals("12nIZ", types(client.readUntilReady()));
            assertEquals(List.of(), LOCAL.received, "nothing ran");
        }
    }

    @Test
    void executeWithMaxRowsSuspendsThePortalAndContinues() throws IOException {
        try (RawClient client = login()) {
            parse(client, "s1", "rows 3");
            bind(client, "p1", "s1", new short[0], new byte[0][]);
            describe(client, 'P', "p1");
            execute(client, "p1", 2);
            execute(client, "p1", 2);
            client.sync();
            List<RawClient.Message> reply = client.readUntilReady();
            assertEquals("12NTDDsDCZ", types(reply));
            assertEquals(List.of("3", "9"), values(reply.get(7)));
            assertEquals("SELECT 3", cstrings(reply.get(8).body()).get(0));
            assertEquals(1, LOCAL.received.size(), "the portal ran once");

            bind(client, "", "s1", new short[0], new byte[0][]);
            execute(client, "", 0);
            client.sync();
            assertEquals("2NDDDCZ", types(client.readUntilReady()), "the named statement stays prepared");
        }
    }

    @Test
    void describeOfAStatementGivesItsParameterTypesAndNoData() throws IOException {
        try (RawClient client = login()) {
            parse(client, "s2", "params", 23, 0);
            describe(client, 'S', "s2");
            client.sync();
            List<RawClient.Message> reply = client.readUntilReady();
            assertEquals("1tnZ", types(reply));
            ByteBuffer description = ByteBuffer.wrap(reply.get(1).body());
            assertEquals(2, description.getShort());
            assertEquals(23, description.getInt());
            assertEquals(25, description.getInt(), "an unspecified parameter is text");
            assertEquals(List.of(), LOCAL.received, "describing a statement does not run it");
        }
    }

    @Test
    void describeOfAStatementBoundRightAfterRunsItAndGivesItsColumns() throws IOException {
        try (RawClient client = login()) {
            parse(client, "s5", "rows 2", 0);
            describe(client, 'S', "s5");
            bind(client, "", "s5", new short[0], new byte[][] {"x".getBytes(StandardCharsets.UTF_8)});
            execute(client, "", 0);
            client.sync();
            List<RawClient.Message> reply = client.readUntilReady();
            assertEquals("1NtT2DDCZ", types(reply));
            assertEquals(List.of("n", "square"), columns(reply.get(3)));
            assertEquals(1, LOCAL.received.size(), "the statement ran once");
        }
    }

    @Test
    void describeOfAStatementAloneIsAnsweredAtFlush() throws IOException {
        try (RawClient client = login()) {
            parse(client, "s6", "rows 2");
            describe(client, 'S', "s6");
            client.send('H', new byte[0]);
            client.flush();
            assertEquals("1tn", types(List.of(client.read(), client.read(), client.read())));
            client.sync();
            assertEquals("Z", types(client.readUntilReady()));
            assertEquals(List.of(), LOCAL.received);
        }
    }

    @Test
    void binaryAndTextParametersReachTheDatabaseAsTextWithTheirTypes() throws IOException {
        try (RawClient client = login()) {
            parse(client, "s3", "params", 23, 0, 0);
            bind(client, "", "s3", new short[] {1, 0, 0},
                    new byte[][] {ByteBuffer.allocate(4).putInt(-42).array(), "héllo".getBytes(StandardCharsets.UTF_8),
                            null});
            describe(client, 'P', "");
            execute(client, "", 0);
            client.sync();
            List<RawClient.Message> reply = client.readUntilReady();
            assertEquals("12TDCZ", types(reply));
            assertEquals(List.of("p1", "p2", "p3"), columns(reply.get(2)));
            assertEquals(Arrays.asList("-42", "héllo", null), values(reply.get(3)));
            assertEquals(List.of(23, 0, 0), LOCAL.received.get(0).parameterTypes());
        }
    }

    @Test
    void aBinaryParameterOfTheWrongSizeIsRefused() throws IOException {
        try (RawClient client = login()) {
            parse(client, "", "params", 23);
            bind(client, "", "", new short[] {1}, new byte[][] {{0, 1}});
            execute(client, "", 0);
            client.sync();
            List<RawClient.Message> reply = client.readUntilReady();
            assertEquals("1EZ", types(reply));
            assertEquals(SqlState.INVALID_BINARY_REPRESENTATION, reply.get(1).fields().get('C'));
        }
    }

    @Test
    void anUnknownMessageTypeEndsOnlyItsOwnSession() throws IOException {
        try (RawClient bystander = login()) {
            try (RawClient garbage = login()) {
                garbage.send('Y', new byte[] {1, 2, 3});
                garbage.flush();
                List<RawClient.Message> reply = garbage.readUntilClosed();
                assertEquals("FATAL", reply.getLast().fields().get('S'));
                assertEquals(SqlState.PROTOCOL_VIOLATION, reply.getLast().fields().get('C'));
            }
            bystander.query("rows 1");
            assertEquals("NTDCZ", types(bystander.readUntilReady()), "the other session carries on");
        }
    }

    /** A message framed correctly whose body is malformed gets PostgreSQL's ERROR 08P01, and the session goes on. */
    @Test
    void aMalformedMessageGetsAnErrorAndTheSessionGoesOn() throws IOException {
        try (RawClient client = login()) {
            // A Bind that announces a parameter value longer than the message holds.
            client.parse("", "params");
            client.send('B', new byte[] {0, 0, 0, 0, 0, 1, 0, 0, 0, 100, 'x'});
            client.sync();
            List<RawClient.Message> reply = client.readUntilReady();
            assertEquals("1EZ", types(reply));
            assertEquals(Map.of('S', "ERROR", 'V', "ERROR", 'C', SqlState.PROTOCOL_VIOLATION, 'M',
                    "insufficient data left in message"), reply.get(1).fields());

            client.send('D', "Xfoo\0".getBytes(StandardCharsets.US_ASCII));
            client.sync();
            reply = client.readUntilReady();
            assertEquals("EZ", types(reply));
            assertEquals("invalid DESCRIBE message subtype 88", reply.getFirst().fields().get('M'));

            client.query("rows 1");
            assertEquals("NTDCZ", types(client.readUntilReady()));
        }
    }

    @Test
    void anErrorSkipsEverythingUpToSync() throws IOException {
        try (RawClient client = login()) {
            parse(client, "", "fail");
            bind(client, "", "", new short[0], new byte[0][]);
            execute(client, "", 0);
            parse(client, "after", "rows 1");
            bind(client, "", "after", new short[0], new byte[0][]);
            execute(client, "", 0);
            client.sync();
            List<RawClient.Message> reply = client.readUntilReady();
            assertEquals("12EZ", types(reply));
            assertEquals("22012", reply.get(2).fields().get('C'));
            assertEquals("division by zero", reply.get(2).fields().get('M'));

            bind(client, "", "after", new short[0], new byte[0][]);
            client.sync();
            assertEquals(SqlState.INVALID_SQL_STATEMENT_NAME, client.readUntilReady().get(0).fields().get('C'),
                    "the Parse after the error was skipped");
        }
    }

    @Test
    void unknownStatementsAndPortalsAreErrors() throws IOException {
        try (RawClient client = login()) {
            bind(client, "", "nope", new short[0], new byte[0][]);
            client.sync();
            List<RawClient.Message> reply = client.readUntilReady();
            assertEquals("EZ", types(reply));
            assertEquals(SqlState.INVALID_SQL_STATEMENT_NAME, reply.get(0).fields().get('C'));
            assertEquals("prepared statement \"nope\" does not exist", reply.get(0).fields().get('M'));

            execute(client, "nope", 0);
            client.sync();
            reply = client.readUntilReady();
            assertEquals("EZ", types(reply));
            assertEquals(SqlState.INVALID_CURSOR_NAME, reply.get(0).fields().get('C'));

            describe(client, 'S', "nope");
            client.sync();
            assertEquals(SqlState.INVALID_SQL_STATEMENT_NAME, client.readUntilReady().get(0).fields().get('C'));

            parse(client, "dup", "rows 1");
            parse(client, "dup", "rows 1");
            client.sync();
            reply = client.readUntilReady();
            assertEquals("1EZ", types(reply));
            assertEquals(SqlState.DUPLICATE_PREPARED_STATEMENT, reply.get(1).fields().get('C'));
        }
    }

    @Test
    void closeForgetsStatementsAndPortals() throws IOException {
        try (RawClient client = login()) {
            parse(client, "s4", "rows 1");
            bind(client, "p4", "s4", new short[0], new byte[0][]);
            close(client, 'P', "p4");
            close(client, 'S', "s4");
            close(client, 'S', "never-existed");
            client.sync();
            assertEquals("12333Z", types(client.readUntilReady()));

            execute(client, "p4", 0);
            client.sync();
            assertEquals(SqlState.INVALID_CURSOR_NAME, client.readUntilReady().get(0).fields().get('C'));
            bind(client, "", "s4", new short[0], new byte[0][]);
            client.sync();
            assertEquals(SqlState.INVALID_SQL_STATEMENT_NAME, client.readUntilReady().get(0).fields().get('C'));
        }
    }

    @Test
    void aWriteWithoutRowsHasOnlyItsCommandTag() throws IOException {
        try (RawClient client = login()) {
            client.query("write");
            List<RawClient.Message> reply = client.readUntilReady();
            assertEquals("CZ", types(reply));
            assertEquals("INSERT 0 1", cstrings(reply.get(0).body()).get(0));

            parse(client, "", "write");
            bind(client, "", "", new short[0], new byte[0][]);
            describe(client, 'P', "");
            execute(client, "", 0);
            client.sync();
            assertEquals("12nCZ", types(client.readUntilReady()));
        }
    }

    @Test
    void aSimpleQueryErrorIsFollowedByReadyForQuery() throws IOException {
        try (RawClient client = login()) {
            client.query("nonsense");
            List<RawClient.Message> reply = client.readUntilReady();
            assertEquals("EZ", types(reply));
            assertEquals(SqlState.SYNTAX_ERROR, reply.get(0).fields().get('C'));
            assertEquals("scripted", reply.get(0).fields().get('D'));
            client.query("rows 1");
            assertEquals("NTDCZ", types(client.readUntilReady()), "the session carries on");
        }
    }

    @Test
    void cancelRequestStopsTheRunningStatementAndTheSessionCarriesOn() throws Exception {
        try (RawClient client = new RawClient(server.port())) {
            client.startup(Map.of("user", "trusted", "database", DATABASE));
            ByteBuffer key = client.readUntilReady().stream().filter(m -> m.type() == 'K')
                    .map(m -> ByteBuffer.wrap(m.body())).findFirst().orElseThrow();
            client.query("slow");
            assertTrue(LOCAL.slowStarted.await(10, TimeUnit.SECONDS));
            try (Socket cancel = new Socket("127.0.0.1", server.port());
                 DataOutputStream out = new DataOutputStream(cancel.getOutputStream())) {
                out.writeInt(16);
                out.writeInt(80877102);
                out.writeInt(key.getInt());
                out.writeInt(key.getInt());
                out.flush();
                cancel.getInputStream().read();
            }
            List<RawClient.Message> reply = client.readUntilReady();
            assertEquals("EZ", types(reply));
            assertEquals(SqlState.QUERY_CANCELED, reply.get(0).fields().get('C'));
            client.query("rows 1");
            assertEquals("NTDCZ", types(client.readUntilReady()));
        }
    }

    /**
     * A reload that removes the login while an extended exchange is under way: the exchange gets its ReadyForQuery
     * at its Sync before the FATAL (pgjdbc takes a FATAL in place of it for the answer to the statement and then
     * finds its connection closed), and what the client sends after the end was asked does not run.
     */
    @Test
    void aSessionEndedMidExchangeGetsItsReadyForQueryAndRunsNothingMore() throws Exception {
        PgwardConfig original = server.activeConfig();
        try (RawClient client = login()) {
            parse(client, "", "fail");
            bind(client, "", "", new short[0], new byte[0][]);
            execute(client, "", 0);
            client.send('H', new byte[0]);
            client.flush();
            assertEquals("12E", types(List.of(client.read(), client.read(), client.read())));

            server.reloadFrom(() -> original.withLogins(Map.of()), changed -> { });
            assertEquals(1, server.reload().sessionsEnded());
            Thread.sleep(300);
            parse(client, "", "rows 1");
            bind(client, "", "", new short[0], new byte[0][]);
            execute(client, "", 0);
            client.sync();
            List<RawClient.Message> reply = client.readUntilClosed();
            assertEquals("ZE", types(reply));
            assertEquals(SqlState.ADMIN_SHUTDOWN, reply.get(1).fields().get('C'));
            assertEquals(List.of("fail"), LOCAL.received.stream().map(s -> s.sql()).toList());
        } finally {
            server.reloadFrom(() -> original, changed -> { });
            server.reload();
        }
    }

    // ---------------------------------------------------------------- messages

    private static RawClient login() throws IOException {
        return RawClient.loggedIn(server.port(), "trusted", DATABASE);
    }

    private static void parse(RawClient client, String name, String sql, int... types) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        DataOutputStream out = new DataOutputStream(bytes);
        cstring(out, name);
        cstring(out, sql);
        out.writeShort(types.length);
        for (int type : types) {
            out.writeInt(type);
        }
        client.send('P', bytes.toByteArray());
    }

    private static void bind(RawClient client, String portal, String statement, short[] formats, byte[][] values)
            throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        DataOutputStream out = new DataOutputStream(bytes);
        cstring(out, portal);
        cstring(out, statement);
        out.writeShort(formats.length);
        for (short format : formats) {
            out.writeShort(format);
        }
        out.writeShort(values.length);
        for (byte[] value : values) {
            if (value == null) {
                out.writeInt(-1);
            } else {
                out.writeInt(value.length);
                out.write(value);
            }
        }
        out.writeShort(0);
        client.send('B', bytes.toByteArray());
    }

    private static void describe(RawClient client, char kind, String name) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        DataOutputStream out = new DataOutputStream(bytes);
        out.writeByte(kind);
        cstring(out, name);
        client.send('D', bytes.toByteArray());
    }

    private static void execute(RawClient client, String portal, int maxRows) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        DataOutputStream out = new DataOutputStream(bytes);
        cstring(out, portal);
        out.writeInt(maxRows);
        client.send('E', bytes.toByteArray());
    }

    private static void close(RawClient client, char kind, String name) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        DataOutputStream out = new DataOutputStream(bytes);
        out.writeByte(kind);
        cstring(out, name);
        client.send('C', bytes.toByteArray());
    }

    private static void cstring(DataOutputStream out, String text) throws IOException {
        out.write(text.getBytes(StandardCharsets.UTF_8));
        out.writeByte(0);
    }

    private static String types(List<RawClient.Message> messages) {
        StringBuilder types = new StringBuilder();
        messages.forEach(m -> types.append(m.type()));
        return types.toString();
    }

    private static List<String> cstrings(byte[] body) {
        List<String> strings = new ArrayList<>();
        int start = 0;
        for (int i = 0; i < body.length; i++) {
            if (body[i] == 0) {
                strings.add(new String(body, start, i - start, StandardCharsets.UTF_8));
                start = i + 1;
            }
        }
        return strings;
    }

    /** Column names of a RowDescription, checking every column is text in text format. */
    private static List<String> columns(RawClient.Message rowDescription) {
        ByteBuffer body = ByteBuffer.wrap(rowDescription.body());
        int count = body.getShort();
        List<String> names = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            int start = body.position();
            while (body.get() != 0) {
                // to the end of the name
            }
            names.add(new String(rowDescription.body(), start, body.position() - start - 1, StandardCharsets.UTF_8));
            body.getInt();
            body.getShort();
            assertEquals(25, body.getInt(), "text");
            body.getShort();
            body.getInt();
            assertEquals(0, body.getShort(), "text format");
        }
        return names;
    }

    private static List<String> values(RawClient.Message dataRow) {
        ByteBuffer body = ByteBuffer.wrap(dataRow.body());
        int count = body.getShort();
        List<String> values = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            int length = body.getInt();
            if (length < 0) {
                values.add(null);
            } else {
                values.add(new String(dataRow.body(), body.position(), length, StandardCharsets.UTF_8));
                body.position(body.position() + length);
            }
        }
        return values;
    }
}
