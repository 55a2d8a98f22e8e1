package io.pgward.guard.lexer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.pgward.guard.lexer.ServerOracle.Outcome;
import io.pgward.guard.lexer.ServerOracle.Result;
import io.pgward.guard.lexer.Token.Kind;
import io.pgward.testkit.PostgresTest;
import io.pgward.testkit.TestDatabase;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * PostgreSQL is the oracle for {@link SqlLexer#split}. Each text goes to the server as one simple-protocol
 * Query, and the statements the server ran (their number, and for each its result) are compared with the
 * statements split() returns, each of which is run alone. The property that matters for the guard: split()
 * never returns fewer statements than the server runs, nor one that spans two of them.
 *
 * <ul>
 *   <li>The server ran the text: the lexer must accept it, return as many statements, and each statement run
 *       alone must give the server's result for that position. For {@code SELECT <literal> AS <name>} the
 *       token values must also be the value and column name the server returned.</li>
 *   <li>The server refused the text (it parses the whole Query first, so then none of it ran): the lexer may
 *       refuse it too, or else at least one of its statements must be refused when run alone.</li>
 * </ul>
 */
@PostgresTest
class SplitMatchesPostgresIT {

    private static final long SEED = Long.getLong("pgward.lexer.seed", 0x5EED_1E8L);
    private static final int RANDOM_TEXTS = Integer.getInteger("pgward.lexer.texts", 5000);

    /** Bypasses from the literature and the corner cases of scan.l; t and x exist, so a DROP that runs shows. */
    private static final List<String> HAND_WRITTEN = List.of(
            "SELECT 1; /* nested /* */ DROP TABLE x; */ SELECT 2",
            "SELECT 1; /* not nested */ DROP TABLE x; */ SELECT 2",
            "SELECT 1 /* /* */ ; SELECT 2 */; SELECT 3",
            "SELECT 1 --comment\rDROP TABLE t",
            "SELECT 1 --comment\r; DROP TABLE t",
            "SELECT 1 --comment\n; DROP TABLE t",
            "SELECT 1; -- ; DROP TABLE t",
            "SELECT E'\\\\'; DROP TABLE t; --'",
            "SELECT e'\\''; DROP TABLE t; --'",
            "SELECT '\\'; DROP TABLE t; --'",
            "SELECT N'\\'; DROP TABLE t; --'",
            "SELECT 'x' AS \"; DROP TABLE t; --\"",
            "SELECT 1 AS \"\"\"; DROP TABLE t; --\"",
            "SELECT $a$ ; $a$; DROP",
            "SELECT $a$ ; $a$; DROP TABLE t",
            "SELECT $$;$$; SELECT $b$;$a$;$b$",
            "SELECT $a$ ;$A$; DROP TABLE t; $a$",
            "SELECT 1 AS x$a$; DROP TABLE t; --$a$",
            "SELECT a$b$c FROM t; DROP TABLE x",
            "SELECT U&\"d\\0061t\\+000061\" FROM t",
            "SELECT U&\"d!0061t!+000061\" UESCAPE '!' FROM t; DROP TABLE x",
            "SELECT U&'\\0041' UESCAPE '!'; SELECT 2",
            "SELECT U&'; DROP TABLE t; --' UESCAPE ';'",
            "SELECT 'a' 'b'",
            "SELECT 'a'\n'b'",
            "SELECT 'a'--x\n'b'; SELECT 2",
            "SELECT 'a' /* x */\n'; DROP TABLE t; --'",
            "SELECT B'01''; DROP TABLE t; --'",
            "SELECT X'1F'\n'; DROP TABLE t; --'",
            "SELECT 1;;; ;SELECT 2",
            ";;SELECT 1;;",
            " -- only a comment",
            "/* only /* a */ comment */ ;",
            "SELECT 1 -/* ; */- 1; SELECT 1 +-- ;\n 1",
            "SELECT 2 */* ; */ 3",
            "SELECT 1\\; DROP TABLE t",
            "SELECT 1;\u00a0DROP TABLE t",
            "SELECT 1\u000B+ 1; SELECT 2",
            "SELECT $1; DROP TABLE t",
            "SELECT 1; SELECT 'abc",
            "SELECT 1; /* x",
            "SELECT 1; SELECT $a$ x",
            "SELECT 1; SELECT \"x",
            "SELECT 1; SELECT E'\\xff'",
            "SELECT 1; SELECT 0x; DROP TABLE t",
            "SELECT 1e'; DROP TABLE t; --'");

    /**
     * What PostgreSQL 14 and 15 read as a number followed by an identifier ({@code 0x}, {@code 12abc}) and
     * PostgreSQL 16 refuses. The lexer follows 16 and refuses it on every version: a refusal, never a split
     * that differs.
     */
    private static final Set<String> NUMBER_ERRORS = Set.of("trailing junk after numeric literal",
            "invalid hexadecimal integer", "invalid octal integer", "invalid binary integer",
            "trailing junk after parameter");

    private static ServerOracle standard;
    private static ServerOracle escaping;
    private static int serverMajor;

    @BeforeAll
    static void connect(TestDatabase database) throws SQLException {
        serverMajor = database.serverMajor();
        standard = ServerOracle.connect(database, true);
        escaping = ServerOracle.connect(database, false);
        standard.commit("CREATE TABLE t (\"a$b$c\" int, data int); CREATE TABLE x (id int)");
        assertEquals("UTF8", standard.run("SHOW server_encoding").results().getFirst().rows().getFirst().getFirst());
    }

    @AfterAll
    static void disconnect() throws SQLException {
        standard.close();
        escaping.close();
    }

    @Test
    void handWrittenBypassesSplitWhereTheServerSplits() throws SQLException {
        List<String> failures = new ArrayList<>();
        for (String sql : HAND_WRITTEN) {
            compare(standard, true, sql, failures, new EnumMap<>(Verdict.class));
            compare(escaping, false, sql, failures, new EnumMap<>(Verdict.class));
        }
        assertNoFailures(failures, "hand-written");
        // The suite must show the server really running an injected statement the lexer also sees.
        assertEquals(List.of("SELECT E'\\\\'", "DROP TABLE t"), texts("SELECT E'\\\\'; DROP TABLE t; --'", true));
        assertEquals(2, standard.run("SELECT E'\\\\'; DROP TABLE t; --'").results().size());
        if (serverMajor >= 17) {
            // Vertical tab is whitespace since PostgreSQL 17; before, it is a character no statement accepts.
            assertEquals("2", standard.run("SELECT 1\u000B+\u000B1").results().getFirst().rows().getFirst().getFirst());
        }
    }

    @Test
    void randomMultiStatementTextsSplitWhereTheServerSplits() throws SQLException {
        Map<Verdict, Integer> seen = new EnumMap<>(Verdict.class);
        List<String> failures = new ArrayList<>();
        MultiStatementGenerator generator = new MultiStatementGenerator(SEED);
        for (int i = 0; i < RANDOM_TEXTS; i++) {
            boolean scs = i % 4 != 3;
            seen.merge(compare(scs ? standard : escaping, scs, generator.next(), failures, seen), 1, Integer::sum);
        }
        System.out.println("SplitMatchesPostgresIT: " + RANDOM_TEXTS + " random texts, seed " + SEED + ": " + seen);
        assertNoFailures(failures, "random (seed " + SEED + ", -Dpgward.lexer.seed to replay)");
        // Guard against a generator that only produces garbage: most texts must run, many with several statements.
        int ran = seen.getOrDefault(Verdict.SERVER_RAN, 0) + seen.getOrDefault(Verdict.SERVER_RAN_SEVERAL, 0);
        assertTrue(ran > RANDOM_TEXTS / 3, () -> "too few texts ran: " + seen);
        assertTrue(seen.getOrDefault(Verdict.SERVER_RAN_SEVERAL, 0) > RANDOM_TEXTS / 5, () -> "too few batches: " + seen);
        assertTrue(seen.getOrDefault(Verdict.BOTH_REFUSED, 0) > RANDOM_TEXTS / 20, () -> "too few lexical errors: " + seen);
        assertTrue(seen.getOrDefault(Verdict.VALUES_COMPARED, 0) > RANDOM_TEXTS / 10, () -> "too few values: " + seen);
    }

    @Test
    void lexicalErrorsCarryTheServersMessageAndPosition(TestDatabase database) throws SQLException {
        List<String> cases = new ArrayList<>(List.of("SELECT 'abc", "SELECT E'abc\\'", "SELECT 'a'\n'b",
                "SELECT N'abc", "SELECT U&'abc", "SELECT B'01", "SELECT X'1F", "SELECT \"abc", "SELECT U&\"abc",
                "SELECT $x$abc", "SELECT /* a /* b */ 1", "SELECT \"\"", "SELECT U&\"\"", "SELECT E'\\xff'",
                "SELECT E'\\0'", "SELECT E'\\303('", "SELECT E'ab\\u00'", "SELECT E'\\user'", "SELECT E'\\uDE00'",
                "SELECT E'\\uD83Dx'", "SELECT E'\\uD83D\\u0041'", "SELECT E'\\u0000'", "SELECT E'\\U00110000'",
                "SELECT U&'\\'", "SELECT U&'ab\\00'", "SELECT U&'\\0000'", "SELECT U&'\\DE00'", "SELECT U&'\\D83D'",
                "SELECT U&'x' UESCAPE 'ab'", "SELECT U&'x' UESCAPE '+'", "SELECT U&'x' UESCAPE 'a'",
                "SELECT U&'x' UESCAPE \"!\"", "SELECT U&\"x\" UESCAPE", "SELECT U&'x' UESCAPE U&'!'",
                "SELECT 1 " + "~".repeat(64) + " 1"));
        if (database.serverMajor() >= 16) {
            cases.addAll(List.of("SELECT 123abc", "SELECT 0x", "SELECT 0x_", "SELECT 0o8", "SELECT 0b",
                    "SELECT 0x1Fg", "SELECT 1e+", "SELECT 1_", "SELECT 1__2", "SELECT .5e", "SELECT 1e5x",
                    "SELECT $1abc"));
        }
        List<String> failures = new ArrayList<>();
        for (String sql : cases) {
            sameError(standard, true, sql, failures);
        }
        sameError(escaping, false, "SELECT U&'x'", failures);
        sameError(escaping, false, "SELECT 'abc\\'", failures);
        assertNoFailures(failures, "lexical errors");
    }

    @Test
    void beginAtomicBodyIsSplitMoreFinelyThanTheServerNeverCoarser() throws SQLException {
        String sql = "CREATE FUNCTION f() RETURNS int LANGUAGE sql BEGIN ATOMIC SELECT 1; SELECT 2; END; SELECT 3";
        assertEquals(2, standard.run(sql).results().size(), "the server runs CREATE FUNCTION, then SELECT 3");
        assertEquals(List.of("CREATE FUNCTION f() RETURNS int LANGUAGE sql BEGIN ATOMIC SELECT 1", "SELECT 2", "END",
                "SELECT 3"), texts(sql, true));
    }

    private enum Verdict { SERVER_RAN, SERVER_RAN_SEVERAL, BOTH_REFUSED, PIECE_REFUSED, VALUES_COMPARED }

    private static Verdict compare(ServerOracle server, boolean scs, String sql, List<String> failures,
            Map<Verdict, Integer> verdicts) throws SQLException {
        Outcome whole = server.run(sql);
        List<StatementText> statements;
        try {
            statements = SqlLexer.split(sql, scs);
        } catch (LexerException e) {
            if (whole.ran() && !(serverMajor < 16 && NUMBER_ERRORS.contains(e.getMessage()))) {
                failures.add(describe(sql, scs) + "\n  server ran it: " + whole + "\n  lexer refused: "
                        + e.getMessage() + " at " + e.position());
            }
            return Verdict.BOTH_REFUSED;
        }
        if (!whole.ran()) {
            for (StatementText statement : statements) {
                if (!server.run(statement.text()).ran()) {
                    return Verdict.PIECE_REFUSED;
                }
            }
            failures.add(describe(sql, scs) + "\n  server refused it: " + whole
                    + "\n  but each statement of the split runs alone: " + show(texts(statements)));
            return Verdict.PIECE_REFUSED;
        }
        if (statements.size() != whole.results().size()) {
            failures.add(describe(sql, scs) + "\n  server ran " + whole.results().size() + " statements: " + whole
                    + "\n  split returned " + statements.size() + ": " + show(texts(statements)));
            return Verdict.SERVER_RAN;
        }
        for (int i = 0; i < statements.size(); i++) {
            StatementText statement = statements.get(i);
            Result expected = whole.results().get(i);
            Outcome alone = server.run(statement.text());
            if (!alone.ran() || !alone.results().equals(List.of(expected))) {
                failures.add(describe(sql, scs) + "\n  statement " + (i + 1) + " in the batch gave " + expected
                        + "\n  split's " + show(statement.text()) + " alone gave " + alone);
            }
            if (tokenValuesMatch(sql, scs, statement, expected, failures)) {
                verdicts.merge(Verdict.VALUES_COMPARED, 1, Integer::sum);
            }
        }
        return statements.size() > 1 ? Verdict.SERVER_RAN_SEVERAL : Verdict.SERVER_RAN;
    }

    /**
     * For SELECT ... AS name (no FROM), the name is the column name the server returned; for
     * SELECT 'literal' AS name also the literal's value. Returns whether a literal's value was compared.
     */
    private static boolean tokenValuesMatch(String sql, boolean scs, StatementText statement, Result result,
            List<String> failures) {
        List<Token> tokens = statement.tokens();
        int n = tokens.size();
        if (n < 4 || !tokens.getFirst().isWord("select") || !tokens.get(n - 2).isWord("as")
                || (tokens.get(n - 1).kind() != Kind.WORD && tokens.get(n - 1).kind() != Kind.QUOTED_IDENTIFIER)
                || tokens.stream().anyMatch(t -> t.isWord("from")) || result.labels().size() != 1) {
            return false;
        }
        if (!result.labels().equals(List.of(tokens.get(n - 1).value()))) {
            failures.add(describe(sql, scs) + "\n  column name " + show(result.labels().getFirst())
                    + ", identifier token value " + show(tokens.get(n - 1).value()));
        }
        Token literal = tokens.get(1);
        if (n != 4 || literal.kind() != Kind.STRING || "bBxXnN".indexOf(literal.text().charAt(0)) >= 0) {
            return false;
        }
        if (!result.rows().equals(List.of(List.of(literal.value())))) {
            failures.add(describe(sql, scs) + "\n  server value " + result.rows() + ", string token value "
                    + show(literal.value()));
        }
        return true;
    }

    private static void sameError(ServerOracle server, boolean scs, String sql, List<String> failures)
            throws SQLException {
        Outcome outcome = server.run(sql);
        try {
            SqlLexer.tokenize(sql, scs);
            failures.add(describe(sql, scs) + "\n  lexer accepted it; server: " + outcome);
        } catch (LexerException e) {
            boolean sameMessage = !outcome.ran() && outcome.message().startsWith(e.getMessage());
            boolean samePosition = !outcome.ran() && (outcome.position() == 0 || outcome.position() == e.position() + 1);
            if (!sameMessage || !samePosition) {
                failures.add(describe(sql, scs) + "\n  server: " + outcome + "\n  lexer: " + e.getMessage()
                        + " at " + e.position() + " (0-based)");
            }
        }
    }

    private static List<String> texts(String sql, boolean scs) {
        try {
            return texts(SqlLexer.split(sql, scs));
        } catch (LexerException e) {
            throw new AssertionError(e);
        }
    }

    private static List<String> texts(List<StatementText> statements) {
        return statements.stream().map(StatementText::text).toList();
    }

    private static String describe(String sql, boolean scs) {
        return show(sql) + " [standard_conforming_strings=" + (scs ? "on" : "off") + "]";
    }

    /** Java-escaped, so CR, LF and friends are visible in the report. */
    private static String show(Object value) {
        StringBuilder out = new StringBuilder();
        for (char c : String.valueOf(value).toCharArray()) {
            switch (c) {
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> out.append(c < 0x20 || c == 0x7F ? String.format("\\u%04x", (int) c) : String.valueOf(c));
            }
        }
        return out.toString();
    }

    private static void assertNoFailures(List<String> failures, String what) {
        if (!failures.isEmpty()) {
            fail(failures.size() + " " + what + " mismatch(es):\n" + String.join("\n\n",
                    failures.subList(0, Math.min(15, failures.size()))));
        }
    }
}
