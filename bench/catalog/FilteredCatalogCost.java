import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Properties;

/**
 * The cost of a catalog statement through pgward after its first sight, against the same statement sent directly to
 * PostgreSQL as the login's backend role (issue 13's budget: within 2x). Run by bench/catalog-filtered-cost.sh,
 * which starts the demo; prints Markdown to stdout.
 *
 * <p>Each statement (and each pgjdbc DatabaseMetaData call, which sends pgjdbc's own texts) is first run once through
 * pgward: a refusal or error there is reported and the statement is not timed. The others run WARMUP rounds over
 * all of them on both connections, then each RUNS times on each, alternating direct and through pgward, every row
 * read, in rounds over all statements so that each one's samples spread over the whole run; the medians, their
 * difference and the median of the paired ratios are reported. Statements that fail directly are reported as such.
 *
 * <p>Usage: java -cp postgresql.jar FilteredCatalogCost.java STATEMENTS_FILE HOST DB RUNS WARMUP
 * PROXY_PORT PROXY_USER PROXY_PASSWORD DIRECT_PORT DIRECT_USER DIRECT_PASSWORD
 */
public final class FilteredCatalogCost {

    /** One thing to time: a statement text, or a DatabaseMetaData call. */
    private interface Work {
        void run(Connection connection) throws SQLException;
    }

    private record Item(String label, Work work) {
    }

