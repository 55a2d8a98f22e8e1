package io.pgward.guard.classify;

import io.pgward.guard.Verdict;
import io.pgward.guard.lexer.StatementText;
import io.pgward.guard.lexer.Token;
import io.pgward.guard.lexer.Token.Kind;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * L2 of the guard: decides from one statement's syntax whether a read-only login may run it.
 *
 * <p>Allowed: SELECT, VALUES, TABLE and WITH that only read (checked by {@link QueryCheck}); EXPLAIN of those without
 * ANALYZE ({@code ANALYZE false} is fine); SHOW, SET and RESET within {@link SessionCommands}' allow-lists; BEGIN /
 * START TRANSACTION (not READ WRITE), COMMIT / END, ROLLBACK / ABORT, SAVEPOINT, RELEASE, ROLLBACK TO; DISCARD;
 * DEALLOCATE; DECLARE without HOLD over an allowed query, and FETCH / MOVE / CLOSE of a cursor declared that way;
 * {@code COPY relation | (query) TO STDOUT}. Everything else is refused, naming what was refused; text that cannot
 * be read with certainty is refused too (fail closed).
 *
 * <p>The statement is one statement as the lexer split it (comments are not among its tokens). Utility commands are
 * decided from the tokens; queries are parsed with JSqlParser. Thread-safe: one instance serves every session.
 * {@link #close()} stops the parser's threads.
 */
public final class ReadOnlyClassifier implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(ReadOnlyClassifier.class);

    /** First words of statements refused whole: named in the message with the words that follow (see kindName). */
    private static final Set<String> OBJECT_COMMANDS = Set.of("create", "alter", "drop", "refresh");
    private static final Set<String> OBJECT_MODIFIERS = Set.of("or", "replace", "temp", "temporary", "unlogged",
            "global", "local", "unique", "trusted", "procedural", "recursive", "constraint");
    /** Object kinds of two words: the first word and the second words it takes. */
    private static final Map<String, Set<String>> TWO_WORD_KINDS = Map.of("materialized", Set.of("view"),
            "foreign", Set.of("table", "data"), "event", Set.of("trigger"), "text", Set.of("search"),
            "access", Set.of("method"), "large", Set.of("object"), "default", Set.of("privileges"),
            "user", Set.of("mapping"), "operator", Set.of("class", "family"));
    private static final Set<String> FETCH_WORDS = Set.of("next", "prior", "first", "last", "absolute", "relative",
            "all", "forward", "backward", "from", "in");

    private final QueryParser parser = new QueryParser();
    private final QueryCheck queries = new QueryCheck(DeniedFunctions.load(), parser);

    /** Whether a statement starting with this token is a query (SELECT, VALUES, TABLE, WITH, or one in parentheses). */
    public static boolean startsQuery(Token first) {
        return QueryCheck.startsQuery(first);
    }

    /**
     * The cursor a {@code DECLARE} statement opens, its name as PostgreSQL folds it; empty for any other statement,
     * or a DECLARE without a name.
     *
     * <p>Why a separate accessor and not a field of the verdict: the name is a fact of the text, read from its
     * second token, while {@link #classify} answers only whether the statement may run, in the guard's one
     * verdict type ({@link Verdict#ALLOW} or a {@link Verdict.Refuse}), which the gates and the relay share and
     * which has no place for it. A wrapper record around the verdict would make every caller unwrap it for the one
     * statement kind that has a name to report. The cursor is opened only when the DECLARE is allowed, so the caller
     * asks after an allow (a refused DECLARE opens nothing); {@code ReadOnlyGuard} does, and reports the names in
     * its {@code Classification#declaredCursors()}. {@link #classify} refuses a DECLARE for which this finds no name,
     * so every allowed DECLARE has one.
     */
    public static Optional<String> declaredCursor(StatementText statement) {
        List<Token> tokens = statement.tokens();
        if (tokens.size() < 2 || !tokens.get(0).isWord("declare")) {
            return Optional.empty();
        }
        return Optional.ofNullable(TokenReader.identifier(tokens.get(1)));
    }

    /** Decides one statement of a session that has declared no cursor through pgward. */
    public Verdict classify(StatementText statement, ReadOnlyPolicy policy) {
        return classify(statement, policy, Set.of());
    }

    /**
     * Decides one statement.
     *
     * @param declaredCursors names of the cursors this session declared through pgward (each an allowed DECLARE's
     *                        {@link #declaredCursor(StatementText)}); FETCH, MOVE and CLOSE of any other cursor are
     *                        refused, because pgward cannot see what it reads
     * @return {@link Verdict#ALLOW} or a {@link Verdict.Refuse} with the rule that fired (see {@link Refusals})
     */
    public Verdict classify(StatementText statement, ReadOnlyPolicy policy, Set<String> declaredCursors) {
        try {
            if (statement.tokens().isEmpty()) {
                return Refusals.unparseable("the statement is empty", null);
            }
            return decide(statement, policy, declaredCursors);
        } catch (RuntimeException e) {
            // A fault, not an outcome: refuse (fail closed). No SQL at WARN; the stack trace goes to DEBUG.
            log.warn("statement classification failed with {}; the statement is refused", e.getClass().getName());
            log.debug("statement classification failure", e);
            return Refusals.guardError(e.getClass().getSimpleName(), statement.tokens().isEmpty() ? null
                    : statement.tokens().get(0));
        }
    }

    private Verdict decide(StatementText statement, ReadOnlyPolicy policy, Set<String> declaredCursors) {
        List<Token> tokens = statement.tokens();
        Token first = tokens.get(0);
        if (QueryCheck.startsQuery(first)) {
            return queries.check(statement, policy);
        }
        String word = first.kind() == Kind.WORD ? first.value() : "";
        return switch (word) {
            case "explain" -> explain(statement, policy);
            case "show" -> SessionCommands.show(tokens, policy);
            case "set" -> SessionCommands.set(tokens, policy);
            case "reset" -> SessionCommands.reset(tokens, policy);
            case "begin", "start" -> SessionCommands.begin(tokens, policy);
            case "commit", "end", "rollback", "abort" -> SessionCommands.endTransaction(tokens, policy);
            case "savepoint", "release" -> SessionCommands.savepoint(tokens);
            case "discard" -> discard(tokens);
            case "deallocate" -> deallocate(tokens);
            case "declare" -> declare(statement, policy);
            case "fetch", "move" -> fetch(tokens, policy, declaredCursors);
            case "close" -> close(tokens, policy, declaredCursors);
            case "copy" -> copy(statement, policy);
            default -> StatementStarts.syntaxErrorAt(first) ? Refusals.syntaxError(first)
                    : Refusals.notAllowed(Refusals.STATEMENT_KIND, kindName(tokens, 0), policy, first);
        };
    }

    /** Classifies the query a wrapper (EXPLAIN, DECLARE, COPY) holds, from token {@code from} up to {@code to}. */
    private Verdict innerQuery(StatementText statement, int from, int to, ReadOnlyPolicy policy) {
        List<Token> tokens = statement.tokens();
        if (from >= to) {
            return Refusals.unparseable("a query is missing", tokens.get(tokens.size() - 1));
        }
        Token first = tokens.get(from);
        if (!QueryCheck.startsQuery(first)) {
            return Refusals.notAllowed(Refusals.STATEMENT_KIND, kindName(tokens, from), policy, first);
        }
        return queries.check(slice(statement, from, to), policy);
    }

    static StatementText slice(StatementText statement, int from, int to) {
        List<Token> tokens = statement.tokens();
        int begin = tokens.get(from).start() - statement.start();
        int end = tokens.get(to - 1).end() - statement.start();
        return new StatementText(statement.text().substring(begin, end), tokens.get(from).start(),
                tokens.subList(from, to));
    }

    // ---------------------------------------------------------------------------------------------------------
    // EXPLAIN

    /**
     * {@code EXPLAIN [ANALYZE] [VERBOSE] query} and {@code EXPLAIN (option [value], ...) query}. ANALYZE runs the
     * statement, so it is refused unless its value is false: PostgreSQL's defGetBoolean reads only true / false / on
     * / off / 1 / 0 (as a word, string or number) and no value means true; anything but false, off or 0 counts as
     * analyzing. A repeated option is checked every time.
     */
    private Verdict explain(StatementText statement, ReadOnlyPolicy policy) {
        List<Token> tokens = statement.tokens();
        TokenReader r = new TokenReader(tokens, 1);
        if (r.acceptSymbol("(")) {
            int close = TokenReader.closingParen(tokens, 1);
            if (close < 0) {
                return Refusals.unparseable("EXPLAIN options are not closed", tokens.get(1));
            }
            while (r.index() < close) {
                Token option = r.next();
                String name = TokenReader.identifier(option);
                if (name == null) {
                    return Refusals.unparseable("unexpected " + option.text() + " in EXPLAIN options", option);
                }
                StringBuilder value = new StringBuilder();
                while (r.index() < close && !TokenReader.isSymbol(r.peek(), ",")) {
                    value.append(r.next().value());
                }
                r.acceptSymbol(",");
                if ((name.equals("analyze") || name.equals("analyse")) && !isFalse(value.toString())) {
                    return Refusals.notAllowed(Refusals.EXPLAIN_ANALYZE, "EXPLAIN ANALYZE", policy, option);
                }
            }
            r.next();   // the closing parenthesis
        } else {
            while (r.peekWord("analyze") || r.peekWord("analyse") || r.peekWord("verbose")) {
                Token word = r.next();
                if (!word.isWord("verbose")) {
                    return Refusals.notAllowed(Refusals.EXPLAIN_ANALYZE, "EXPLAIN ANALYZE", policy, word);
                }
            }
        }
        return innerQuery(statement, r.index(), tokens.size(), policy);
    }

    private static boolean isFalse(String value) {
        String v = value.strip().toLowerCase(Locale.ROOT);
        return v.equals("false") || v.equals("off") || v.equals("0");
    }

    // ---------------------------------------------------------------------------------------------------------
    // Cursors and prepared statements

    /**
     * {@code DECLARE name [BINARY] [ASENSITIVE | INSENSITIVE] [[NO] SCROLL] CURSOR [WITH | WITHOUT HOLD] FOR query}.
     * WITH HOLD is refused: the cursor outlives its transaction and is materialised with its results.
     */
    private Verdict declare(StatementText statement, ReadOnlyPolicy policy) {
        List<Token> tokens = statement.tokens();
        TokenReader r = new TokenReader(tokens, 1);
        Token nameToken = r.next();
        if (declaredCursor(statement).isEmpty()) {
            return Refusals.unparseable("DECLARE without a cursor name", tokens.get(0));
        }
        while (r.acceptWord("binary") || r.acceptWord("insensitive") || r.acceptWord("asensitive")
                || r.acceptWord("scroll") || r.acceptWords("no", "scroll")) {
            // options that only shape how rows are fetched
        }
        if (!r.acceptWord("cursor")) {
            return Refusals.unparseable("DECLARE without CURSOR", r.peek() == null ? nameToken : r.peek());
        }
        Token hold = r.peek();
        if (r.acceptWords("with", "hold")) {
            return Refusals.notAllowed(Refusals.CURSOR, "DECLARE ... WITH HOLD", policy, hold);
        }
        r.acceptWords("without", "hold");
        if (!r.acceptWord("for")) {
            return Refusals.unparseable("DECLARE without FOR", r.peek() == null ? nameToken : r.peek());
        }
        return innerQuery(statement, r.index(), tokens.size(), policy);
    }

    /** {@code FETCH | MOVE [direction] [FROM | IN] cursor}: only of a cursor this session declared through pgward. */
    private static Verdict fetch(List<Token> tokens, ReadOnlyPolicy policy, Set<String> declaredCursors) {
        String command = tokens.get(0).value().toUpperCase(Locale.ROOT);
        Token cursor = tokens.get(tokens.size() - 1);
        if (tokens.size() < 2 || TokenReader.identifier(cursor) == null) {
            return Refusals.unparseable(command + " without a cursor name", cursor);
        }
        for (int i = 1; i < tokens.size() - 1; i++) {
            Token t = tokens.get(i);
            boolean sign = t.kind() == Kind.OPERATOR && (t.text().equals("-") || t.text().equals("+"))
                    && tokens.get(i + 1).kind() == Kind.NUMBER && tokens.get(i - 1).kind() != Kind.NUMBER;
            boolean direction = (t.kind() == Kind.WORD && FETCH_WORDS.contains(t.value()))
                    || t.kind() == Kind.NUMBER || sign;
            if (!direction) {
                return Refusals.unparseable("unexpected " + t.text() + " in " + command, t);
            }
        }
        return knownCursor(command, cursor, policy, declaredCursors);
    }

    /** {@code CLOSE cursor}. CLOSE ALL is refused: it reaches cursors pgward did not see declared. */
    private static Verdict close(List<Token> tokens, ReadOnlyPolicy policy, Set<String> declaredCursors) {
        if (tokens.size() == 2 && tokens.get(1).isWord("all")) {
            return Refusals.notAllowed(Refusals.CURSOR, "CLOSE ALL", policy, tokens.get(0));
        }
        if (tokens.size() != 2 || TokenReader.identifier(tokens.get(1)) == null) {
            return Refusals.unparseable("CLOSE takes one cursor name", tokens.get(tokens.size() - 1));
        }
        return knownCursor("CLOSE", tokens.get(1), policy, declaredCursors);
    }

    private static Verdict knownCursor(String command, Token cursor, ReadOnlyPolicy policy, Set<String> declared) {
        return declared.contains(cursor.value()) ? Verdict.ALLOW
                : Refusals.notAllowed(Refusals.CURSOR, command + " of a cursor not declared through pgward",
                        policy, cursor);
    }

    /** {@code DEALLOCATE [PREPARE] name | ALL}: dropping a prepared statement cannot read or write anything. */
    private static Verdict deallocate(List<Token> tokens) {
        TokenReader r = new TokenReader(tokens, 1);
        r.acceptWord("prepare");
        return SessionCommands.oneName(r, "DEALLOCATE", tokens.get(0));
    }

    /**
     * {@code DISCARD ALL | PLANS | SEQUENCES | TEMP | TEMPORARY}: back to the session's startup state, which for a
     * read-only login includes {@code default_transaction_read_only=on} (see {@link SessionCommands}).
     */
    private static Verdict discard(List<Token> tokens) {
        if (tokens.size() == 2 && Set.of("all", "plans", "sequences", "temp", "temporary")
                .contains(tokens.get(1).kind() == Kind.WORD ? tokens.get(1).value() : "")) {
            return Verdict.ALLOW;
        }
        return Refusals.unparseable("DISCARD takes ALL, PLANS, SEQUENCES or TEMP", tokens.get(tokens.size() - 1));
    }

    // ---------------------------------------------------------------------------------------------------------
    // COPY

    /**
     * {@code COPY [BINARY] relation [(columns)] TO STDOUT [options]} and {@code COPY (query) TO STDOUT [options]}.
     * COPY FROM writes; COPY TO a file or PROGRAM reaches the server's file system. Which relation may be read is
     * decided by the catalog check (L3), as for a query.
     */
    private Verdict copy(StatementText statement, ReadOnlyPolicy policy) {
        List<Token> tokens = statement.tokens();
        TokenReader r = new TokenReader(tokens, 1);
        r.acceptWord("binary");
        int innerFrom = -1;
        int innerTo = -1;
        if (r.peek() != null && TokenReader.isSymbol(r.peek(), "(")) {
            int close = TokenReader.closingParen(tokens, r.index());
            if (close < 0) {
                return Refusals.unparseable("the query of COPY is not closed", r.peek());
            }
            innerFrom = r.index() + 1;
            innerTo = close;
            r = new TokenReader(tokens, close + 1);
        } else {
            if (TokenReader.identifier(r.next()) == null) {
                return Refusals.unparseable("COPY without a relation or query", tokens.get(0));
            }
            while (r.acceptSymbol(".")) {
                if (TokenReader.identifier(r.next()) == null) {
                    return Refusals.unparseable("COPY with an incomplete relation name", tokens.get(0));
                }
            }
            if (r.peek() != null && TokenReader.isSymbol(r.peek(), "(")) {
                int close = TokenReader.closingParen(tokens, r.index());
                if (close < 0) {
                    return Refusals.unparseable("the column list of COPY is not closed", r.peek());
                }
                r = new TokenReader(tokens, close + 1);
            }
        }
        Token direction = r.next();
        if (direction != null && direction.isWord("from")) {
            return Refusals.notAllowed(Refusals.COPY, "COPY ... FROM", policy, direction);
        }
        if (direction == null || !direction.isWord("to")) {
            return Refusals.unparseable("COPY without TO", direction == null ? tokens.get(0) : direction);
        }
        Token target = r.next();
        if (target == null || !target.isWord("stdout")) {
            String what = target != null && target.isWord("program") ? "COPY ... TO PROGRAM" : "COPY ... TO a file";
            return Refusals.notAllowed(Refusals.COPY, what, policy, target == null ? direction : target);
        }
        // Options only shape the output: FORMAT, HEADER, DELIMITER, NULL, QUOTE, FORCE_QUOTE, ENCODING, ...
        while (!r.atEnd()) {
            Token t = r.next();
            boolean option = t.kind() == Kind.WORD || t.kind() == Kind.STRING || t.kind() == Kind.NUMBER
                    || t.kind() == Kind.QUOTED_IDENTIFIER || t.kind() == Kind.PUNCTUATION
                    || (t.kind() == Kind.OPERATOR && t.text().equals("*"));
            if (!option) {
                return Refusals.unparseable("unexpected " + t.text() + " in the options of COPY", t);
            }
        }
        return innerFrom < 0 ? Verdict.ALLOW : innerQuery(statement, innerFrom, innerTo, policy);
    }

    // ---------------------------------------------------------------------------------------------------------

    /**
     * The statement kind named in a refusal: the first keyword in upper case, with the object kind for DDL
     * ({@code CREATE TABLE}, {@code DROP SCHEMA}, {@code ALTER ROLE}, {@code CREATE MATERIALIZED VIEW}) and
     * {@code PREPARE TRANSACTION}.
     */
    static String kindName(List<Token> tokens, int from) {
        Token first = tokens.get(from);
        if (first.kind() != Kind.WORD) {
            return "a statement that starts with " + first.text();
        }
        StringBuilder name = new StringBuilder(first.value().toUpperCase(Locale.ROOT));
        int i = from + 1;
        if (first.isWord("prepare") && i < tokens.size() && tokens.get(i).isWord("transaction")) {
            return "PREPARE TRANSACTION";
        }
        if (!OBJECT_COMMANDS.contains(first.value())) {
            return name.toString();
        }
        while (i < tokens.size() && tokens.get(i).kind() == Kind.WORD
                && OBJECT_MODIFIERS.contains(tokens.get(i).value())) {
            i++;
        }
        if (i < tokens.size() && tokens.get(i).kind() == Kind.WORD) {
            String kind = tokens.get(i).value();
            name.append(' ').append(kind.toUpperCase(Locale.ROOT));
            if (i + 1 < tokens.size() && TWO_WORD_KINDS.getOrDefault(kind, Set.of()).contains(
                    tokens.get(i + 1).kind() == Kind.WORD ? tokens.get(i + 1).value() : "")) {
                name.append(' ').append(tokens.get(i + 1).value().toUpperCase(Locale.ROOT));
            }
        }
        return name.toString();
    }

    @Override
    public void close() {
        parser.close();
    }
}
