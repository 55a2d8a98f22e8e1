package io.pgward.guard;

import io.pgward.guard.classify.Decision;
import io.pgward.guard.classify.ReadOnlyClassifier;
import io.pgward.guard.classify.ReadOnlyPolicy;
import io.pgward.guard.lexer.LexerException;
import io.pgward.guard.lexer.SqlLexer;
import io.pgward.guard.lexer.StatementText;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The read-only guard for whole statement texts: layer L1 (PostgreSQL's lexical rules split the text exactly
 * where the server will) then layer L2 (each statement classified). The first refusal refuses the text.
 *
 * <p>Verdicts are cached per (login, standard_conforming_strings, text), bounded, except for texts whose
 * verdict depends on the session's declared cursors (DECLARE, FETCH, MOVE, CLOSE). One instance serves every
 * session of a pgward; it is thread-safe.
 */
public final class ReadOnlyGuard implements AutoCloseable {

    private static final int CACHE_LIMIT = 10_000;
    private static final Set<String> CURSOR_WORDS = Set.of("declare", "fetch", "move", "close");

    private record Key(String login, boolean standardConformingStrings, String sql) {
    }

    /** The decision for a whole text, and the cursors it declares (at most one per DECLARE). */
    public record Outcome(Decision decision, List<String> declaredCursors) {
    }

    private final ReadOnlyClassifier classifier = new ReadOnlyClassifier();
    private final ConcurrentHashMap<Key, Outcome> cache = new ConcurrentHashMap<>();

    public Outcome check(String sql, boolean standardConformingStrings, ReadOnlyPolicy policy,
                         Set<String> declaredCursors) {
        Key key = new Key(policy.login(), standardConformingStrings, sql);
        Outcome cached = cache.get(key);
        if (cached != null) {
            return cached;
        }
        List<StatementText> statements;
        try {
            statements = SqlLexer.split(sql, standardConformingStrings);
        } catch (LexerException e) {
            return new Outcome(new Decision.Refuse("lexical", "pgward refused this statement: it cannot be read as "
                    + "PostgreSQL would read it (" + e.getMessage() + ")", e.position() + 1), List.of());
        }
        boolean cursorDependent = false;
        List<String> declared = new java.util.ArrayList<>();
        Set<String> known = new java.util.HashSet<>(declaredCursors);
        for (StatementText statement : statements) {
            cursorDependent |= CURSOR_WORDS.contains(statement.tokens().get(0).value());
            Decision decision = classifier.classify(statement, policy, known);
            if (decision instanceof Decision.Refuse) {
                return remember(key, new Outcome(decision, List.of()), cursorDependent);
            }
            Optional<String> cursor = ((Decision.Allow) decision).declaredCursor();
            cursor.ifPresent(name -> {
                declared.add(name);
                known.add(name);
            });
        }
        return remember(key, new Outcome(Decision.ALLOW, List.copyOf(declared)), cursorDependent);
    }

    private Outcome remember(Key key, Outcome outcome, boolean cursorDependent) {
        if (!cursorDependent) {
            if (cache.size() >= CACHE_LIMIT) {
                cache.clear();
            }
            cache.put(key, outcome);
        }
        return outcome;
    }

    @Override
    public void close() {
        classifier.close();
    }
}
