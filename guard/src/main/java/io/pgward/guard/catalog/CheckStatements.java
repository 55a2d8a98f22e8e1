package io.pgward.guard.catalog;

import io.pgward.guard.SqlStates;
import io.pgward.guard.Verdict;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.postgresql.core.NativeQuery;
import org.postgresql.core.Parser;
import org.postgresql.util.PSQLException;
import org.postgresql.util.ServerErrorMessage;

/**
 * How the texts that hold a client's query reach PostgreSQL on a check's control connection: each as exactly one
 * Parse, split by pgjdbc as the client's session would split it (its standard_conforming_strings), and PostgreSQL's
 * error on it as the statement's verdict ({@link PostgresVerdict}). Also the reads of the check function that share
 * its round trip. One instance per {@link CheckTransaction}.
 */
final class CheckStatements {

    /**
     * The check function, which PostgreSQL stores analysed (a SQL-standard body) for less work than a view: no
     * relation, row type or rule. See {@link CheckFunctionBody} for what the check then reads of it.
     */
    private static final String FUNCTION_PREFIX = "CREATE FUNCTION pg_temp." + CheckTransaction.CHECK_FUNCTION
            + "() RETURNS pg_catalog.bool LANGUAGE sql RETURN EXISTS (SELECT 1 FROM (\n";
    private static final String FUNCTION_SUFFIX = "\n) AS pgward_query)";

    private final Connection connection;
    private final boolean standardConformingStrings;
    private final Duration timeout;
    // Statements that open the transaction, sent with the next text that holds the query (openWith).
    private String opening;
    private boolean opened;

    CheckStatements(Connection connection, boolean standardConformingStrings, Duration timeout) {
        this.connection = connection;
        this.standardConformingStrings = standardConformingStrings;
        this.timeout = timeout;
    }

    /**
     * Has the next text that holds the client's query go in one round trip after {@code statements}, which open
     * its transaction (they must split into the same statements alone as before that text); an error in them skips
     * the text, and is the text's verdict as every error of its round trip is.
     */
    void openWith(String statements) {
        opening = statements;
    }

    /** Whether the statements of {@link #openWith} were sent. */
    boolean opened() {
        return opened;
    }

    /** Runs text that holds the client's query, as one Parse; PostgreSQL's errors become the verdict. */
    void execute(String text, QueryText query, int offset) throws SQLException, PostgresVerdict {
        oneStatement(text);
        try (Statement s = connection.createStatement()) {
            sendOpeningAlone(s, query);
            executeAsVerdict(s, text, query, offset);
        }
    }

    /** The one statement pgjdbc makes of {@code text}; a text it splits into several is refused. */
    private NativeQuery oneStatement(String text) throws SQLException, PostgresVerdict {
        List<NativeQuery> statements = statements(text, standardConformingStrings);
        if (statements.size() != 1) {
            throw new PostgresVerdict(CatalogRefusals.notOneStatement());
        }
        return statements.get(0);
    }

    /** The statements pgjdbc makes of {@code text}, each sent as a Parse of its own, split as the session would. */
    private static List<NativeQuery> statements(String text, boolean standardConformingStrings) throws SQLException {
        return Parser.parseJdbcSql(text, standardConformingStrings, false, true, false, false);
    }

    /**
     * Creates the check function of {@code query} and reads what {@link CheckTransaction} needs, in one round trip when
     * pgjdbc splits the two texts put together into exactly the statements it makes of each alone. PostgreSQL receives
     * the function's text as the same Parse of its own as {@link #execute} sends, and the reads as theirs; an error in
     * the function's skips the reads (PostgreSQL ignores the rest of the pipeline until its Sync) and is the verdict. A
     * text that ends inside a comment, a quote or a parenthesis would take in what follows it: such a text goes in a
     * round trip of its own, as every text did before. (pgward's lexer has made sure the text is balanced as it reads
     * it; pgjdbc's splitter is a different reader.) An error in one of the reads, such as the check's statement
     * timeout, comes back as the statement's error when they share the round trip: a refusal either way.
     */
    CheckFunctionRead createCheckFunction(QueryText query) throws SQLException, PostgresVerdict {
        String wrapped = FUNCTION_PREFIX + query.text() + FUNCTION_SUFFIX;
        NativeQuery function = oneStatement(wrapped);
        String together = (opening == null ? "" : opening + ";") + wrapped + ";" + JUDGE_READ;
        List<String> openingStatements = opening == null ? List.of()
                : statements(opening, standardConformingStrings).stream().map(q -> q.nativeSql).toList();
        try (Statement s = connection.createStatement()) {
            if (splitApart(openingStatements, function, together)) {
                opening = null;
                opened |= !openingStatements.isEmpty();
                executeAsVerdict(s, together, query, FUNCTION_PREFIX.length());
                for (int i = 0; i < openingStatements.size(); i++) {
                    s.getMoreResults();
                }
                if (!s.getMoreResults()) {
                    throw new SQLException("the catalog reads did not follow the check function");
                }
                return judgeRead(s);
            }
            sendOpeningAlone(s, query);
            executeAsVerdict(s, wrapped, query, FUNCTION_PREFIX.length());
        }
        try (PreparedStatement s = connection.prepareStatement(JUDGE_READ)) {
            s.execute();
            return judgeRead(s);
        }
    }

