package io.pgward.guard.catalog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgward.guard.ShapeTemplate;
import io.pgward.guard.classify.CorpusFiles;
import io.pgward.guard.lexer.LexerException;
import io.pgward.guard.lexer.SqlLexer;
import io.pgward.guard.lexer.StatementText;
import io.pgward.guard.lexer.Token;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link ShapeTemplate#matches} recognises a text as one of the template's shape by comparing characters: it must
 * never match a text whose L1 key ({@code TextShape}) or L3 keys ({@link ConstantShape}) differ from the template's,
 * whatever a hostile client puts in place of a constant.
 */
class ShapeTemplateTest {

    private static final String POINT = "SELECT abalance FROM pgbench_accounts WHERE aid = 1;";

    /** What a client may put where a constant was: values of every class, other forms, and attempts to escape. */
    private static final List<String> REPLACEMENTS = List.of("0", "7", "007", "2147483647", "2147483648",
            "3000000000", "9223372036854775807", "9223372036854775808", "99999999999999999999", "1.5", "1.",
            ".5", "1e5", "1.5e3", "1_000", "0x1F", "5abc", "-1", "1..2", "'b'", "''", "'it''s'", "'x'' or ''1''=''1'",
            "'a\\b'", "E'x'", "U&'x'", "N'x'", "B'1'", "$$x$$", "'a'\n'b'", "'a' 'b'", "'a' || 'b'", "'é ü'",
            "'a\nb'", "'a", "1 OR 1=1", "1; DROP TABLE t", "'1'", "$1", "(SELECT 1)", "1)--", "1 --", "1/*",
            "'x'::regclass", "1::int8", "NULL", "true", "");

    @Test
    void aNewValueOfTheSameClassMatches() {
        ShapeTemplate template = template(POINT);
        assertTrue(template.matches("SELECT abalance FROM pgbench_accounts WHERE aid = 987654;", true));
        assertTrue(template.matches(POINT, true));
        assertFalse(template.matches(POINT, false), "read with other standard_conforming_strings");
        ShapeTemplate named = template("SELECT * FROM customers WHERE name = 'Ann' AND id > 3");
        assertTrue(named.matches("SELECT * FROM customers WHERE name = 'O''Hara-Smith, Jr.' AND id > 12", true));
        assertTrue(named.matches("SELECT * FROM customers WHERE name = 'x'' --' AND id > 3", true),
                "one string whose value holds a quote and two dashes");
    }

    @ParameterizedTest
    @ValueSource(strings = {"1 OR 1=1", "1; DROP TABLE t", "'1'", "1.5", "2147483648", "3000000000", "-1",
            "1e5", "0x1F", "$1", "(SELECT 1)", "1 --", "1_000", "5abc"})
    void anotherFormOrMoreTextDoesNotMatchANumber(String value) {
        assertFalse(template(POINT).matches("SELECT abalance FROM pgbench_accounts WHERE aid = " + value + ";",
                true));
    }

    @ParameterizedTest
    @ValueSource(strings = {"'a\\b'", "E'x'", "'a'\n'b'", "'a' || 'b'", "'a\nb'", "'a", "1", "'x'::regclass",
            "'a' 'b'", "$$x$$", "U&'x'", "'x;'", "'x' --'"})
    void anotherFormOrMoreTextDoesNotMatchAString(String value) {
        assertFalse(template("SELECT * FROM customers WHERE name = 'Ann'").matches(
                "SELECT * FROM customers WHERE name = " + value, true));
    }

