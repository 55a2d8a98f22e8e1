package io.pgward.it;

import static io.pgward.it.RawClient.BIND_UNNAMED;
import static io.pgward.it.RawClient.EXECUTE_UNNAMED;
import static io.pgward.it.RawClient.SYNC;
import static io.pgward.it.RawClient.concat;
import static io.pgward.it.RawClient.frame;
import static io.pgward.it.RawClient.functionCall;
import static io.pgward.it.RawClient.parseUnnamed;
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
                concat(parseUnnamed("SELECT 42"), BIND_UNNAMED, functionCall(INT4PL, "1", "2")),
                SYNC,
                concat(BIND_UNNAMED, EXECUTE_UNNAMED, SYNC),
                frame('Q', "BEGIN\0"),
                concat(parseUnnamed("SELECT g FROM generate_series(1, 3) g"), BIND_UNNAMED, frame('E', "\0\0\0\0\1"),
                        functionCall(INT4PL, "3", "4")),
                SYNC,
                concat(EXECUTE_UNNAMED, BIND_UNNAMED, EXECUTE_UNNAMED, SYNC),
                frame('Q', "ROLLBACK\0")));
    }

    /** After an error in the batch the server skips the FunctionCall, which gets no ReadyForQuery of its own. */
    @Test
    void aFunctionCallAfterAFailedExtendedMessageIsSkippedAndTheUnnamedStatementStays() throws Exception {
        assertSameAsPostgresql("trusted", List.of(
                concat(parseUnnamed("SELECT 1/0"), BIND_UNNAMED, EXECUTE_UNNAMED, functionCall(INT4PL, "1", "2"), SYNC),
                concat(BIND_UNNAMED, EXECUTE_UNNAMED, SYNC)));
    }

    /** A Query without its NUL fails before it runs anything, so it drops nothing either. */
    @Test
    void theUnnamedStatementOutlivesAMalformedQueryAfterExtendedMessages() throws Exception {
        assertSameAsPostgresql("trusted", List.of(
                concat(parseUnnamed("SELECT 42"), BIND_UNNAMED, frame('Q', "SELECT 1")),
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
            client.raw(concat(parseUnnamed("SELECT 42"),
                    frame('P', "d\0SELECT count(*) FROM pgward.describe($1)\0\0\0"),
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
}
