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
 * A read-only login's FunctionCall is refused, and the refusal must do what PostgreSQL's own failing FunctionCall does:
 * one ErrorResponse and one ReadyForQuery of its own, the transaction aborted or left as PostgreSQL leaves it, and the
 * client's unnamed statement and portal kept (a FunctionCall drops neither, where a simple Query drops the statement).
 * Each exchange is sent whole, through pgward as {@code reader} and to PostgreSQL itself as a role that may not execute
 * the function (42501 as well); the answers must be the same but for the texts of those errors.
 */
@PostgresTest(sampleData = SampleData.SMALL)
class RefusedFunctionCallIT {

    /** A role that may not execute {@link #refused}: no predefined role is granted EXECUTE on pg_read_file. */
    private static final String DIRECT_ROLE = "pg_monitor";
    /** A Bind of statement "r" to the unnamed portal. */
    private static final byte[] BIND_R = frame('B', "\0r\0\0\0\0\0\0\0");
    /** ROLLBACK in the extended protocol: a simple Query would drop the unnamed statement. */
    private static final byte[] ROLLBACK_EXTENDED = concat(frame('P', "r\0ROLLBACK\0\0\0"), BIND_R, EXECUTE_UNNAMED);

    /** SELECT 1/0 as statement "z", bound to the unnamed portal and executed: division by zero. */
    private static final byte[] FAILING = concat(frame('P', "z\0SELECT 1/0\0\0\0"),
            frame('B', "\0z\0\0\0\0\0\0\0"), EXECUTE_UNNAMED);

    private static ProxyFixture proxy;
    private static TestDatabase database;
    /** FunctionCall of pg_read_file(text), whose OID differs between versions. */
    private static byte[] refused;

    @BeforeAll
    static void start(TestDatabase db) throws Exception {
        database = db;
        proxy = ProxyFixture.start(db);
        try (RawClient client = direct()) {
            client.query("SELECT 'pg_catalog.pg_read_file(text)'::regprocedure::oid");
            List<RawClient.Message> reply = client.readUntilReady();
            refused = functionCall(Integer.parseInt(reply.get(1).text().substring(6)), "PG_VERSION");
        }
    }

    @AfterAll
    static void stop() {
        proxy.close();
    }

    @Test
    void theUnnamedStatementOutlivesARefusedFunctionCall() throws Exception {
        assertSameAsPostgresql(List.of(
                concat(parseUnnamed("SELECT 42"), BIND_UNNAMED, SYNC),
                refused,
                concat(BIND_UNNAMED, EXECUTE_UNNAMED, SYNC)));
    }

    /**
     * After extended-protocol messages without a Sync the FunctionCall still gets its own ReadyForQuery, and the Sync
     * after it one more. Outside a transaction block its error ends the implicit transaction: the unnamed portal is
     * gone, the unnamed statement is not.
     */
    @Test
    void aRefusedFunctionCallAfterExtendedMessagesEndsTheImplicitTransactionOnly() throws Exception {
        assertSameAsPostgresql(List.of(
                concat(parseUnnamed("SELECT 42"), BIND_UNNAMED, refused),
                SYNC,
                concat(BIND_UNNAMED, EXECUTE_UNNAMED, SYNC),
                concat(parseUnnamed("SELECT g FROM generate_series(1, 3) g"), BIND_UNNAMED, frame('E', "\0\0\0\0\1"),
                        refused),
                concat(EXECUTE_UNNAMED, SYNC),
                concat(BIND_UNNAMED, EXECUTE_UNNAMED, SYNC)));
    }

    /** Messages pipelined behind the FunctionCall run after its ReadyForQuery, as on PostgreSQL. */
    @Test
    void messagesPipelinedBehindARefusedFunctionCallRun() throws Exception {
        assertSameAsPostgresql(List.of(
                concat(parseUnnamed("SELECT 42"), BIND_UNNAMED, SYNC),
                concat(refused, BIND_UNNAMED, EXECUTE_UNNAMED, SYNC),
                new byte[0]));
    }