    @Test
    void constantsEitherKeyKeepsAreComparedAsWritten() {
        ShapeTemplate ordered = template("SELECT * FROM t WHERE a = 1 ORDER BY 1 LIMIT 10");
        assertTrue(ordered.matches("SELECT * FROM t WHERE a = 2 ORDER BY 1 LIMIT 10", true));
        assertFalse(ordered.matches("SELECT * FROM t WHERE a = 1 ORDER BY 2 LIMIT 10", true), "a position");
        assertFalse(ordered.matches("SELECT * FROM t WHERE a = 1 ORDER BY 1 LIMIT 11", true), "L1 keeps limits");
        ShapeTemplate call = template("SELECT * FROM t WHERE a = round(1.5, 1)");
        assertFalse(call.matches("SELECT * FROM t WHERE a = round(1.5, 2)", true), "an argument");
    }

    @Test
    void aTextWithoutAShapeHasNoTemplate() throws LexerException {
        for (String sql : List.of("SET search_path = public", "SELECT * FROM t WHERE id = $1",
                "SELECT 'orders'::regclass", "SELECT nextval('s')")) {
            assertNull(ShapeTemplate.of(sql, SqlLexer.split(sql, true), true), sql);
        }
    }

    /**
     * Every case of the guard corpus, every constant replaced one at a time by every replacement: whenever the
     * template matches the new text, the new text lexes, and its L1 key and every statement's L3 key are the
     * template's.
     */
    @Test
    void aMatchHasTheTemplatesKeysForEveryCorpusCaseAndReplacement() throws IOException {
        int templates = 0;
        int matched = 0;
        List<String> failures = new ArrayList<>();
        for (CorpusFiles.Case c : CorpusFiles.cases()) {
            List<StatementText> statements;
            try {
                statements = SqlLexer.split(c.sql(), true);
            } catch (LexerException e) {
                continue;
            }
            ShapeTemplate template = ShapeTemplate.of(c.sql(), statements, true);
            if (template == null) {
                continue;
            }
            templates++;
            List<String> l3Keys = l3Keys(statements);
            for (Token t : tokens(statements)) {
                if (t.kind() != Token.Kind.NUMBER && t.kind() != Token.Kind.STRING) {
                    continue;
                }
                for (String value : REPLACEMENTS) {
                    String other = c.sql().substring(0, t.start()) + value + c.sql().substring(t.end());
                    if (!template.matches(other, true)) {
                        continue;
                    }
                    matched++;
                    String failure = sameKeys(template, l3Keys, other);
                    if (failure != null) {
                        failures.add(c.id() + " with " + value + ": " + failure);
                    }
                }
            }
        }
        assertTrue(failures.isEmpty(), () -> String.join("\n", failures));
        int t = templates;
        int m = matched;
        assertTrue(t > 100 && m > 150, () -> "only " + t + " templates and " + m + " matches: the test no longer "
                + "exercises the matching");
    }

    private static String sameKeys(ShapeTemplate template, List<String> l3Keys, String other) {
        List<StatementText> statements;
        try {
            statements = SqlLexer.split(other, true);
        } catch (LexerException e) {
            return "matched a text that does not lex: " + e.getMessage();
        }
        ShapeTemplate again = ShapeTemplate.of(other, statements, true);
        if (again == null || !again.shapeKey().equals(template.shapeKey())) {
            return "another L1 key";
        }
        if (!l3Keys(statements).equals(l3Keys)) {
            return "another L3 key";
        }
        return null;
    }

    private static List<String> l3Keys(List<StatementText> statements) {
        List<String> keys = new ArrayList<>();
        for (StatementText statement : statements) {
            keys.add(ConstantShape.key(StatementShape.of(statement)));
        }
        return keys;
    }

    private static List<Token> tokens(List<StatementText> statements) {
        List<Token> tokens = new ArrayList<>();
        statements.forEach(s -> tokens.addAll(s.tokens()));
        return tokens;
    }

    private static ShapeTemplate template(String sql) {
        try {
            ShapeTemplate template = ShapeTemplate.of(sql, SqlLexer.split(sql, true), true);
            assertNotNull(template, sql);
            assertEquals(sql, template.text());
            return template;
        } catch (LexerException e) {
            throw new AssertionError(e);
        }
    }
}
