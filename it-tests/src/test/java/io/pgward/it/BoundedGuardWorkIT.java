package io.pgward.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.pgward.testkit.PostgresTest;
import io.pgward.testkit.TestDatabase;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Bounded guard work, through pgward with every guard layer: each text that once made the guard's work unbounded
 * gets its normal answer or a refusal with SQLSTATE 54001 (statement too complex), and while it is being judged a
 * bystander read-only session keeps getting answers for statement texts pgward has never seen (each pays L1, L2 and
 * a catalog check, so none is answered from a cache).
 *
 * <p>The bounds are generous on purpose ("not hung", not a performance target): a monster must be decided within
 * {@link #MONSTER_BOUND_S} seconds, each bystander statement within {@link #BYSTANDER_BOUND_S}. Before the guard's
 * work was bounded, two sessions sending the nested subselects pinned both of the guard's carrier threads for good,
 * and the bystander's first new text never got an answer.
 */
@PostgresTest
class BoundedGuardWorkIT {

    private static final long MONSTER_BOUND_S = 60;
    private static final long BYSTANDER_BOUND_S = 15;
    private static final AtomicLong NEW_LITERAL = new AtomicLong(System.nanoTime() % 1_000_000_000L);

    private static ProxyFixture proxy;
    private static ExecutorService clients;

    /** The reproductions of the issue, each with the answer PostgreSQL gives when pgward lets it through. */
    enum Monster {
        SUM_5000("select " + "1+".repeat(4_999) + "1", "5000"),
        PARENTHESES_3000("select " + "(".repeat(3_000) + "1" + ")".repeat(3_000), "1"),
        // PostgreSQL's arrays have at most 6 dimensions: its own answer is an error (54000) when it runs this.
        ARRAY_500("select " + "array[".repeat(500) + "1" + "]".repeat(500), "SQLSTATE 54000"),
        COLUMNS_1600("select " + IntStream.rangeClosed(1, 1_600).mapToObj(i -> i + " as c" + i)
                .collect(Collectors.joining(", ")), "1"),
        CASE_2000("select case g " + IntStream.rangeClosed(1, 2_000).mapToObj(i -> "when " + i + " then 'v" + i + "'")
                .collect(Collectors.joining(" ")) + " else 'other' end from generate_series(2, 2) g", "v2"),
        IN_200000("select count(*) from generate_series(1, 10) g where g in ("
                + IntStream.rangeClosed(1, 200_000).mapToObj(Integer::toString).collect(Collectors.joining(", "))
                + ")", "10"),
        // Not in the issue: JSqlParser's lookahead is exponential in CASE nested in a WHEN as well.
        NESTED_CASE_30("select " + "case when ".repeat(30) + "true" + " then true else false end".repeat(30), "t"),
        // Not in the issue: nested WITH queries once made L2's token checks quadratic (40,000 levels: 74 s).
        // PostgreSQL's own parser gives up on this nesting ("memory exhausted", a syntax error).
        NESTED_WITH_7000("select * from " + "(with a as (".repeat(7_000) + "select 1" + ") select * from a) x"
                .repeat(7_000), "SQLSTATE 42601"),
        // Not in the issue: PostgreSQL's own scanner reads a run of operator characters again for every /* in it,
        // with no check for a cancel (20,000 levels: 7 s of one CPU, past any statement_timeout).
        NESTED_COMMENTS_20000("select 1 " + "/*".repeat(20_000) + "*/".repeat(20_000), "SQLSTATE 54001"),
        PLUS_RUN_30000("select 1 " + "+".repeat(30_000) + " 1", "SQLSTATE 54001");

        final String sql;
        final String answer;

        Monster(String sql, String answer) {
            this.sql = sql;
            this.answer = answer;
        }
    }

    /** 30 levels of scalar subselects, 278 bytes: JSqlParser's lookahead is exponential in their depth. */
    static final String NESTED_SUBSELECTS = "select (".repeat(29) + "select 1001" + ")".repeat(29) + "   ";

    @BeforeAll
    static void start(TestDatabase db) {
        proxy = ProxyFixture.start(db);
        clients = Executors.newCachedThreadPool(Thread.ofPlatform().daemon().name("bounded-guard-client-", 0)
                .factory());
    }

    @AfterAll
    static void stop() {
        clients.shutdownNow();
        proxy.close();
    }

    @Test
    void twoSessionsOfNestedSubselectsDoNotHoldUpANewTextOfAThirdSession() throws Exception {
        List<CompletableFuture<String>> monsters = new ArrayList<>();
        for (int session = 0; session < 2; session++) {
            // Two texts, so that the second is not answered from the first one's verdict.
            monsters.add(send(NESTED_SUBSELECTS + "-- session " + session));
        }
        bystanderAnswersWhile(monsters);
        for (CompletableFuture<String> monster : monsters) {
            assertAnswerOrTooComplex("1001", monster);
        }
    }

    @ParameterizedTest
    @EnumSource(Monster.class)
    void aMonsterGetsItsAnswerOrTooComplexAndABystanderIsNotHeldUp(Monster monster) throws Exception {
        CompletableFuture<String> running = send(monster.sql + " -- " + NEW_LITERAL.incrementAndGet());
        bystanderAnswersWhile(List.of(running));
        assertAnswerOrTooComplex(monster.answer, running);
    }

    @Test
    void aParameterNumberNoBindCanCarryIsRefusedWithoutSizingTheCheckByIt() throws Exception {
        // The catalog check used to infer the type of every parameter up to the highest $n: 2,000,000 of them
        // took 17 s of a shared control connection, and $200000000 asks PostgreSQL for 800 MB of types. That is
        // what a Parse asks for; a simple Query has no parameters, and PostgreSQL's answer sizes nothing.
        CompletableFuture<String> parse = send("select $200000000::int is null -- "
                + NEW_LITERAL.incrementAndGet(), "extended");
        CompletableFuture<String> simple = send("select $200000000::int is null -- "
                + NEW_LITERAL.incrementAndGet(), "simple");
        bystanderAnswersWhile(List.of(parse, simple));
        String outcome = parse.get(MONSTER_BOUND_S, TimeUnit.SECONDS);
        assertTrue(outcome.startsWith("SQLSTATE 54001: ERROR: pgward refused this query: it is too complex to check "
                + "(it uses parameter $200000000, and a Bind message carries at most 65,535 parameter values)"),
                outcome);
        outcome = simple.get(MONSTER_BOUND_S, TimeUnit.SECONDS);
        assertTrue(outcome.startsWith("SQLSTATE 42P02: ERROR: there is no parameter $200000000"), outcome);
        // The highest $n a Bind can reach is judged as before: could not determine the data type of $1, as
        // PostgreSQL says for a Parse; a simple Query's is PostgreSQL's 42P02 again.
        outcome = send("select $65535::int is null", "extended").get(MONSTER_BOUND_S, TimeUnit.SECONDS);
        assertTrue(outcome.startsWith("SQLSTATE 42P18"), outcome);
        outcome = send("select $65535::int is null", "simple").get(MONSTER_BOUND_S, TimeUnit.SECONDS);
        assertTrue(outcome.startsWith("SQLSTATE 42P02"), outcome);
    }

    /** Sends one text as the read-only login on a connection of its own; the stage holds its first value or error. */
    private static CompletableFuture<String> send(String sql) {
        return send(sql, "simple");
    }

    /** As {@link #send(String)}, in pgjdbc's {@code preferQueryMode} ({@code simple}: a Query; else a Parse). */
    private static CompletableFuture<String> send(String sql, String queryMode) {
        return CompletableFuture.supplyAsync(() -> {
            try (Connection c = connect(queryMode); Statement s = c.createStatement();
                 ResultSet rs = s.executeQuery(sql)) {
                assertTrue(rs.next());
                return rs.getString(1);
            } catch (SQLException e) {
                return "SQLSTATE " + e.getSQLState() + ": " + e.getMessage();
            }
        }, clients);
    }

    /**
     * A bystander read-only session sends new texts, one after the other, until every monster is decided (and at
     * least one); each must be answered within the bystander bound.
     */
    private static void bystanderAnswersWhile(List<CompletableFuture<String>> monsters) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(MONSTER_BOUND_S);
        try (Connection bystander = connect(); Statement s = bystander.createStatement()) {
            int answered = 0;
            do {
                long literal = NEW_LITERAL.incrementAndGet();
                CompletableFuture<Long> answer = CompletableFuture.supplyAsync(() -> {
                    try (ResultSet rs = s.executeQuery("select " + literal + " + 1")) {
                        rs.next();
                        return rs.getLong(1);
                    } catch (SQLException e) {
                        throw new IllegalStateException(e);
                    }
                }, clients);
                try {
                    assertEquals(literal + 1, answer.get(BYSTANDER_BOUND_S, TimeUnit.SECONDS));
                } catch (TimeoutException e) {
                    fail("a new text of a bystander session got no answer within " + BYSTANDER_BOUND_S + " s after "
                            + answered + " answers");
                }
                answered++;
            } while (!monsters.stream().allMatch(CompletableFuture::isDone) && System.nanoTime() < deadline);
        }
    }

    private static void assertAnswerOrTooComplex(String answer, CompletableFuture<String> monster)
            throws InterruptedException, ExecutionException {
        String outcome;
        try {
            outcome = monster.get(MONSTER_BOUND_S, TimeUnit.SECONDS);
        } catch (TimeoutException e) {
            fail("no answer and no refusal within " + MONSTER_BOUND_S + " s");
            return;
        }
        if (answer.startsWith("SQLSTATE ") && outcome.startsWith(answer)) {
            return;
        }
        if (outcome.startsWith("SQLSTATE ")) {
            assertTrue(outcome.startsWith("SQLSTATE 54001: ERROR: "), outcome);
            assertTrue(outcome.contains("too complex") || outcome.contains("stack depth limit exceeded"), outcome);
        } else {
            assertEquals(answer, outcome);
        }
    }

    private static Connection connect() throws SQLException {
        return connect("simple");
    }

    private static Connection connect(String queryMode) throws SQLException {
        Properties props = new Properties();
        props.setProperty("preferQueryMode", queryMode);
        props.setProperty("socketTimeout", Long.toString(MONSTER_BOUND_S * 2));
        return proxy.connect("analyst", props);
    }
}
