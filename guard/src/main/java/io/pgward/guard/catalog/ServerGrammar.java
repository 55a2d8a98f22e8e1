package io.pgward.guard.catalog;

import io.pgward.guard.Positions;
import io.pgward.guard.SqlStates;
import io.pgward.guard.Verdict;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Optional;
import org.postgresql.core.BaseConnection;
import org.postgresql.core.NativeQuery;
import org.postgresql.core.Query;
import org.postgresql.core.QueryExecutor;
import org.postgresql.core.ResultHandlerBase;
import org.postgresql.core.SqlCommand;
import org.postgresql.util.PSQLException;
import org.postgresql.util.ServerErrorMessage;

/**
 * PostgreSQL's own grammar, asked whether it accepts a text, without analysing or running any of it: what a refusal
 * of text that is not SQL defers to, so that a syntax error is never answered as a permission error.
 *
 * <pre>
 *   set_config('standard_conforming_strings', the session's, false)
 *   BEGIN; SELECT 1/0                                  -- the block is aborted
 *   Parse(the whole text, as written) + Describe + Sync; no Bind, no Execute
 *     grammar rejects it                   -> its error (42601 ...), position in the text
 *     several statements                   -> 42601 "cannot insert multiple commands ..."   (accepted)
 *     one statement                        -> 25P02 "current transaction is aborted"        (accepted)
 *     one COMMIT, ROLLBACK, PREPARE TRANSACTION -> no error                                 (accepted)
 *   ROLLBACK; RESET standard_conforming_strings
 * </pre>
 *
 * <p>Why nothing of the text can run or be analysed: PostgreSQL's Parse runs the raw parser over the whole text
 * first; it refuses several statements at once, and, in an aborted transaction block, one statement other than a
 * transaction exit, before it analyses anything (postgres.c, exec_parse_message). A lone transaction exit is
 * analysed, which for a transaction statement is nothing. No Execute is ever sent.
 */
final class ServerGrammar {

    private static final int FLAGS = QueryExecutor.QUERY_ONESHOT | QueryExecutor.QUERY_DESCRIBE_ONLY
            | QueryExecutor.QUERY_SUPPRESS_BEGIN;

    private ServerGrammar() {
    }

    /**
     * PostgreSQL's error for {@code text} (a whole Query or Parse text) when its grammar rejects it, with PostgreSQL's
     * position in the whole text; empty when the grammar accepts all of it. PostgreSQL parses a whole Query before it
     * runs any of it, so the first syntax error anywhere in the text is the answer. The connection must be in
     * autocommit mode, and is left so, with its own settings.
     */
    static Optional<Verdict.Refuse> firstRejection(Connection connection, String text,
                                                   boolean standardConformingStrings) throws SQLException {
        try {
            abortedBlock(connection, standardConformingStrings);
            return parse(connection, text);
        } finally {
            try (Statement s = connection.createStatement()) {
                s.execute("ROLLBACK; RESET standard_conforming_strings");
            }
        }
    }

    private static void abortedBlock(Connection connection, boolean standardConformingStrings) throws SQLException {
        // For the session and in a round trip of its own: an error undoes every setting made in the transaction it
        // aborts, and the statements of one round trip share one (PostgreSQL's implicit transaction up to Sync).
        try (PreparedStatement ps = connection.prepareStatement("SELECT pg_catalog.set_config("
                + "'standard_conforming_strings', ?, false)")) {
            ps.setString(1, standardConformingStrings ? "on" : "off");
            ps.executeQuery().close();
        }
        try (Statement s = connection.createStatement()) {
            s.execute("BEGIN; SELECT pg_catalog.int4div(1, 0)");
            throw new SQLException("the transaction block that must be aborted was not");
        } catch (PSQLException e) {
            if (!"22012".equals(e.getSQLState())) {
                throw e;
            }
        }
    }

    private static Optional<Verdict.Refuse> parse(Connection connection, String text) throws SQLException {
        QueryExecutor executor = connection.unwrap(BaseConnection.class).getQueryExecutor();
        // As written: pgjdbc's own splitter would refuse text it cannot read (an unterminated literal with
        // standard_conforming_strings off), and the server must see exactly what the client sent.
        Query query = executor.wrap(List.of(new NativeQuery(text, null, false, SqlCommand.BLANK)));
        ResultHandlerBase handler = new ResultHandlerBase() {
            @Override
            public void handleWarning(java.sql.SQLWarning warning) {
                // A NOTICE while parsing (an identifier truncated) says nothing about the grammar.
            }
        };
        SQLException error;
        try {
            executor.execute(query, query.createParameterList(), handler, 0, 0, FLAGS);
            error = handler.getException();
        } catch (PSQLException e) {
            error = e;
        }
        ServerErrorMessage server = error instanceof PSQLException p ? p.getServerErrorMessage() : null;
        if (server == null || server.getSQLState() == null) {
            if (error != null) {
                throw error;
            }
            // No error: an empty text, or a lone transaction exit.
            return Optional.empty();
        }
        // The grammar's errors carry a position; "cannot insert multiple commands" carries none (and its wording
        // follows lc_messages, so it is not matched).
        if (server.getSQLState().equals(SqlStates.IN_FAILED_SQL_TRANSACTION) || server.getPosition() <= 0) {
            return Optional.empty();
        }
        return Optional.of(new Verdict.Refuse(server.getSQLState(), server.getMessage(),
                Positions.inUtf16(text, server.getPosition()), CatalogRefusals.GRAMMAR, server.getDetail(),
                server.getHint()));
    }
}
