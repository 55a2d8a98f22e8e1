package io.pgward.guard.selection;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The value samples of short text and enum columns: for {@code pgward.describe} and for the prompt that turns
 * questions into SQL, the one place where rows reach the model, and only as these short distinct values. One set
 * of rules for both:
 * <ul>
 *   <li>A column qualifies by its type: text, character varying, character or an enum ({@link #QUALIFYING_TYPE},
 *       for the caller's catalog query).</li>
 *   <li>At most {@value #MAX_COLUMNS} columns per relation: the first qualifying ones (a column that then fails is
 *       left out, not replaced).</li>
 *   <li>No values at all while the database has a risky domain ({@link RiskyDomains}).</li>
 *   <li>Each sample statement must pass the caller's {@link StatementCheck}: describe's temporary-view check, the
 *       login's guard for the prompt. A column whose statement does not pass is left out.</li>
 *   <li>Then the transaction turns read only, and each sample runs in its own savepoint, rolled back, with a
 *       1 second statement_timeout; a timeout or any other failure leaves out only that column.</li>
 *   <li>A sample is the distinct non-null values among the column's first {@value #ROWS} rows, cast to
 *       pg_catalog.text; more than {@value #MAX_VALUES} values, or any longer than {@value #MAX_LENGTH}
 *       characters, leave the column out. Values are sorted; a column with nothing but nulls has an empty
 *       sample.</li>
 * </ul>
 * The caller's transaction always rolls back.
 */
public final class ValueSampler {

    static final int MAX_COLUMNS = 8;
    static final int ROWS = 1000;
    static final int MAX_VALUES = 10;
    static final int MAX_LENGTH = 40;

    /** The SQL condition on {@code pg_catalog.pg_type t}, a column's type, under which the column qualifies. */
    public static final String QUALIFYING_TYPE = "(t.typtype = 'e' OR t.oid IN ('pg_catalog.text'::pg_catalog.regtype,"
            + " 'pg_catalog.varchar'::pg_catalog.regtype, 'pg_catalog.bpchar'::pg_catalog.regtype))";

    /** Whether a sample statement may run. Called before the transaction turns read only. */
    @FunctionalInterface
    public interface StatementCheck {
        boolean admits(Connection connection, String statement) throws SQLException;
    }

    /**
     * Describe's check: PostgreSQL analyses the statement as a temporary view, created in a savepoint that is rolled
     * back. Needs a READ WRITE transaction; a role without TEMP passes nothing.
     */
    static final StatementCheck TEMPORARY_VIEW = ValueSampler::passesTemporaryViewCheck;

    private static final Logger LOG = LoggerFactory.getLogger(ValueSampler.class);

    private final RiskyDomains riskyDomains;
    private final StatementCheck check;

    public ValueSampler(RiskyDomains riskyDomains, StatementCheck check) {
        this.riskyDomains = riskyDomains;
        this.check = check;
    }

    /**
     * Samples the columns of each relation, with one risky-domain check for all of them.
     *
     * @param connection in the caller's transaction, which this turns read only
     * @param columns from each relation (schema-qualified, quoted where PostgreSQL needs it) to its qualifying
     *                columns in column order, each quoted where PostgreSQL needs it
     * @return from each relation with a sample to its samples by column, both in the order given
     */
    public Map<String, Map<String, List<String>>> sample(Connection connection, Map<String, List<String>> columns)
            throws SQLException {
        Map<String, Map<String, List<String>>> values = new LinkedHashMap<>();
        if (columns.values().stream().allMatch(List::isEmpty)) {
            return values;
        }
        List<String> risky = riskyDomains.find(connection);
        if (!risky.isEmpty()) {
            LOG.debug("No values sampled for {}: risky domains {}", columns.keySet(), risky);
            return values;
        }
        Map<String, List<String>> passed = new LinkedHashMap<>();
        for (Map.Entry<String, List<String>> relation : columns.entrySet()) {
            List<String> candidates = relation.getValue();
            for (String column : candidates.subList(0, Math.min(MAX_COLUMNS, candidates.size()))) {
                if (check.admits(connection, statement(relation.getKey(), column))) {
                    passed.computeIfAbsent(relation.getKey(), r -> new ArrayList<>()).add(column);
                }
            }
        }
        execute(connection, "SET TRANSACTION READ ONLY");
        for (Map.Entry<String, List<String>> relation : passed.entrySet()) {
            for (String column : relation.getValue()) {
                List<String> sample = run(connection, relation.getKey(), column);
                if (sample != null) {
                    values.computeIfAbsent(relation.getKey(), r -> new LinkedHashMap<>()).put(column, sample);
                }
            }
        }
        return values;
    }

    static String statement(String relation, String column) {
        return "SELECT DISTINCT v FROM (SELECT " + column + "::pg_catalog.text AS v FROM " + relation + " LIMIT "
                + ROWS + ") AS s WHERE v IS NOT NULL LIMIT " + (MAX_VALUES + 1);
    }

    private static boolean passesTemporaryViewCheck(Connection connection, String sql) throws SQLException {
        execute(connection, "SAVEPOINT pgward_sample_check");
        try {
            execute(connection, "CREATE TEMPORARY VIEW pgward_sample_check AS " + sql);
            return true;
        } catch (SQLException e) {
            LOG.debug("Sample statement did not pass the temporary-view check: {}", e.getMessage());
            return false;
        } finally {
            execute(connection, "ROLLBACK TO SAVEPOINT pgward_sample_check");
        }
    }

    /** The sorted sample, or null when the column is left out. */
    private static List<String> run(Connection connection, String relation, String column) throws SQLException {
        execute(connection, "SAVEPOINT pgward_sample");
        try (Statement statement = connection.createStatement()) {
            statement.execute("SELECT pg_catalog.set_config('statement_timeout', '1s', true)");
            List<String> sample = new ArrayList<>();
            try (ResultSet rows = statement.executeQuery(statement(relation, column))) {
                while (rows.next()) {
                    String value = rows.getString(1);
                    if (sample.size() == MAX_VALUES || value.codePointCount(0, value.length()) > MAX_LENGTH) {
                        return null;
                    }
                    sample.add(value);
                }
            }
            sample.sort(null);
            return sample;
        } catch (SQLException e) {
            LOG.debug("Sample of {}.{} left out: {}", relation, column, e.getMessage());
            return null;
        } finally {
            execute(connection, "ROLLBACK TO SAVEPOINT pgward_sample");
        }
    }

    private static void execute(Connection connection, String sql) throws SQLException {
        try (Statement statement = connection.createStatement()) {
            statement.execute(sql);
        }
    }
}