    /**
     * In a transaction block the error aborts it (status E, later statements 25P02) until ROLLBACK. A portal bound
     * before a savepoint runs on after ROLLBACK TO SAVEPOINT (a simple Query would have replaced the unnamed portal).
     */
    @Test
    void aRefusedFunctionCallAbortsTheTransactionBlock() throws Exception {
        assertSameAsPostgresql(List.of(
                frame('Q', "BEGIN\0"),
                concat(parseUnnamed("SELECT g FROM generate_series(1, 3) g"), BIND_UNNAMED, frame('E', "\0\0\0\0\1"),
                        SYNC),
                refused,
                concat(EXECUTE_UNNAMED, SYNC),
                concat(ROLLBACK_EXTENDED, SYNC),
                concat(BIND_UNNAMED, EXECUTE_UNNAMED, SYNC),
                frame('Q', "BEGIN\0"),
                concat(parseUnnamed("SELECT g FROM generate_series(1, 3) g"), frame('B', "p\0\0\0\0\0\0\0\0"),
                        frame('E', "p\0\0\0\0\1"), SYNC),
                frame('Q', "SAVEPOINT s\0"),
                refused,
                frame('Q', "ROLLBACK TO SAVEPOINT s\0"),
                concat(frame('E', "p\0\0\0\0\0"), SYNC),
                frame('Q', "COMMIT\0")));
    }

    /**
     * In a failed transaction block PostgreSQL answers a FunctionCall with 25P02 before it looks at the function, and
     * so does pgward; after a failed message in the extended protocol it skips the FunctionCall up to the Sync.
     */
    @Test
    void aRefusedFunctionCallInAFailedTransactionBlockIsIgnored() throws Exception {
        assertSameAsPostgresql(List.of(
                frame('Q', "BEGIN\0"),
                concat(parseUnnamed("SELECT 42"), FAILING, SYNC),
                refused,
                concat(frame('P', "q\0SELECT 43\0\0\0"), refused, SYNC),
                concat(ROLLBACK_EXTENDED, SYNC),
                concat(BIND_UNNAMED, EXECUTE_UNNAMED, SYNC)));
    }

    /**
     * A ROLLBACK in the extended protocol, not yet followed by a Sync, ends the failed block: the FunctionCall after it
     * gets its own error, not 25P02, and the ReadyForQuery after it reports no transaction.
     */
    @Test
    void aRefusedFunctionCallAfterARollbackWithoutASyncIsRefused() throws Exception {
        assertSameAsPostgresql(List.of(
                frame('Q', "BEGIN\0"),
                concat(parseUnnamed("SELECT 42"), FAILING, SYNC),
                concat(ROLLBACK_EXTENDED, refused),
                SYNC,
                concat(BIND_UNNAMED, EXECUTE_UNNAMED, SYNC)));
    }

    private static RawClient direct() throws Exception {
        return RawClient.loggedIn(database.port(), database.user(), database.password(), database.name());
    }

    private static void assertSameAsPostgresql(List<byte[]> exchanges) throws Exception {
        List<String> direct;
        try (RawClient client = direct()) {
            client.query("SET ROLE " + DIRECT_ROLE);
            client.readUntilReady();
            direct = client.replies(exchanges);
        }
        try (RawClient client = RawClient.loggedIn(proxy.port(), "reader", database.name())) {
            assertEquals(withoutPermissionTexts(direct), withoutPermissionTexts(client.replies(exchanges)));
        }
    }

    /** The replies with the texts of 42501 errors left out: PostgreSQL's names the function, pgward's its rule. */
    private static List<String> withoutPermissionTexts(List<String> replies) {
        return replies.stream().map(reply -> reply.replaceAll("(?m)^(E ERROR 42501) .*$", "$1")).toList();
    }
}