    private static List<String> nativeStatements(String text, boolean standardConformingStrings) {
        try {
            return statements(text, standardConformingStrings).stream().map(q -> q.nativeSql).toList();
        } catch (SQLException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** The statements of {@link #openWith} in a round trip of their own, when they were not sent yet. */
    private void sendOpeningAlone(Statement s, QueryText query) throws SQLException, PostgresVerdict {
        if (opening != null) {
            String text = opening;
            opening = null;
            opened = true;
            executeAsVerdict(s, text, query, 0);
        }
    }

    /**
     * Whether pgjdbc splits {@code together} into {@code opening}, the statements of {@link #openWith} as it splits
     * them alone, {@code function}, the check function's statement, and {@link #JUDGE_READ}'s.
     */
    private boolean splitApart(List<String> opening, NativeQuery function, String together) throws SQLException {
        List<String> expected = new ArrayList<>(opening);
        expected.add(function.nativeSql);
        expected.addAll(standardConformingStrings ? JUDGE_READ_SCS_ON : JUDGE_READ_SCS_OFF);
        List<NativeQuery> all = statements(together, standardConformingStrings);
        return all.stream().map(q -> q.nativeSql).toList().equals(expected);
    }

    /**
     * Executes {@code text} on {@code s}, whose first statement holds the client's query at {@code offset}; an error
     * PostgreSQL reports becomes the verdict.
     */
    private void executeAsVerdict(Statement s, String text, QueryText query, int offset)
            throws SQLException, PostgresVerdict {
        try {
            s.setEscapeProcessing(false);
            s.execute(text);
        } catch (PSQLException e) {
            ServerErrorMessage server = e.getServerErrorMessage();
            if (server == null || server.getSQLState() == null) {
                throw e;
            }
            if (server.getSQLState().equals(SqlStates.READ_ONLY_SQL_TRANSACTION)) {
                throw new PostgresVerdict(CatalogRefusals.standby());
            }
            if (server.getSQLState().equals(SqlStates.QUERY_CANCELED)) {
                // The check's own statement_timeout: the analysis alone took longer than a check may hold a
                // control connection that other sessions need.
                throw new PostgresVerdict(CatalogRefusals.tooComplex("PostgreSQL's analysis of it did not finish "
                        + "within the catalog check's " + timeout.toMillis() + " ms"));
            }
            if (server.getSQLState().equals(SqlStates.SYNTAX_ERROR)
                    && String.valueOf(server.getMessage()).contains("multiple commands")) {
                throw new PostgresVerdict(CatalogRefusals.notOneStatement());
            }
            int position = server.getPosition() > 0 ? query.statementPosition(server.getPosition(), offset) : 0;
            throw new PostgresVerdict(new Verdict.Refuse(server.getSQLState(), server.getMessage(),
                    position, CatalogRefusals.POSTGRES_ERROR, server.getDetail(), server.getHint()));
        }
    }


    /**
     * The safe path first (each read after it is executed once it took effect), then the check function's tree and
     * dependencies.
     */
    private static final String JUDGE_READ = "SELECT pg_catalog.set_config('search_path', '"
            + CheckTransaction.SAFE_PATH + "', true); " + PreparedReads.Read.CHECK_FUNCTION.execute();

    /** {@link #JUDGE_READ}'s statements as pgjdbc sends them, with standard_conforming_strings on and off. */
    private static final List<String> JUDGE_READ_SCS_ON = nativeStatements(JUDGE_READ, true);
    private static final List<String> JUDGE_READ_SCS_OFF = nativeStatements(JUDGE_READ, false);

    /** Reads the results of {@link #JUDGE_READ} from {@code s}, which is at its first (the settings' row). */
    private CheckFunctionRead judgeRead(Statement s) throws SQLException {
        if (!s.getMoreResults()) {
            throw new SQLException("the check function was not read");
        }
        return CheckFunctionRead.read(s.getResultSet());
    }
}
