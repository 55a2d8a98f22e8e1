package io.pgward.wire.audit;

import io.pgward.guard.lexer.LexerException;
import io.pgward.guard.lexer.SqlLexer;
import io.pgward.guard.lexer.Token;
import java.util.ArrayList;
import java.util.List;

/**
 * The audit's copy of a statement with the literal after every {@code PASSWORD} word replaced: {@code CREATE ROLE
 * r PASSWORD '...'}, {@code ALTER USER u WITH ENCRYPTED PASSWORD '...'} (psql's {@code \password} sends the
 * verifier, no less a secret), a user mapping's {@code OPTIONS (password '...')}. PostgreSQL's own
 * log_statement writes them verbatim; pgward's audit must not.
 *
 * <p>Which characters a literal spans depends on standard_conforming_strings ({@code 'a\'b'}), which the writer
 * does not know, so the text is read both ways and every span either reading finds is replaced: a wrong reading
 * can only hide more. A text that names PASSWORD and that either reading cannot split is not shown at all. A
 * password inside another string (a connection string given to a function) is not recognised.
 */
final class PasswordRedaction {

    static final String HIDDEN = "'********'";

    private PasswordRedaction() {
    }

    static String redact(String statement) {
        if (!mentionsPassword(statement)) {
            return statement;
        }
        List<int[]> spans = new ArrayList<>();
        try {
            spans.addAll(literalsAfterPassword(SqlLexer.tokenize(statement, true)));
            spans.addAll(literalsAfterPassword(SqlLexer.tokenize(statement, false)));
        } catch (LexerException | RuntimeException e) {
            return "(not shown: the statement names PASSWORD and cannot be split into tokens, "
                    + statement.length() + " characters)";
        }
        if (spans.isEmpty()) {
            return statement;
        }
        spans.sort((a, b) -> Integer.compare(a[0], b[0]));
        StringBuilder out = new StringBuilder(statement.length());
        int at = 0;
        for (int[] span : spans) {
            if (span[0] < at) {
                at = Math.max(at, span[1]);   // overlaps a span already hidden
                continue;
            }
            out.append(statement, at, span[0]).append(HIDDEN);
            at = span[1];
        }
        return out.append(statement, at, statement.length()).toString();
    }

    private static List<int[]> literalsAfterPassword(List<Token> tokens) {
        List<int[]> spans = new ArrayList<>();
        for (int i = 0; i + 1 < tokens.size(); i++) {
            if (isPasswordWord(tokens.get(i)) && tokens.get(i + 1).kind() == Token.Kind.STRING) {
                spans.add(new int[] {tokens.get(i + 1).start(), tokens.get(i + 1).end()});
            }
        }
        return spans;
    }

    private static boolean isPasswordWord(Token token) {
        return (token.kind() == Token.Kind.WORD || token.kind() == Token.Kind.QUOTED_IDENTIFIER)
                && token.value().equalsIgnoreCase("password");
    }

    private static boolean mentionsPassword(String statement) {
        int last = statement.length() - "password".length();
        for (int i = 0; i <= last; i++) {
            if ((statement.charAt(i) | 0x20) == 'p' && statement.regionMatches(true, i, "password", 0, 8)) {
                return true;
            }
        }
        return false;
    }
}
