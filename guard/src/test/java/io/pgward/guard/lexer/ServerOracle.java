package io.pgward.guard.lexer;

import io.pgward.testkit.TestDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import org.postgresql.util.PSQLException;
import org.postgresql.util.ServerErrorMessage;

/**
 * PostgreSQL as the judge of where a Query's statements end: one connection in pgjdbc's simple mode (a
 * Statement's text goes out verbatim as one Query message, neither split nor rewritten), every run inside a
 * transaction that is rolled back, so statements that do run leave nothing behind.
 *
 * <p>Each text is sent after a canary statement, {@code SELECT 'canary';}, whose result is then dropped. The
 * canary ends cleanly at its semicolon, so the text is scanned exactly as it would be alone; and a text without
 * statements then yields no result, where alone it would yield an EmptyQueryResponse that pgjdbc reports as an
 * update count of 0, the same as a DROP.
 */
final class ServerOracle implements AutoCloseable {

    /** One result of a Query: a row set (column labels and text values) or a command's update count. */
    record Result(List<String> labels, List<List<String>> rows, int updateCount) {
    }

    /** What the server did with a text: its results in order, or the error that stopped it. */
    record Outcome(List<Result> results, String sqlState, String message, int position) {

        boolean ran() {
            return sqlState == null;
        }

        @Override
        public String toString() {
            return ran() ? results.toString() : "ERROR " + sqlState + " " + message + " (position " + position + ")";
        }
    }

    private static final String CANARY = "SELECT 'canary';";

    private final Connection connection;

    private ServerOracle(Connection connection) {
        this.connection = connection;
    }

    static ServerOracle connect(TestDatabase database, boolean standardConformingStrings) throws SQLException {
        Properties properties = new Properties();
        properties.setProperty("user", database.user());
        properties.setProperty("password", database.password());
        properties.setProperty("preferQueryMode", "simple");
        Connection connection = DriverManager.getConnection(database.jdbcUrl(), properties);
        try (Statement statement = connection.createStatement()) {
            statement.execute("SET standard_conforming_strings = " + (standardConformingStrings ? "on" : "off"));
            statement.execute("SET escape_string_warning = off");
            statement.execute("SET client_min_messages = error");
        }
        connection.setAutoCommit(false);
        return new ServerOracle(connection);
    }

    /**
     * Runs {@code sql} as one simple-protocol Query, then rolls back. An error position is 1-based in
     * {@code sql}, 0 when the server gave none.
     */
    Outcome run(String sql) throws SQLException {
        try (Statement statement = connection.createStatement()) {
            statement.setEscapeProcessing(false);
            List<Result> results = new ArrayList<>();
            boolean isResultSet = statement.execute(CANARY + sql);
            while (true) {
                if (isResultSet) {
                    try (ResultSet rows = statement.getResultSet()) {
                        results.add(read(rows));
                    }
                } else {
                    int count = statement.getUpdateCount();
                    if (count == -1) {
                        break;
                    }
                    results.add(new Result(List.of(), List.of(), count));
                }
                isResultSet = statement.getMoreResults();
            }
            Result canary = results.removeFirst();
            if (!canary.rows().equals(List.of(List.of("canary")))) {
                throw new IllegalStateException("canary statement gave " + canary);
            }
            return new Outcome(List.copyOf(results), null, null, 0);
        } catch (PSQLException e) {
            ServerErrorMessage server = e.getServerErrorMessage();
            if (server == null) {
                throw e;
            }
            int position = server.getPosition() == 0 ? 0 : server.getPosition() - CANARY.length();
            return new Outcome(List.of(), server.getSQLState(), server.getMessage(), position);
        } finally {
            connection.rollback();
        }
    }

    /** Runs SQL outside the rolled-back runs (fixtures). */
    void commit(String sql) throws SQLException {
        try (Statement statement = connection.createStatement()) {
            statement.execute(sql);
        }
        connection.commit();
    }

    private static Result read(ResultSet rows) throws SQLException {
        ResultSetMetaData meta = rows.getMetaData();
        List<String> labels = new ArrayList<>();
        for (int i = 1; i <= meta.getColumnCount(); i++) {
            labels.add(meta.getColumnLabel(i));
        }
        List<List<String>> values = new ArrayList<>();
        while (rows.next()) {
            List<String> row = new ArrayList<>();
            for (int i = 1; i <= meta.getColumnCount(); i++) {
                row.add(rows.getString(i));
            }
            values.add(row);
        }
        return new Result(labels, values, -1);
    }

    @Override
    public void close() throws SQLException {
        connection.close();
    }
}
