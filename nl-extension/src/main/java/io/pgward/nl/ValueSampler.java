package io.pgward.nl;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * Sample values of low-cardinality text and enum columns, by the describe rules: a column of type text,
 * character varying, character or an enum qualifies; its sample is the distinct non-null values among its first
 * 1,000 rows, cast to text; it is left out when that gives more than 10 values, when a value is longer than 40
 * characters, when the guard refuses the sample statement, or when the statement fails. At most 8 columns per
 * relation are tried, in column order.
 *
 * <p>Runs inside the caller's read-only transaction, each statement in its own savepoint under a 1 second
 * statement timeout, so one slow or failing column costs only that column. Rows read here go into the prompt as
 * samples only; this is the one place where data reaches the model, and only as these short distinct values.
 */
final class ValueSampler {

    static final int ROWS_READ = 1_000;
    static final int MAX_VALUES = 10;
    static final int MAX_VALUE_LENGTH = 40;
    static final int MAX_COLUMNS = 8;

    private final SqlGuard guard;

    ValueSampler(SqlGuard guard) {
        this.guard = guard;
    }

    /** Must be called once per transaction before {@link #sample}. */
    static void limitStatementTime(Connection connection) throws SQLException {
        try (Statement statement = connection.createStatement()) {
            statement.execute("SET LOCAL statement_timeout = '1s'");
        }
    }

    Map<String, List<String>> sample(Connection connection, Relation relation) throws SQLException {
        Map<String, List<String>> samples = new LinkedHashMap<>();
        List<Relation.Column> candidates = relation.columns().stream()
                .filter(c -> c.textLike() || c.enumType())
                .limit(MAX_COLUMNS)
                .toList();
        for (Relation.Column column : candidates) {
            String sql = statement(relation, column);
            if (guard.refusal(sql).isPresent()) {
                continue;
            }
            List<String> values = run(connection, sql);
            if (values != null) {
                samples.put(column.name(), values);
            }
        }
        return samples;
    }

    static String statement(Relation relation, Relation.Column column) {
        String col = Identifiers.quote(column.name());
        return "SELECT DISTINCT v FROM (SELECT " + col + "::pg_catalog.text AS v FROM " + relation.qualifiedName()
                + " LIMIT " + ROWS_READ + ") AS s WHERE v IS NOT NULL LIMIT " + (MAX_VALUES + 1);
    }

    /** The sorted values, or null when the column does not qualify or its statement failed. */
    private static List<String> run(Connection connection, String sql) throws SQLException {
        Savepoint savepoint = connection.setSavepoint();
        try (Statement statement = connection.createStatement(); ResultSet rows = statement.executeQuery(sql)) {
            TreeSet<String> values = new TreeSet<>();
            boolean tooLong = false;
            while (rows.next()) {
                String value = rows.getString(1);
                tooLong |= value.codePointCount(0, value.length()) > MAX_VALUE_LENGTH;
                values.add(value);
            }
            connection.releaseSavepoint(savepoint);
            return tooLong || values.size() > MAX_VALUES || values.isEmpty() ? null : new ArrayList<>(values);
        } catch (SQLException e) {
            connection.rollback(savepoint);
            return null;
        }
    }
}
