package io.pgward.guard.catalog;

import io.pgward.guard.SqlStates;
import io.pgward.guard.Verdict;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import io.pgward.guard.lexer.LexerException;
import io.pgward.guard.lexer.SqlLexer;
import io.pgward.guard.lexer.StatementText;
import io.pgward.guard.lexer.Token;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.postgresql.core.BaseConnection;
import org.postgresql.core.NativeQuery;
import org.postgresql.core.Query;
import org.postgresql.core.QueryExecutor;
import org.postgresql.core.ResultHandlerBase;
import org.postgresql.core.SqlCommand;
import org.postgresql.util.PSQLException;
import org.postgresql.util.ServerErrorMessage;

/**
 * PostgreSQL's own grammar, asked whether it accepts a statement, without analysing or running any of it: what a
 * refusal of text that is not SQL defers to, so that a syntax error is never answered as a permission error.
 *
 * <pre>
 *   set_config('standard_conforming_strings', the session's, false)
 *   BEGIN; SELECT 1/0                                  -- the block is aborted
 *   Parse(statement) + Describe, no Bind, no Execute
 *     grammar rejects it          -> its error (42601 ...), position in the statement
 *     grammar accepts it          -> 25P02 "current transaction is aborted"
 *   ROLLBACK; RESET standard_conforming_strings
 * </pre>
 *
 * <p>Why nothing of the statement can run or be analysed: PostgreSQL's Parse runs the raw parser, and in an aborted
 * transaction block refuses (25P02) every statement but COMMIT, ROLLBACK and PREPARE TRANSACTION before it analyses
 * anything (postgres.c, exec_parse_message); no Execute is ever sent. A statement that begins with one of those
 * words is not asked (see {@link #ENDS_BLOCK}): it would be analysed. The statement goes as one Parse, as written;
 * PostgreSQL refuses a Parse of several statements before it looks at the block ("cannot insert multiple
 * commands"), which counts as accepted.
 */
final class ServerGrammar {

    /** The first words of the statements PostgreSQL parses, analyses and may run in an aborted block. */
    static final Set<String> ENDS_BLOCK = Set.of("commit", "end", "rollback", "abort", "prepare");

    private static final int FLAGS = QueryExecutor.QUERY_ONESHOT | QueryExecutor.QUERY_DESCRIBE_ONLY
            | QueryExecutor.QUERY_SUPPRESS_BEGIN;

    private ServerGrammar() {
    }

    /** A statement of a text, where it starts in the text, and its first word (null when it has none). */
    private record Piece(String text, int start, String firstWord) {
    }

    /**
     * PostgreSQL's error for the first statement of {@code text} (a whole Query or Parse text) that its grammar
     * rejects, its position counted in the whole text, as PostgreSQL parses a whole Query before it runs any of it;
     * empty when the grammar accepts every statement asked. Text pgward's lexer cannot split is asked up to the
     * statement the lexer stopped in, and that statement to the end of the text. The connection must be in
     * autocommit mode, and is left so.
     */
    static Optional<Verdict.Refuse> firstRejection(Connection connection, String text,
                                                   boolean standardConformingStrings) throws SQLException {
        List<Piece> pieces = pieces(text, standardConformingStrings);
        for (Piece piece : pieces) {
            if (piece.firstWord() == null || ENDS_BLOCK.contains(piece.firstWord())) {
                continue;
            }
            Optional<Verdict.Refuse> rejected = rejection(connection, piece.text(), standardConformingStrings);
            if (rejected.isPresent()) {
                Verdict.Refuse r = rejected.get();
                return Optional.of(r.position() == 0 ? r : r.at(text.codePointCount(0, piece.start()) + r.position()));
            }
        }
        return Optional.empty();
    }

    private static List<Piece> pieces(String text, boolean standardConformingStrings) {
        List<Piece> pieces = new ArrayList<>();
        try {
            for (StatementText statement : SqlLexer.split(text, standardConformingStrings)) {
                pieces.add(new Piece(statement.text(), statement.start(), statement.tokens().getFirst().value()));
            }
            return pieces;
        } catch (LexerException e) {
            try {
                // The statements before the one the lexer stopped in, then that one to the end.
                String before = text.substring(0, Math.min(e.position(), text.length()));
                List<Token> tokens = SqlLexer.tokenize(before, standardConformingStrings);
                int tail = 0;
                for (Token token : tokens) {
                    if (token.kind() == Token.Kind.PUNCTUATION && token.text().equals(";")) {
                        tail = token.end();
                    }
                }
                for (StatementText statement : SqlLexer.split(text.substring(0, tail), standardConformingStrings)) {
                    pieces.add(new Piece(statement.text(), statement.start(),
                            statement.tokens().getFirst().value()));
                }
                List<Token> tailTokens = SqlLexer.tokenize(before.substring(tail), standardConformingStrings);
                pieces.add(new Piece(text.substring(tail), tail,
                        tailTokens.isEmpty() ? "" : tailTokens.getFirst().value()));
                return pieces;
            } catch (LexerException | RuntimeException again) {
                return List.of();
            }
        }
    }

    /**
     * PostgreSQL's error for {@code statement} when its grammar rejects it, its position counted in the statement;
     * empty when the grammar accepts it or it is not asked. The connection must be in autocommit mode, and is left
     * so, outside any transaction.
     */
    private static Optional<Verdict.Refuse> rejection(Connection connection, String statement,
                                              boolean standardConformingStrings) throws SQLException {
        try {
            abortedBlock(connection, standardConformingStrings);
            return parse(connection, statement);
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

    private static Optional<Verdict.Refuse> parse(Connection connection, String statement) throws SQLException {
        QueryExecutor executor = connection.unwrap(BaseConnection.class).getQueryExecutor();
        // As written: pgjdbc's own splitter would refuse text it cannot read (an unterminated literal with
        // standard_conforming_strings off), and the server must see exactly what the client sent.
        Query query = executor.wrap(List.of(new NativeQuery(statement, null, false, SqlCommand.BLANK)));
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
            // Nothing to parse (PostgreSQL answers an empty statement without looking at the block).
            return Optional.empty();
        }
        if (server.getSQLState().equals(SqlStates.IN_FAILED_SQL_TRANSACTION)
                || String.valueOf(server.getMessage()).contains("multiple commands")) {
            return Optional.empty();
        }
        return Optional.of(new Verdict.Refuse(server.getSQLState(), server.getMessage(),
                Math.max(0, server.getPosition()), CatalogRefusals.GRAMMAR, server.getDetail(),
                server.getHint()));
    }
}
