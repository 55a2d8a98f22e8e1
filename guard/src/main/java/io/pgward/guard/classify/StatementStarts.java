package io.pgward.guard.classify;

import io.pgward.guard.lexer.Token;
import java.util.Set;

/**
 * The words a PostgreSQL statement can begin with. In PostgreSQL's grammar (gram.y, the stmt rule) every statement
 * begins with one of these keywords or with {@code (}; a statement whose first token is any other word is a syntax
 * error at that word, so it can never run, and pgward answers it with PostgreSQL's own error (42601) instead of a
 * refusal. The set is the union over PostgreSQL 14 to 18 (MERGE is new in 15): a word that starts a statement in
 * any supported release is never called a syntax error.
 */
final class StatementStarts {

    private static final Set<String> WORDS = Set.of("abort", "alter", "analyse", "analyze", "begin", "call",
            "checkpoint", "close", "cluster", "comment", "commit", "copy", "create", "deallocate", "declare", "delete",
            "discard", "do", "drop", "end", "execute", "explain", "fetch", "grant", "import", "insert", "listen",
            "load", "lock", "merge", "move", "notify", "prepare", "reassign", "refresh", "reindex", "release",
            "reset", "revoke", "rollback", "savepoint", "security", "select", "set", "show", "start", "table",
            "truncate", "unlisten", "update", "vacuum", "values", "with");

    /**
     * Words PostgreSQL's scanner reads one token past (base_yylex in parser.c) before the grammar sees them; the
     * error text for them depends on what follows, so pgward does not predict it.
     */
    private static final Set<String> LOOKAHEAD = Set.of("not", "nulls", "with", "without", "format");

    /**
     * Identifiers of NAMEDATALEN bytes or more get a truncation NOTICE from the scanner first; only ASCII words are
     * predicted, so the error text is the same in every client encoding.
     */
    private static final int NAME_BYTES = 63;

    private StatementStarts() {
    }

    /**
     * Whether PostgreSQL's grammar rejects a statement that begins with {@code first} at that token, with exactly
     * {@code syntax error at or near "<its text>"}: an unquoted ASCII word that begins no statement.
     */
    static boolean syntaxErrorAt(Token first) {
        return first.kind() == Token.Kind.WORD && !WORDS.contains(first.value()) && !LOOKAHEAD.contains(first.value())
                && first.text().length() <= NAME_BYTES && first.text().chars().allMatch(c -> c < 0x80);
    }
}
