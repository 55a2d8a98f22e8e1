package io.pgward.guard.policy;

import io.pgward.guard.Verdict;
import io.pgward.guard.classify.ReadOnlyClassifier;
import io.pgward.guard.lexer.LexerException;
import io.pgward.guard.lexer.SqlLexer;
import io.pgward.guard.lexer.StatementText;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The checks {@link GuardPipeline#checkAhead} started that are still running, each under everything the decision's
 * call of {@link GuardPipeline#proveOrRewrite} passes: that call takes the running check, the very stage it would
 * have started itself, instead of repeating on the session's event loop what the check ahead already did (the
 * catalog rewrite, the statement's shape, the cache lookups) only to join it. A check leaves when it completes or is
 * taken; a decision that comes later finds its verdict cached.
 */
final class ChecksAhead {

    /** Checks kept at most; past it a check ahead still runs, and its decision joins it the longer way. */
    static final int MAX_KEPT = 10_000;

    /** A decision's arguments; the login by identity (a session passes the same policy every time). */
    record Key(LoginPolicy login, String database, String text, List<String> statements, String searchPath,
               boolean standardConformingStrings, List<Integer> parameterTypes, boolean simpleQuery) {

        static Key of(LoginPolicy login, String database, String text, List<StatementText> reads, String searchPath,
                      boolean standardConformingStrings, List<Integer> parameterTypes, boolean simpleQuery) {
            return new Key(login, database, text, reads.stream().map(StatementText::text).toList(), searchPath,
                    standardConformingStrings, List.copyOf(parameterTypes), simpleQuery);
        }

        @Override
        public boolean equals(Object other) {
            return other instanceof Key k && login == k.login && database.equals(k.database) && text.equals(k.text)
                    && statements.equals(k.statements) && Objects.equals(searchPath, k.searchPath)
                    && standardConformingStrings == k.standardConformingStrings
                    && parameterTypes.equals(k.parameterTypes) && simpleQuery == k.simpleQuery;
        }

        @Override
        public int hashCode() {
            return Objects.hash(System.identityHashCode(login), database, text, searchPath, parameterTypes);
        }
    }

    private final ConcurrentHashMap<Key, CompletableFuture<Verdict>> running = new ConcurrentHashMap<>();

    /** The text's one statement, when it is one and starts a query; empty otherwise. */
    static List<StatementText> oneQuery(String text, boolean standardConformingStrings) {
        try {
            List<StatementText> statements = SqlLexer.split(text, standardConformingStrings);
            return statements.size() == 1 && ReadOnlyClassifier.startsQuery(statements.get(0).tokens().get(0))
                    ? statements : List.of();
        } catch (LexerException e) {
            return List.of();
        }
    }

    /** Keeps {@code check}, the stage of {@code proveOrRewrite} for {@code key}, until it completes or is taken. */
    void keep(Key key, CompletableFuture<Verdict> check) {
        if (running.size() < MAX_KEPT && running.putIfAbsent(key, check) == null) {
            check.whenComplete((verdict, failure) -> running.remove(key, check));
        }
    }

    /** The running check kept under {@code key}, taken; null when there is none. */
    CompletableFuture<Verdict> take(Key key) {
        return running.isEmpty() ? null : running.remove(key);
    }

    /** Checks running now, for tests. */
    int kept() {
        return running.size();
    }

    /** After a schema change a decision starts its own check, under the new schema. */
    void clear() {
        running.clear();
    }
}
