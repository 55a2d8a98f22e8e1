import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Per-statement latency through pgward for three logins side by side: a read-only login with a table selection,
 * a read-only login without one, and a read-write login. Run by bench/catalog-check.sh, which starts pgward;
 * prints Markdown tables to stdout.
 *
 * <p>New statements: each text is sent once (its literal differs every time); a read-only login answers all but the
 * first of a shape from its verdicts by shape. Never-seen shapes: each text also names its first column with an
 * alias of its own, so no verdict is shared and every text pays the full guard, catalog check included; once with
 * the logins taking turns, once with {@link #SESSIONS} sessions of the first login at the same time, whose checks
 * share the login's control connections. Repeated statements: one text per login sent again and again, so the read-only
 * logins answer from their verdict cache. Logins take turns statement by statement, and the order rotates, so
 * that a change in the machine's load hits all three alike.
 *
 * <p>Usage: java -cp postgresql.jar CatalogCheckLatency.java HOST DB NEW REPEATS WARMUP
 * LABEL:PORT:USER:PASSWORD... The last login is the one the others are compared with.
 */
public final class CatalogCheckLatency {

    /** The statement shapes measured; {@code %d} is where the per-text literal goes. */
    private static final String[][] SHAPES = {
            {"point query, one table", "SELECT * FROM orders WHERE id = %d"},
            {"join of three tables", "SELECT c.name, sum(i.quantity * i.unit_price) FROM orders o "
                    + "JOIN customers c ON c.id = o.customer_id JOIN order_items i ON i.order_id = o.id "
                    + "WHERE o.id = %d GROUP BY c.name"},
            {"selected view (its definition is walked too)", "SELECT * FROM v_sales WHERE order_id = %d"},
    };

    /** Sessions of one login sending never-seen shapes at the same time. */
    private static final int SESSIONS = 8;

    private record Login(String label, Connection connection, String url, Properties props) {
    }

    /** The shape's text with a literal and a column alias never used before: a shape no verdict covers. */
    private static String neverSeen(String shape, long literal) {
        return String.format(Locale.ROOT, shape, literal).replaceFirst("^SELECT ", "SELECT 1 AS shape_" + literal
                + ", ");
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 7) {
            throw new IllegalArgumentException("usage: HOST DB NEW REPEATS WARMUP LABEL:PORT:USER:PASSWORD...");
        }
        int fresh = Integer.parseInt(args[2]);
        int repeats = Integer.parseInt(args[3]);
        int warmup = Integer.parseInt(args[4]);
        List<Login> logins = new ArrayList<>();
        for (String spec : Arrays.copyOfRange(args, 5, args.length)) {
            String[] parts = spec.split(":", 4);
            String url = "jdbc:postgresql://" + args[0] + ":" + parts[1] + "/" + args[1];
            Properties props = new Properties();
            props.setProperty("user", parts[2]);
            props.setProperty("password", parts[3]);
            props.setProperty("sslmode", "disable");
            // Simple protocol: each statement is one Query message, as psql and pgbench -M simple send it.
            props.setProperty("preferQueryMode", "simple");
            logins.add(new Login(parts[0], DriverManager.getConnection(url, props), url, props));
        }
        // Literals count up from a value taken from the clock, so a second run against the same pgward does
        // not find the first run's texts in the verdict cache.
        long literal = System.currentTimeMillis() % 1_000_000_000L * 1_000;

        progress("warm-up: %d new, %d never-seen and %d repeated statements per login and shape", warmup, warmup,
                warmup * 5);
        for (String[] shape : SHAPES) {
            // A never-seen shape takes the whole catalog check, which a new literal (answered by shape after the
            // first) does not: without these, the JIT would still be compiling the check while it is measured.
            for (int i = 0; i < warmup; i++) {
                for (Login login : logins) {
                    run(login, String.format(Locale.ROOT, shape[1], literal++));
                    run(login, neverSeen(shape[1], literal++));
                }
            }
            for (int i = 0; i < warmup * 5; i++) {
                for (Login login : logins) {
                    run(login, String.format(Locale.ROOT, shape[1], -1));
                }
            }
        }

        System.out.println("## New statements (every text sent once)");
        System.out.println();
        System.out.printf(Locale.ROOT, "%d texts per login and shape. Latency from sending the Query to the last "
                + "row, in ms.%n%n", fresh);
        table(logins, "first-sight cost");
        AtomicLong next = new AtomicLong(literal);
        for (String[] shape : SHAPES) {
            progress("new statements: %s", shape[0]);
            row(shape[0], inTurns(logins, fresh,
                    () -> String.format(Locale.ROOT, shape[1], next.getAndIncrement())), true);
        }
        System.out.println();

        System.out.println("## Never-seen shapes (every text a shape of its own)");
        System.out.println();
        System.out.printf(Locale.ROOT, "%d texts per login and shape, each with a column alias of its own, so each "
                + "pays L1, L2 and a catalog check. Latency in ms.%n%n", fresh);
        table(logins, "first-sight cost");
        for (String[] shape : SHAPES) {
            progress("never-seen shapes: %s", shape[0]);
            row(shape[0], inTurns(logins, fresh, () -> neverSeen(shape[1], next.getAndIncrement())), true);
        }
        System.out.println();
        concurrentNeverSeen(logins.getFirst(), fresh, next);

        System.out.println("## Repeated statements (one text per login, sent again and again)");
        System.out.println();
        System.out.printf(Locale.ROOT, "%d executions per login and shape after one unmeasured first sight. "
                + "Latency in ms.%n%n", repeats);
        table(logins, "ratio");
        for (String[] shape : SHAPES) {
            progress("repeated statements: %s", shape[0]);
            String text = String.format(Locale.ROOT, shape[1], 42);
            for (Login login : logins) {
                run(login, text);
            }
            row(shape[0], inTurns(logins, repeats, () -> text), false);
        }
        System.out.println();
        for (Login login : logins) {
            login.connection().close();
        }
    }

    /**
     * {@link #SESSIONS} sessions of one login send never-seen shapes at the same time, {@code perSession} each per
     * shape: what one check costs while others of the same backend role queue for its control connections.
     */
    private static void concurrentNeverSeen(Login login, int perSession, AtomicLong literal) throws Exception {
        System.out.printf(Locale.ROOT, "### %d sessions of %s at the same time%n%n", SESSIONS, login.label());
        System.out.println("| statement | median | p90 | p99 |");
        System.out.println("|---|--:|--:|--:|");
        ExecutorService pool = Executors.newFixedThreadPool(SESSIONS);
        try {
            for (String[] shape : SHAPES) {
                progress("never-seen shapes, %d sessions at once: %s", SESSIONS, shape[0]);
                List<Future<long[]>> sessions = new ArrayList<>();
                for (int n = 0; n < SESSIONS; n++) {
                    sessions.add(pool.submit(() -> {
                        long[] times = new long[perSession];
                        try (Connection c = DriverManager.getConnection(login.url(), login.props())) {
                            Login session = new Login(login.label(), c, login.url(), login.props());
                            for (int i = 0; i < perSession; i++) {
                                times[i] = run(session, neverSeen(shape[1], literal.getAndIncrement()));
                            }
                        }
                        return times;
                    }));
                }
                long[] all = new long[SESSIONS * perSession];
                for (int n = 0; n < SESSIONS; n++) {
                    System.arraycopy(sessions.get(n).get(), 0, all, n * perSession, perSession);
                }
                Arrays.sort(all);
                System.out.printf(Locale.ROOT, "| %s | %.3f | %.3f | %.3f |%n", shape[0], quantile(all, 0.5) / 1e6,
                        quantile(all, 0.9) / 1e6, quantile(all, 0.99) / 1e6);
            }
        } finally {
            pool.shutdown();
        }
        System.out.println();
    }

    /**
     * Each login runs {@code count} texts from {@code texts}, the logins taking turns text by text and their order
     * rotating, so that a change in the machine's load hits all alike; nanoseconds per login and run.
     */
    private static long[][] inTurns(List<Login> logins, int count, java.util.function.Supplier<String> texts)
            throws SQLException {
        long[][] times = new long[logins.size()][count];
        for (int i = 0; i < count; i++) {
            for (int k = 0; k < logins.size(); k++) {
                int l = (k + i) % logins.size();
                times[l][i] = run(logins.get(l), texts.get());
            }
        }
        return times;
    }

    /** The header: median and p99 for each login, then the comparison of each login with the last one. */
    private static void table(List<Login> logins, String comparison) {
        StringBuilder head = new StringBuilder("| statement |");
        StringBuilder rule = new StringBuilder("|---|");
        for (Login login : logins) {
            head.append(" ").append(login.label()).append(" median | ").append(login.label()).append(" p99 |");
            rule.append("--:|--:|");
        }
        String last = logins.getLast().label();
        for (Login login : logins.subList(0, logins.size() - 1)) {
            head.append(" ").append(login.label()).append(comparison.equals("ratio")
                    ? " / " + last + " (median) |" : ": median − " + last + " median |");
            rule.append("--:|");
        }
        System.out.println(head);
        System.out.println(rule);
    }

    private static void row(String name, long[][] times, boolean difference) {
        StringBuilder line = new StringBuilder("| ").append(name).append(" |");
        double[] medians = new double[times.length];
        for (int l = 0; l < times.length; l++) {
            long[] sorted = times[l].clone();
            Arrays.sort(sorted);
            medians[l] = quantile(sorted, 0.5);
            line.append(String.format(Locale.ROOT, " %.3f | %.3f |", medians[l] / 1e6, quantile(sorted, 0.99) / 1e6));
        }
        double base = medians[times.length - 1];
        for (int l = 0; l < times.length - 1; l++) {
            line.append(difference
                    ? String.format(Locale.ROOT, " %.2f ms |", (medians[l] - base) / 1e6)
                    : String.format(Locale.ROOT, " %.2f |", medians[l] / base));
        }
        System.out.println(line);
    }

    /** The nearest-rank quantile of sorted values. */
    private static double quantile(long[] sorted, double q) {
        int rank = (int) Math.ceil(q * sorted.length);
        return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
    }

    /** Runs one statement and reads its rows; nanoseconds. An error ends the run: nothing here may be refused. */
    private static long run(Login login, String sql) throws SQLException {
        long start = System.nanoTime();
        try (Statement s = login.connection().createStatement(); ResultSet rs = s.executeQuery(sql)) {
            while (rs.next()) {
                rs.getObject(1);
            }
        } catch (SQLException e) {
            throw new SQLException(login.label() + " failed on " + sql + ": " + e.getMessage(), e.getSQLState(), e);
        }
        return System.nanoTime() - start;
    }

    private static void progress(String format, Object... values) {
        System.err.printf(Locale.ROOT, "  " + format + "%n", values);
    }
}
