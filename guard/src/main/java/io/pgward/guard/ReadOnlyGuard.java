package io.pgward.guard;

import io.pgward.guard.classify.ComplexityEnvelope;
import io.pgward.guard.classify.ReadOnlyClassifier;
import io.pgward.guard.classify.ReadOnlyPolicy;
import io.pgward.guard.classify.Refusals;
import io.pgward.guard.lexer.LexerException;
import io.pgward.guard.lexer.SqlLexer;
import io.pgward.guard.lexer.StatementText;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The read-only guard for whole statement texts: layer L1 (PostgreSQL's lexical rules split the text exactly
 * where the server will) then layer L2 (each statement classified). The first refusal refuses the text.
 *
 * <p>The work per text is bounded ({@link ComplexityEnvelope}): a text longer than
 * {@link ComplexityEnvelope#MAX_TEXT_CHARS} is refused before it is lexed, and a query beyond JSqlParser's envelope
 * is refused as too complex, or, when the catalog check follows, left to it after the token checks. A refusal for
 * complexity carries SQLSTATE 54001 (see {@link Refusals}).
 *
 * <p>Classifications are cached per (login, standard_conforming_strings, text), bounded, except for texts whose
 * verdict depends on the session's declared cursors (DECLARE, FETCH, MOVE, CLOSE). An allow is also cached per
 * (policy, standard_conforming_strings, {@link TextShape}): a text of queries that differs from an allowed one only
 * in constants whose values cannot change L1's or L2's verdict gets that allow without JSqlParser, with its own
 * statements for L3. One instance serves every session of a pgward; it is thread-safe.
 */
public final class ReadOnlyGuard implements AutoCloseable {

    private static final int CACHE_LIMIT = 10_000;
    /**
     * The longest text whose shape {@link #cached} looks up on the caller's thread (an event loop): L1 and the
     * shape's key read it in a few microseconds, where a text that goes to {@link #check} pays a thread hop both ways.
     */
    public static final int SHAPE_ON_CALLER_MAX_CHARS = 512;
    private static final Set<String> CURSOR_WORDS = Set.of("declare", "fetch", "move", "close");

    private record Key(String login, boolean standardConformingStrings, String sql) {
    }

    private record ShapeKey(ReadOnlyPolicy policy, boolean standardConformingStrings, String shape) {
    }

    /**
     * How L1 and L2 classify a whole text: their {@link Verdict} ({@link Verdict.Allow} or {@link Verdict.Refuse}),
     * and what a session needs to know about an allowed text. Not the final verdict: the gate adds the session's
     * state (cursors, search_path), and L3 still proves {@link #reads()}.
     *
     * @param verdict L1 and L2's verdict: {@link Verdict#ALLOW} or a {@link Verdict.Refuse}
     * @param declaredCursors the cursors it declares (at most one per DECLARE), as
     *                        {@link ReadOnlyClassifier#declaredCursor} reads them; empty for a refused text
     * @param reads the statements that read relations (queries, and EXPLAIN, DECLARE or COPY of one), in order,
     *              for the catalog check
     * @param setsSearchPath a statement may change search_path: SET or RESET of it (or SCHEMA, or ALL), DISCARD ALL
     * @param endsTransaction a statement ends a transaction or rolls back to a savepoint, which undoes a SET made
     *                        inside it
     * @param readsAfterChange a statement that reads follows one of the two kinds above in the same text, so it
     *                         resolves names with a search_path nobody has seen yet
     */
    public record Classification(Verdict verdict, List<String> declaredCursors, List<StatementText> reads,
                                 boolean setsSearchPath, boolean endsTransaction, boolean readsAfterChange) {

        static Classification refused(Verdict.Refuse refuse) {
            return new Classification(refuse, List.of(), List.of(), false, false, false);
        }
    }

    private static final Set<String> READ_WRAPPERS = Set.of("explain", "declare", "copy");
    private static final Set<String> TRANSACTION_ENDS = Set.of("commit", "end", "rollback", "abort");
    private static final Set<String> PATH_SETTINGS = Set.of("search_path", "schema", "all");

    private final ReadOnlyClassifier classifier = new ReadOnlyClassifier();
    private final ConcurrentHashMap<Key, Classification> cache = new ConcurrentHashMap<>();
    // Shapes of allowed texts; a value is only ever TRUE. Refusals are never shared.
    private final ConcurrentHashMap<ShapeKey, Boolean> allowedShapes = new ConcurrentHashMap<>();
    private final boolean catalogCheckFollows;
    private final boolean sharesByShape;

    /** A guard whose verdicts are final: a query JSqlParser cannot parse is refused. */
    public ReadOnlyGuard() {
        this(false);
    }

    /**
     * @param catalogCheckFollows every allowed read is then proven by PostgreSQL's own analysis (layer L3), so a
     *                            query that passes the token checks but that JSqlParser cannot parse, or must not be
     *                            given (beyond its envelope), is left to it (in {@link Classification#reads()})
     *                            instead of refused
     */
    public ReadOnlyGuard(boolean catalogCheckFollows) {
        this(catalogCheckFollows, true);
    }

    /**
     * @param catalogCheckFollows as for {@link #ReadOnlyGuard(boolean)}
     * @param sharesByShape false: every text not cached by itself takes the full path, as before allows were shared
     *                      by shape (for comparisons: tests and benchmarks)
     */
    public ReadOnlyGuard(boolean catalogCheckFollows, boolean sharesByShape) {
        this.catalogCheckFollows = catalogCheckFollows;
        this.sharesByShape = sharesByShape;
    }

    /**
     * The cached classification for this text, or null when it must be computed ({@link #check}); lets a caller keep
     * the slow path (JSqlParser takes milliseconds for a long query) off a thread that must not block. A text of at
     * most {@link #SHAPE_ON_CALLER_MAX_CHARS} characters not seen before is lexed here to look up its shape.
     */
    public Classification cached(String sql, boolean standardConformingStrings, ReadOnlyPolicy policy) {
        if (sql.length() > ComplexityEnvelope.MAX_TEXT_CHARS) {
            return null;
        }
        Classification cached = cache.get(new Key(policy.login(), standardConformingStrings, sql));
        if (cached != null || sql.length() > SHAPE_ON_CALLER_MAX_CHARS || allowedShapes.isEmpty()) {
            return cached;
        }
        try {
            return byShape(SqlLexer.split(sql, standardConformingStrings), standardConformingStrings, policy);
        } catch (LexerException e) {
            return null;   // check() refuses it, with the lexer's message
        }
    }

    /**
     * Whether L1 and L2 have allowed a text with this shape key ({@link ShapeTemplate#shapeKey}) for this login: a
     * text of that shape gets their allow, as {@link #cached} would give it.
     */
    public boolean allowsShape(String shapeKey, boolean standardConformingStrings, ReadOnlyPolicy policy) {
        return allowedShapes.containsKey(new ShapeKey(policy, standardConformingStrings, shapeKey));
    }

    /** The allow of an already allowed text of the same shape, for these statements; null when there is none. */
    private Classification byShape(List<StatementText> statements, boolean standardConformingStrings,
                                   ReadOnlyPolicy policy) {
        String shape = TextShape.key(statements);
        if (shape == null || !allowedShapes.containsKey(new ShapeKey(policy, standardConformingStrings, shape))) {
            return null;
        }
        return allowed(statements, List.of());
    }

    public Classification check(String sql, boolean standardConformingStrings, ReadOnlyPolicy policy,
                                Set<String> declaredCursors) {
        if (sql.length() > ComplexityEnvelope.MAX_TEXT_CHARS) {
            // Neither hashed nor remembered: the cache would hash and hold the whole text.
            return Classification.refused(Refusals.tooLong(sql.length()));
        }
        Key key = new Key(policy.login(), standardConformingStrings, sql);
        Classification cached = cache.get(key);
        if (cached != null) {
            return cached;
        }
        List<StatementText> statements;
        try {
            statements = SqlLexer.split(sql, standardConformingStrings);
        } catch (LexerException e) {
            return Classification.refused(Refusals.lexical(e));
        }
        String shape = sharesByShape ? TextShape.key(statements) : null;
        ShapeKey shapeKey = shape == null ? null : new ShapeKey(policy, standardConformingStrings, shape);
        if (shapeKey != null && allowedShapes.containsKey(shapeKey)) {
            // Not remembered by text: every new literal would push a text that was judged in full out of the cache.
            return allowed(statements, List.of());
        }
        boolean cursorDependent = false;
        List<String> declared = new java.util.ArrayList<>();
        Set<String> known = new java.util.HashSet<>(declaredCursors);
        for (StatementText statement : statements) {
            cursorDependent |= CURSOR_WORDS.contains(statement.tokens().get(0).value());
            Verdict verdict = classifier.classify(statement, policy, known);
            if (catalogCheckFollows && verdict instanceof Verdict.Refuse r
                    && (r.rule().equals(Refusals.UNPARSED_QUERY)
                    || r.rule().equals(Refusals.TOO_COMPLEX_TO_PARSE))
                    && ReadOnlyClassifier.startsQuery(statement.tokens().get(0))) {
                continue;
            }
            if (verdict instanceof Verdict.Refuse r && r.rule().equals(Refusals.SYNTAX_ERROR)) {
                // PostgreSQL parses the whole text before it runs any of it, and counts the position in characters.
                int start = statement.tokens().get(0).start();
                verdict = new Verdict.Refuse(r.sqlState(), r.message(), sql.codePointCount(0, start) + 1, r.rule());
            }
            if (verdict instanceof Verdict.Refuse refuse) {
                return remember(key, Classification.refused(refuse), cursorDependent);
            }
            // Allowed: a DECLARE among the statements opens its cursor for the FETCH, MOVE or CLOSE that follow.
            ReadOnlyClassifier.declaredCursor(statement).ifPresent(name -> {
                declared.add(name);
                known.add(name);
            });
        }
        if (shapeKey != null) {
            if (allowedShapes.size() >= CACHE_LIMIT) {
                allowedShapes.clear();
            }
            allowedShapes.put(shapeKey, Boolean.TRUE);
        }
        return remember(key, allowed(statements, declared), cursorDependent);
    }

    private static Classification allowed(List<StatementText> statements, List<String> declared) {
        List<StatementText> reads = new java.util.ArrayList<>();
        boolean setsPath = false;
        boolean endsTransaction = false;
        boolean readsAfterChange = false;
        for (StatementText statement : statements) {
            List<io.pgward.guard.lexer.Token> tokens = statement.tokens();
            String first = tokens.get(0).value();
            if (io.pgward.guard.classify.ReadOnlyClassifier.startsQuery(tokens.get(0)) || READ_WRAPPERS.contains(first)) {
                reads.add(statement);
                readsAfterChange |= setsPath || endsTransaction;
            } else if (first.equals("discard") && statements.size() > 1) {
                // PostgreSQL runs the statements of one Query in an implicit transaction block, where DISCARD ALL
                // fails (25001) before anything after it runs: it changes nothing for the statements that follow.
                continue;
            } else if (first.equals("set") || first.equals("reset") || first.equals("discard")) {
                // PostgreSQL finds a setting by its name in any case, quoted or not ("SEARCH_PATH" too).
                setsPath |= tokens.stream().limit(3)
                        .anyMatch(t -> PATH_SETTINGS.contains(t.value().toLowerCase(java.util.Locale.ROOT)));
            } else if (TRANSACTION_ENDS.contains(first)) {
                endsTransaction = true;
            }
        }
        return new Classification(Verdict.ALLOW, List.copyOf(declared), List.copyOf(reads), setsPath, endsTransaction,
                readsAfterChange);
    }

    private Classification remember(Key key, Classification classification, boolean cursorDependent) {
        if (!cursorDependent) {
            if (cache.size() >= CACHE_LIMIT) {
                cache.clear();
            }
            cache.put(key, classification);
        }
        return classification;
    }

    @Override
    public void close() {
        classifier.close();
    }
}
