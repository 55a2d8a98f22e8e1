package io.pgward.guard.lexer;

import io.pgward.guard.lexer.Lexeme.Form;
import java.util.ArrayList;
import java.util.List;

/**
 * Layer L1 of the guard: PostgreSQL's lexical rules, and the statement boundaries of a simple-protocol Query.
 *
 * <p>This is a port of the server's scanner (src/backend/parser/scan.l of PostgreSQL 17) plus the part of its
 * grammar filter (parser.c) that resolves {@code U&} literals and {@code UESCAPE}. Invariants:
 * <ul>
 *   <li>Text the server's scanner rejects is rejected here with the server's message (without its "at or
 *       near" part), at the offset the server reports (0-based here, 1-based there; for errors inside U&amp;
 *       literals only when the text before the error is ASCII). The server parses a whole Query before running
 *       any of it, so a lexical error anywhere means that none of its statements runs.</li>
 *   <li>{@link #split} cuts at every {@code ;} token, which is where the server's grammar ends a statement. The
 *       grammar also accepts {@code ;} inside {@code CREATE FUNCTION|PROCEDURE ... BEGIN ATOMIC ... END} and
 *       {@code CREATE RULE ... DO (...; ...)}; there split() returns more, shorter pieces than the server runs,
 *       the first of them starting with that CREATE. It never returns fewer statements than the server runs,
 *       and never one that spans two of the server's.</li>
 *   <li>Assumes a UTF8 database and client encoding (pgward's sessions use UTF8): unquoted identifiers fold
 *       only A-Z, identifiers are cut to 63 bytes of UTF-8, and E'' escapes must produce valid UTF-8.</li>
 * </ul>
 *
 * <p>Known differences from the server, none of which lets split() return fewer statements than it runs:
 * <ul>
 *   <li>Before PostgreSQL 16, {@code 0x1F}, {@code 0b101} or {@code 1_000} are a number followed by an
 *       identifier, and before 15 so is {@code 12abc}; this lexer follows 16 (one number, or an error). Where it
 *       accepts such a number, no older server starts a string, comment or quote inside it, so the statements
 *       are the same.</li>
 *   <li>Vertical tab is whitespace only since PostgreSQL 17; older servers refuse any Query with one outside a
 *       literal or comment.</li>
 *   <li>{@code $2147483648} and larger parameter numbers are one parameter token, as before PostgreSQL 18
 *       (which refuses them as it scans); the digits cannot start a string, comment or quote, so the statements
 *       are the same.</li>
 *   <li>{@code \'} in E'' strings is accepted, as the server does for every client encoding except the
 *       client-only ones (SJIS, BIG5, GBK, GB18030, UHC), where it refuses it.</li>
 *   <li>A NUL character, which cannot reach the server inside a Query message, is an error.</li>
 *   <li>Text whose runs of operator characters would cost the server's scanner more than
 *       {@link OperatorRunReads#MAX_READS} character reads (nested comment starts, {@code +} repeated) is refused
 *       ({@link LexerException.TooComplex}), though the server accepts it after seconds or minutes of CPU.</li>
 * </ul>
 */
public final class SqlLexer {

    private SqlLexer() {
    }

    /**
     * The tokens of {@code sql}, whitespace and comments dropped. A {@code U&} literal and its {@code UESCAPE 'c'}
     * clause, and string literals continued across a newline, are one token each, as the grammar sees them.
     *
     * @param standardConformingStrings the session's standard_conforming_strings; when off, backslash escapes
     *                                  apply inside plain '...' strings and U&amp;'...' is an error
     * @throws LexerException where PostgreSQL's scanner would reject the text, or {@link LexerException.TooComplex}
     *                        where it would read the text's runs of operator characters over and over
     *                        ({@link OperatorRunReads}); the latter also when such runs follow a rejected part
     */
    public static List<Token> tokenize(String sql, boolean standardConformingStrings) throws LexerException {
        int nul = sql.indexOf('\0');
        if (nul >= 0) {
            throw new LexerException("query text contains a NUL character", nul);
        }
        Scanner scanner = new Scanner(sql, standardConformingStrings);
        List<Token> tokens = new ArrayList<>();
        try {
            Lexeme lexeme = scanner.next();
            while (lexeme != null) {
                if (lexeme.form() == Form.UNICODE_STRING || lexeme.form() == Form.UNICODE_IDENTIFIER) {
                    lexeme = unicodeLiteral(sql, scanner, lexeme, tokens);
                } else {
                    tokens.add(lexeme.toToken(sql));
                    lexeme = scanner.next();
                }
            }
        } catch (LexerException.TooComplex e) {
            throw e;
        } catch (LexerException e) {
            scanner.boundReadsAfterError(e.position());
            throw e;
        }
        return tokens;
    }

    /**
     * The statements of {@code sql} as the server splits a simple-protocol Query: separated by {@code ;} outside
     * strings, comments, quoted identifiers and dollar quotes; statements holding no token dropped.
     *
     * @throws LexerException where PostgreSQL's scanner would reject the text; then the server runs none of it.
     *                        {@link LexerException.TooComplex} as for {@link #tokenize}
     */
    public static List<StatementText> split(String sql, boolean standardConformingStrings) throws LexerException {
        List<StatementText> statements = new ArrayList<>();
        List<Token> current = new ArrayList<>();
        for (Token token : tokenize(sql, standardConformingStrings)) {
            if (token.kind() == Token.Kind.PUNCTUATION && token.text().equals(";")) {
                addStatement(sql, current, statements);
                current = new ArrayList<>();
            } else {
                current.add(token);
            }
        }
        addStatement(sql, current, statements);
        return statements;
    }

    private static void addStatement(String sql, List<Token> tokens, List<StatementText> statements) {
        if (!tokens.isEmpty()) {
            int start = tokens.getFirst().start();
            statements.add(new StatementText(sql.substring(start, tokens.getLast().end()), start, tokens));
        }
    }

    /**
     * base_yylex for UIDENT and USCONST: an optional {@code UESCAPE} keyword must be followed by a plain string
     * literal holding one acceptable character; then the escapes are resolved and an identifier is cut to 63
     * bytes (not case-folded). Adds the token and returns the lexeme after it.
     */
    private static Lexeme unicodeLiteral(String sql, Scanner scanner, Lexeme literal, List<Token> tokens)
            throws LexerException {
        Lexeme next = scanner.next();
        char escape = '\\';
        int end = literal.end();
        if (next != null && next.kind() == Token.Kind.WORD && next.value().equals("uescape")) {
            Lexeme escapeString = scanner.next();
            if (escapeString == null || escapeString.form() != Form.SIMPLE_STRING) {
                throw new LexerException("UESCAPE must be followed by a simple string literal",
                        escapeString == null ? sql.length() : escapeString.start());
            }
            if (!UnicodeEscapes.isValidEscapeCharacter(escapeString.value())) {
                throw new LexerException("invalid Unicode escape character", escapeString.start());
            }
            escape = escapeString.value().charAt(0);
            end = escapeString.end();
            next = scanner.next();
        }
        String value = UnicodeEscapes.resolve(literal.value(), escape, literal.start());
        if (literal.form() == Form.UNICODE_IDENTIFIER) {
            value = Scanner.truncateIdentifier(value);
        }
        tokens.add(new Token(literal.kind(), sql.substring(literal.start(), end), value, literal.start(), end));
        return next;
    }
}
