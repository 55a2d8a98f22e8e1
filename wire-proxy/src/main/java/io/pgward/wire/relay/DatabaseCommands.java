package io.pgward.wire.relay;

import io.pgward.guard.lexer.LexerException;
import io.pgward.guard.lexer.SqlLexer;
import io.pgward.guard.lexer.StatementText;
import io.pgward.guard.lexer.Token;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Finds the statements PostgreSQL refuses while any other session is connected to a database ("database ... is
 * being accessed by other users"), and the database each names. pgward's idle pooled connections are such
 * sessions, though no client is using them, so they are closed before the statement is relayed:
 * <pre>
 *   DROP DATABASE [IF EXISTS] name ...                  name
 *   ALTER DATABASE name RENAME TO ...                   name
 *   ALTER DATABASE name SET TABLESPACE ...              name
 *   CREATE DATABASE name ... [TEMPLATE [=] template]    template, template1 when not given or DEFAULT
 * </pre>
 * Naming one database too many only costs a reconnect later; a text the lexer cannot read names none (the server
 * will refuse it too).
 */
final class DatabaseCommands {

    /** The template CREATE DATABASE copies when none is given. */
    static final String DEFAULT_TEMPLATE = "template1";

    private DatabaseCommands() {
    }

    /** The databases the statements of {@code sql} need every other session to have left; usually none. */
    static Set<String> databasesToFree(String sql, boolean standardConformingStrings) {
        if (!mentionsDatabase(sql)) {
            return Set.of();  // the common case, decided without lexing
        }
        List<StatementText> statements;
        try {
            statements = SqlLexer.split(sql, standardConformingStrings);
        } catch (LexerException e) {
            return Set.of();
        }
        Set<String> names = new LinkedHashSet<>();
        for (StatementText statement : statements) {
            String name = databaseToFree(statement.tokens());
            if (name != null) {
                names.add(name);
            }
        }
        return names;
    }

    private static String databaseToFree(List<Token> t) {
        if (t.size() < 3 || !t.get(1).isWord("database")) {
            return null;
        }
        if (t.getFirst().isWord("drop")) {
            int at = t.size() > 4 && t.get(2).isWord("if") && t.get(3).isWord("exists") ? 4 : 2;
            return name(t, at);
        }
        if (t.getFirst().isWord("alter") && t.size() >= 5
                && (t.get(3).isWord("rename") || t.get(3).isWord("set") && t.get(4).isWord("tablespace"))) {
            return name(t, 2);
        }
        if (t.getFirst().isWord("create")) {
            return template(t);
        }
        return null;
    }

    private static String template(List<Token> t) {
        for (int i = 3; i < t.size() - 1; i++) {
            if (t.get(i).isWord("template")) {
                int at = t.get(i + 1).kind() == Token.Kind.OPERATOR && t.get(i + 1).text().equals("=") ? i + 2 : i + 1;
                if (at < t.size() && t.get(at).isWord("default")) {
                    return DEFAULT_TEMPLATE;
                }
                return name(t, at);
            }
        }
        return DEFAULT_TEMPLATE;
    }

    /** An identifier, quoted or not, or a string (CREATE DATABASE options take either). */
    private static String name(List<Token> t, int at) {
        if (at >= t.size()) {
            return null;
        }
        Token token = t.get(at);
        return switch (token.kind()) {
            case WORD, QUOTED_IDENTIFIER, STRING -> token.value();
            default -> null;
        };
    }

    private static boolean mentionsDatabase(String sql) {
        int last = sql.length() - "database".length();
        for (int i = 0; i <= last; i++) {
            char c = sql.charAt(i);
            if ((c == 'd' || c == 'D') && sql.regionMatches(true, i, "database", 0, "database".length())) {
                return true;
            }
        }
        return false;
    }
}