    /** @param ratio the median of the ratios of each pair of runs (pgward / direct, run next to each other) */
    private record Result(String label, String outcome, double direct, double proxy, double ratio) {
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 11) {
            throw new IllegalArgumentException("usage: STATEMENTS HOST DB RUNS WARMUP PROXY_PORT PROXY_USER "
                    + "PROXY_PASSWORD DIRECT_PORT DIRECT_USER DIRECT_PASSWORD");
        }
        List<Item> items = new ArrayList<>(hop());
        items.addAll(statements(Path.of(args[0])));
        items.addAll(metadataCalls());
        int runs = Integer.parseInt(args[3]);
        int warmup = Integer.parseInt(args[4]);
        try (Connection proxy = connect(args[1], args[5], args[2], args[6], args[7]);
             Connection direct = connect(args[1], args[8], args[2], args[9], args[10])) {
            List<Result> results = new ArrayList<>();
            List<Item> runnable = new ArrayList<>();
            for (Item item : items) {
                Result first = firstSight(item, proxy, direct);
                System.err.print(".");
                if (first == null) {
                    runnable.add(item);
                } else {
                    results.add(first);
                }
            }
            // Rounds over every statement, so that pgward's JIT has compiled its hot paths before anything is
            // timed (a JVM fresh from the demo's start runs the first thousands of statements interpreted).
            for (int round = 0; round < warmup; round++) {
                for (Item item : runnable) {
                    item.work().run(direct);
                    item.work().run(proxy);
                }
            }
            results.addAll(measure(runnable, proxy, direct, runs));
            System.err.println();
            print(results, runs, warmup);
        }
    }

    private static Connection connect(String host, String port, String db, String user, String password)
            throws SQLException {
        Properties props = new Properties();
        props.setProperty("user", user);
        props.setProperty("password", password);
        props.setProperty("sslmode", "disable");
        // Simple protocol, one Query message per statement, as psql sends them. DatabaseMetaData's parameters are
        // then inlined by pgjdbc, so each metadata call is one text too.
        props.setProperty("preferQueryMode", "simple");
        return DriverManager.getConnection("jdbc:postgresql://" + host + ":" + port + "/" + db, props);
    }

    /** Blocks of {@code -- @@ label} followed by one statement. */
    private static List<Item> statements(Path file) throws Exception {
        List<Item> items = new ArrayList<>();
        String label = null;
        StringBuilder sql = new StringBuilder();
        for (String line : Files.readAllLines(file)) {
            if (line.startsWith("-- @@ ")) {
                add(items, label, sql);
                label = line.substring(6).trim();
                sql.setLength(0);
            } else if (label != null) {
                sql.append(line).append('\n');
            }
        }
        add(items, label, sql);
        return items;
    }

    private static void add(List<Item> items, String label, StringBuilder sql) {
        if (label == null) {
            return;
        }
        String text = sql.toString().strip();
        items.add(new Item(label, c -> {
            try (Statement s = c.createStatement()) {
                s.setEscapeProcessing(false);
                drain(s.executeQuery(text));
            }
        }));
    }

    /** Statements that read no catalog: what pgward's hop alone costs (a cached verdict, no rewrite). */
    private static List<Item> hop() {
        List<Item> items = new ArrayList<>();
        for (String sql : List.of("SELECT 1", "SELECT * FROM orders WHERE id = 1")) {
            add(items, "hop: " + sql, new StringBuilder(sql));
        }
        return items;
    }

    private static List<Item> metadataCalls() {
        List<Item> items = new ArrayList<>();
        items.add(new Item("pgjdbc getTables(public, %)", c -> drain(c.getMetaData().getTables(null, "public", "%",
                new String[] {"TABLE", "VIEW", "MATERIALIZED VIEW"}))));
        items.add(new Item("pgjdbc getColumns(public, orders)", c -> drain(c.getMetaData().getColumns(null,
                "public", "orders", "%"))));
        items.add(new Item("pgjdbc getPrimaryKeys(public, orders)", c -> drain(c.getMetaData().getPrimaryKeys(null,
                "public", "orders"))));
        items.add(new Item("pgjdbc getSchemas()", c -> drain(c.getMetaData().getSchemas())));
        items.add(new Item("pgjdbc getImportedKeys(public, order_items)", c -> {
            DatabaseMetaData md = c.getMetaData();
            drain(md.getImportedKeys(null, "public", "order_items"));
        }));
        items.add(new Item("pgjdbc getIndexInfo(public, orders)", c -> drain(c.getMetaData().getIndexInfo(null,
                "public", "orders", false, true))));
        return items;
    }

    private static void drain(ResultSet rs) throws SQLException {
        try (rs) {
            int columns = rs.getMetaData().getColumnCount();
            while (rs.next()) {
                for (int i = 1; i <= columns; i++) {
                    rs.getString(i);
                }
            }
        }
    }

    /** The statement's first sight through pgward, and once directly: null when both run. */
    private static Result firstSight(Item item, Connection proxy, Connection direct) {
        try {
            item.work().run(proxy);
        } catch (SQLException e) {
            return new Result(item.label(), "through pgward: " + e.getSQLState() + " " + firstLine(e), 0, 0, 0);
        }
        try {
            item.work().run(direct);
        } catch (SQLException e) {
            return new Result(item.label(), "directly: " + e.getSQLState() + " " + firstLine(e), 0, 0, 0);
        }
        return null;
    }

    /**
     * Runs every statement once per round, direct and through pgward next to each other (which goes first
     * alternates), so that each statement's samples spread over the whole run and a change of the machine's load
     * hits both sides of a pair alike. A statement that fails while timed is reported as such.
     */
    private static List<Result> measure(List<Item> items, Connection proxy, Connection direct, int runs) {
        long[][] d = new long[items.size()][runs];
        long[][] p = new long[items.size()][runs];
        String[] failed = new String[items.size()];
        for (int round = 0; round < runs; round++) {
            for (int k = 0; k < items.size(); k++) {
                if (failed[k] != null) {
                    continue;
                }
                Item item = items.get(k);
                try {
                    if ((round + k) % 2 == 0) {
                        d[k][round] = time(item, direct);
                        p[k][round] = time(item, proxy);
                    } else {
                        p[k][round] = time(item, proxy);
                        d[k][round] = time(item, direct);
                    }
                } catch (SQLException e) {
                    failed[k] = "failed while timed: " + e.getSQLState() + " " + firstLine(e);
                }
            }
            System.err.print(".");
        }
        List<Result> results = new ArrayList<>();
        for (int k = 0; k < items.size(); k++) {
            double[] ratios = new double[runs];
            for (int i = 0; i < runs; i++) {
                ratios[i] = (double) p[k][i] / Math.max(1, d[k][i]);
            }
            results.add(failed[k] != null ? new Result(items.get(k).label(), failed[k], 0, 0, 0)
                    : new Result(items.get(k).label(), "ok", median(d[k]), median(p[k]), median(ratios)));
        }
        return results;
    }

    private static long time(Item item, Connection connection) throws SQLException {
        long start = System.nanoTime();
        item.work().run(connection);
        return System.nanoTime() - start;
    }

    private static double median(long[] nanos) {
        long[] sorted = nanos.clone();
        Arrays.sort(sorted);
        int n = sorted.length;
        double middle = n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0;
        return middle / 1_000_000.0;
    }

    private static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        int n = sorted.length;
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }

    private static double median(List<Double> values) {
        List<Double> sorted = new ArrayList<>(values);
        sorted.sort(Double::compare);
        int n = sorted.size();
        return n == 0 ? Double.NaN : n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    }

    private static String firstLine(SQLException e) {
        String message = String.valueOf(e.getMessage()).lines().findFirst().orElse("").replace("|", "\\|");
        return message.length() > 110 ? message.substring(0, 110) + "…" : message;
    }

    private static void print(List<Result> results, int runs, int warmup) {
        List<Result> timed = results.stream().filter(r -> r.outcome().equals("ok")).toList();
        List<Double> ratios = timed.stream().map(Result::ratio).toList();
        long over = timed.stream().filter(r -> r.ratio() > 2).count();
        double directTotal = timed.stream().mapToDouble(Result::direct).sum();
        double proxyTotal = timed.stream().mapToDouble(Result::proxy).sum();
        System.out.printf(Locale.ROOT, "## Summary%n%n");
        System.out.printf(Locale.ROOT, "- statements and calls: %d; timed (run through pgward and directly): %d; "
                + "refused or failing through pgward: %d; failing directly: %d%n", results.size(), timed.size(),
                results.stream().filter(r -> r.outcome().startsWith("through pgward")).count(),
                results.stream().filter(r -> r.outcome().startsWith("directly")).count());
        System.out.printf(Locale.ROOT, "- median of the per-statement ratios (pgward / direct): **%.2fx**; over 2x: "
                + "%d; worst: %.2fx%n", median(ratios), over,
                ratios.stream().mapToDouble(Double::doubleValue).max().orElse(Double.NaN));
        System.out.printf(Locale.ROOT, "- sum of the medians: direct %.1f ms, through pgward %.1f ms (%.2fx)%n",
                directTotal, proxyTotal, proxyTotal / directTotal);
        timed.stream().filter(r -> r.label().equals("hop: SELECT 1")).findFirst().ifPresent(hop ->
                System.out.printf(Locale.ROOT, "- pgward's hop alone (SELECT 1): %.3f ms direct, %.3f ms through "
                        + "pgward, %.3f ms more; a statement's \"more\" beyond that is the filter's cost%n",
                        hop.direct(), hop.proxy(), hop.proxy() - hop.direct()));
        System.out.printf(Locale.ROOT, "- each statement %d times on each connection, alternating, after %d "
                + "warm-up rounds over all of them; medians in ms, every row read%n%n", runs, warmup);
        System.out.printf(Locale.ROOT, "## Timed statements%n%nMedians of each side, their difference, and the median of the ratios of the pairs "
                + "of runs made next to each other.%n%n| statement | direct ms | pgward ms | more ms | ratio | |%n"
                + "|---|--:|--:|--:|--:|---|%n");
        for (Result r : timed) {
            System.out.printf(Locale.ROOT, "| %s | %.3f | %.3f | %.3f | %.2fx | %s |%n",
                    r.label().replace("|", "\\|"), r.direct(), r.proxy(), r.proxy() - r.direct(), r.ratio(),
                    r.ratio() > 2 ? "**over 2x**" : "");
        }
        System.out.printf(Locale.ROOT, "%n## Not timed%n%n| statement | outcome |%n|---|---|%n");
        for (Result r : results) {
            if (!r.outcome().equals("ok")) {
                System.out.printf(Locale.ROOT, "| %s | %s |%n", r.label().replace("|", "\\|"), r.outcome());
            }
        }
        System.out.println();
    }
}
