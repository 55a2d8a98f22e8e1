package io.pgward.it;

import static io.pgward.it.RawClient.concat;
import static io.pgward.it.RawClient.frame;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.pgward.testkit.PostgresTest;
import io.pgward.testkit.SampleData;
import io.pgward.testkit.TestDatabase;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * PostgreSQL keeps the unnamed prepared statement until the client parses another one or sends a Query, and a portal
 * until its transaction ends: whatever pgward sends the server on its own leaves both as they are. Each exchange is
 * sent whole, to PostgreSQL itself and through pgward, and read up to its ReadyForQuery; the answers must be the same.
 */
@PostgresTest(sampleData = SampleData.SMALL)
class UnnamedStatementIT {

    /** int4pl(int4, int4), the same OID in every PostgreSQL version. */
    private static final int INT4PL = 177;
    private static final byte[] SYNC = frame('S', "");
    private static final byte[] BIND_UNNAMED = frame('B', "\0\0\0\0\0\0\0\0");
    private static final byte[] EXECUTE_UNNAMED = frame('E', "\0\0\0\0\0");

    private static ProxyFixture proxy;
    private static TestDatabase database;

    @BeforeAll
    static void start(TestDatabase db) {
        database = db;
        proxy = ProxyFixture.start(db);
    }

    @AfterAll
    static void stop() {
        proxy.close();
    }

    /**
     * A FunctionCall after extended-protocol messages not yet followed by a Sync: pgward learns first whether the
     * server skips it (an earlier message of the batch failed). The client's unnamed statement is bound again after
     * the Sync, and the unnamed portal of a transaction block runs on.
     */
    @Test
    void theUnnamedStatementAndPortalOutliveAFunctionCallAfterExtendedMessages() throws Exception {
        assertSameAsPostgresql("trusted", List.of(
                concat(parse("SELECT 42"), BIND_UNNAMED, functionCall(INT4PL, "1", "2")),
                SYNC,
                concat(BIND_UNNAMED, EXECUTE_UNNAMED, SYNC),
                frame('Q', "BEGIN\0"),
                concat(parse("SELECT g FROM generate_series(1, 3) g"), BIND_UNNAMED, frame('E', "\0\0\0\0\1"),
                        functionCall(INT4PL, "3", "4")),
                SYNC,
                concat(EXECUTE_UNNAMED, BIND_UNNAMED, EXECUTE_UNNAMED, SYNC),
                frame('Q', "ROLLBACK\0")));
    }

    /** After an error in the batch the server skips the FunctionCall, which gets no ReadyForQuery of its own. */
    @Test
    void aFunctionCallAfterAFailedExtendedMessageIsSkippedAndTheUnnamedStatementStays() throws Exception {
        assertSameAsPostgresql("trusted", List.of(
                concat(parse("SELECT 1/0"), BIND_UNNAMED, EXECUTE_UNNAMED, functionCall(INT4PL, "1", "2"), SYNC),
                concat(BIND_UNNAMED, EXECUTE_UNNAMED, SYNC)));
    }

    /** A Query without its NUL fails before it runs anything, so it drops nothing either. */
    @Test
    void theUnnamedStatementOutlivesAMalformedQueryAfterExtendedMessages() throws Exception {
        assertSameAsPostgresql("trusted", List.of(
                concat(parse("SELECT 42"), BIND_UNNAMED, frame('Q', "SELECT 1")),
                SYNC,
                concat(BIND_UNNAMED, EXECUTE_UNNAMED, SYNC)));
    }

    /**
     * A Bind of a statement whose pgward call takes a bound value binds a statement pgward computed, prepared under a
     * name of pgward's own: the client's unnamed statement, bound after it in the same request, is still its own, and
     * nothing of pgward's is left in the session.
     */
    @Test
    void theUnnamedStatementOutlivesABindOfAPgwardCallWithABoundValue() throws Exception {
        try (RawClient client = RawClient.loggedIn(proxy.port(), "trusted", database.name())) {
            client.raw(concat(parse("SELECT 42"), frame('P', "d\0SELECT count(*) FROM pgward.describe($1)\0\0\0"),
                    frame('B', "p\0d\0\0\0\0\1\0\0\0\6orders\0\0"), frame('E', "p\0\0\0\0\0"),
                    BIND_UNNAMED, EXECUTE_UNNAMED, SYNC));
            List<RawClient.Message> reply = client.readUntilReady();
            assertEquals(List.of('1', '1', '2', 'D', 'C', '2', 'D', 'C', 'Z'), types(reply), reply::toString);
            assertEquals("42", reply.get(6).text().substring(6), "the client's unnamed statement");

            client.query("SELECT count(*) FROM pg_prepared_statements WHERE name LIKE 'pgward%'");
            List<RawClient.Message> left = client.readUntilReady();
            assertEquals(List.of('T', 'D', 'C', 'Z'), types(left));
            assertEquals("0", left.get(1).text().substring(6));
        }
    }

    private static List<Character> types(List<RawClient.Message> messages) {
        return messages.stream().map(RawClient.Message::type).toList();
    }

    private static void assertSameAsPostgresql(String login, List<byte[]> exchanges) throws Exception {
        List<String> direct;
        try (RawClient client = RawClient.loggedIn(database.port(), database.user(), database.password(),
                database.name())) {
            direct = client.replies(exchanges);
        }
        try (RawClient client = RawClient.loggedIn(proxy.port(), login, database.name())) {
            assertEquals(direct, client.replies(exchanges), login);
        }
    }

    /** Parse of the unnamed statement, without parameter types. */
    private static byte[] parse(String sql) {
        return frame('P', "\0" + sql + "\0\0\0");
    }

    /**
     * FunctionCall of {@code oid} with text arguments and a text result. Wire: 'F' | int32 len | int32 oid | int16 0
     * (every argument text) | int16 n | (int32 len | bytes)* | int16 0.
     */
    private static byte[] functionCall(int oid, String... arguments) {
        java.nio.ByteBuffer body = java.nio.ByteBuffer.allocate(1024).putInt(oid).putShort((short) 0)
                .putShort((short) arguments.length);
        for (String argument : arguments) {
            byte[] bytes = argument.getBytes(java.nio.charset.StandardCharsets.UTF_8);
            body.putInt(bytes.length).put(bytes);
        }
        body.putShort((short) 0);
        return frame('F', new String(body.array(), 0, body.position(), java.nio.charset.StandardCharsets.ISO_8859_1));
    }
}
