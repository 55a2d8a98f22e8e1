package io.pgward.guard.selection;

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
 * The value samples of describe, under these rules:
 * <ul>
 *   <li>At most {@value #MAX_COLUMNS} columns: the first qualifying ones in column order (a column that then fails
 *       is left out, not replaced).</li>
 *   <li>Each sample statement first passes the risky-domain check (no risky domain in the database) and the
 *       temporary-view check: it is created as a temporary view in a savepoint, which is rolled back. A column whose
 *       statement does not pass is left out, so a login without TEMP gets no values.</li>
 *   <li>Then the transaction turns read only, and each sample runs in its own savepoint with a 1 second
 *       statement_timeout; a timeout or any other failure leaves out only that column.</li>
 *   <li>A sample is the distinct non-null values among the column's first {@value #ROWS} rows, cast to
 *       pg_catalog.text; more than {@value #MAX_VALUES} values, or any longer than {@value #MAX_LENGTH}
 *       characters, leave the column out. Values are sorted.</li>
 * </ul>
 * The caller's transaction must have started READ WRITE, and always rolls back.
 */
final class ValueSampler {

    static final int MAX_COLUMNS = 8;
    static final int ROWS = 1000;
    static final int MAX_VALUES = 10;
    static final int MAX_LENGTH = 40;

    private static final Logger LOG = LoggerFactory.getLogger(ValueSampler.class);

    private final RiskyDomains riskyDomains;

    ValueSampler(RiskyDomains riskyDomains) {
        this.riskyDomains = riskyDomains;
    }

    /**
     * Samples {@code columns} of {@code relation}.
     *
     * @param columns the qualifying columns in column order, each quoted where PostgreSQL needs it
     */
    Map<String, List<String>> sample(RoleTransaction transaction, String relation, List<String> columns)
            throws SQLException {
        Map<String, List<String>> values = new LinkedHashMap<>();
        if (columns.isEmpty()) {
            return values;
        }
        List<String> risky = riskyDomains.find(transaction.connection());
        if (!risky.isEmpty()) {
            LOG.debug("No values sampled for {}: risky domains {}", relation, risky);
            return values;
        }
        List<String> passed = new ArrayList<>();
        for (String column : columns.subList(0, Math.min(MAX_COLUMNS, columns.size()))) {
            if (passesTemporaryViewCheck(transaction, statement(relation, column))) {
                passed.add(column);
            }
        }
        transaction.execute("SET TRANSACTION READ ONLY");
        for (String column : passed) {
            List<String> sample = run(transaction, relation, column);
            if (sample != null) {
                values.put(column, sample);
            }
        }
        return values;
    }

    static String statement(String relation, String column) {
        return "SELECT DISTINCT v FROM (SELECT " + column + "::pg_catalog.text AS v FROM " + relation + " LIMIT "
                + ROWS + ") AS s WHERE v IS NOT NULL LIMIT " + (MAX_VALUES + 1);
    }

    private static boolean passesTemporaryViewCheck(RoleTransaction transaction, String sql) throws SQLException {
        transaction.execute("SAVEPOINT pgward_sample_check");
        try {
            transaction.execute("CREATE TEMPORARY VIEW pgward_sample_check AS " + sql);
            return true;
        } catch (SQLException e) {
            LOG.debug("Sample statement did not pass the temporary-view check: {}", e.getMessage());
            return false;
        } finally {
            transaction.execute("ROLLBACK TO SAVEPOINT pgward_sample_check");
        }
    }

    /** The sorted sample, or null when the column is left out. */
    private static List<String> run(RoleTransaction transaction, String relation, String column) throws SQLException {
        transaction.execute("SAVEPOINT pgward_sample");
        try (Statement statement = transaction.connection().createStatement()) {
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
            transaction.execute("ROLLBACK TO SAVEPOINT pgward_sample");
        }
    }
}
