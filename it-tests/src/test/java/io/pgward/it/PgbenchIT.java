package io.pgward.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgward.testkit.PostgresTest;
import io.pgward.testkit.TestDatabase;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * pgbench: initialisation (DDL, COPY FROM STDIN of 100,000 rows, VACUUM) and the built-in scripts in each
 * query mode: {@code simple} (Query messages), {@code extended} (unnamed Parse/Bind/Execute per statement)
 * and {@code prepared} (named statements parsed once per connection). Counts are fixed with {@code -t}, so
 * the results are exact numbers rather than timings.
 */
@PostgresTest
@ExtendWith(Targets.StopAfterClass.class)
class PgbenchIT {

    private static final int CLIENTS = 2;
    private static final int TRANSACTIONS = 200;

    /** pgbench -i output per target; initialising once per target serves every test. */
    private static final Map<String, RealClients.Result> INITIALISED = new ConcurrentHashMap<>();

    private final TestDatabase database;

    PgbenchIT(TestDatabase database) {
        this.database = database;
    }

    @Test
    void initialisesScaleOne() throws Exception {
        Targets.forEach(database, target -> {
            RealClients.Result result = initialised(target);
            assertTrue(result.err().contains("done in"), result.err());
            assertEquals(List.of(1L, 10L, 100_000L),
                    longs(target, "SELECT (SELECT count(*) FROM pgbench_branches),"
                            + " (SELECT count(*) FROM pgbench_tellers), (SELECT count(*) FROM pgbench_accounts)"));
        });
    }

    @ParameterizedTest
    @ValueSource(strings = {"simple", "extended", "prepared"})
    void selectOnlyRunsEveryTransactionInEachQueryMode(String mode) throws Exception {
        Targets.forEach(database, target -> {
            initialised(target);
            RealClients.Result result = pgbench(target, "-S", "-n", "-M", mode, "-c", String.valueOf(CLIENTS),
                    "-j", String.valueOf(CLIENTS), "-t", String.valueOf(TRANSACTIONS));
            assertEquals(0, result.exit(), result.err() + result.out());
            assertRuns(result, mode, "select only", CLIENTS * TRANSACTIONS);
        });
    }

    @Test
    void tpcbLikeWritesKeepEveryBalanceInStep() throws Exception {
        Targets.forEach(database, target -> {
            initialised(target);
            long historyBefore = longs(target, "SELECT count(*) FROM pgbench_history").getFirst();
            RealClients.Result result = pgbench(target, "-n", "-M", "extended", "-c", String.valueOf(CLIENTS),
                    "-j", String.valueOf(CLIENTS), "-t", "50");
            assertEquals(0, result.exit(), result.err() + result.out());
            assertRuns(result, "extended", "TPC-B (sort of)", CLIENTS * 50);
            assertEquals(historyBefore + CLIENTS * 50L,
                    longs(target, "SELECT count(*) FROM pgbench_history").getFirst());
            // Each transaction adds the same delta to one account, teller and branch and logs it in history.
            List<Long> sums = longs(target, "SELECT (SELECT sum(abalance) FROM pgbench_accounts),"
                    + " (SELECT sum(tbalance) FROM pgbench_tellers), (SELECT sum(bbalance) FROM pgbench_branches),"
                    + " (SELECT sum(delta) FROM pgbench_history)");
            assertEquals(1, sums.stream().distinct().count(), "balances and history agree: " + sums);
        });
    }

    private static void assertRuns(RealClients.Result result, String mode, String transactionType, int expected) {
        String out = result.out();
        assertTrue(out.contains("transaction type: <builtin: " + transactionType + ">"), out);
        assertTrue(out.contains("query mode: " + mode + "\n"), out);
        assertTrue(out.contains("number of transactions actually processed: " + expected + "/" + expected + "\n"), out);
        if (out.contains("number of failed transactions")) { // pgbench 15 and newer
            assertTrue(out.contains("number of failed transactions: 0 (0.000%)"), out);
        }
    }

    private static RealClients.Result initialised(Target target) throws Exception {
        RealClients.Result result = INITIALISED.get(target.toString());
        if (result == null) {
            result = pgbench(target, "-i", "-s", "1", "-q");
            assertEquals(0, result.exit(), result.err() + result.out());
            INITIALISED.put(target.toString(), result);
        }
        return result;
    }

    private static RealClients.Result pgbench(Target target, String... arguments) throws Exception {
        List<String> command = new ArrayList<>(List.of(RealClients.require("pgbench").toString()));
        command.addAll(Arrays.asList(arguments));
        command.add(target.uri());
        return RealClients.run(command);
    }

    private static List<Long> longs(Target target, String sql) throws Exception {
        try (Connection connection = target.connect(); Statement statement = connection.createStatement();
                ResultSet row = statement.executeQuery(sql)) {
            row.next();
            List<Long> values = new ArrayList<>();
            for (int i = 1; i <= row.getMetaData().getColumnCount(); i++) {
                values.add(row.getLong(i));
            }
            return values;
        }
    }
}
