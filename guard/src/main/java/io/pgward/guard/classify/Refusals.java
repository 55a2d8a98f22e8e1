package io.pgward.guard.classify;

import io.pgward.guard.SqlStates;
import io.pgward.guard.Verdict;
import io.pgward.guard.lexer.LexerException;
import io.pgward.guard.lexer.Token;

/**
 * The refusals of the read-only guard's L1 and L2: their rule ids, texts and SQLSTATEs, as {@link Verdict.Refuse}
 * values. Every text but the syntax error starts with {@link Verdict.Refuse#PREFIX} ({@code pgward refused this
 * query: }) and either names what is not allowed for the login, or says why the statement could not be checked.
 *
 * <p>SQLSTATEs ({@link #sqlState(String)}, the one place they are chosen): 42501 (insufficient_privilege), what
 * PostgreSQL reports for a statement the role may not run, for every rule but three. {@link #TOO_COMPLEX} and
 * {@link #TOO_COMPLEX_TO_PARSE} are 54001 (statement_too_complex), what PostgreSQL reports for a statement beyond
 * its own limits (max_stack_depth). {@link #SYNTAX_ERROR} is 42601, PostgreSQL's own error for a statement its
 * grammar rejects.
 */
public final class Refusals {

    /** A statement kind a read-only login may not run (INSERT, CREATE TABLE, VACUUM, LISTEN, ...). */
    public static final String STATEMENT_KIND = "statement-kind";
    /** {@code SELECT ... INTO}, at any depth. */
    public static final String SELECT_INTO = "select-into";
    /** {@code FOR UPDATE / NO KEY UPDATE / SHARE / KEY SHARE}, at any depth. */
    public static final String LOCKING = "locking";
    /** INSERT, UPDATE, DELETE or MERGE inside a WITH query. */
    public static final String DML_IN_CTE = "dml-in-cte";
    /** A built-in function on the deny-list (side effects, or reach outside the statement). */
    public static final String DENIED_FUNCTION = "denied-function";
    /** SET, RESET or SHOW of a setting outside the allow-list, or to a value the policy forbids. */
    public static final String SESSION_SETTING = "session-setting";
    /** Anything that would make a transaction or the session read-write. */
    public static final String READ_WRITE = "read-write";
    /** EXPLAIN that executes the statement (ANALYZE). */
    public static final String EXPLAIN_ANALYZE = "explain-analyze";
    /** COPY other than {@code TO STDOUT}. */
    public static final String COPY = "copy";
    /** DECLARE ... WITH HOLD, or FETCH / MOVE / CLOSE of a cursor this session did not declare through pgward. */
    public static final String CURSOR = "cursor";
    /** Transaction control beyond plain BEGIN / COMMIT / ROLLBACK / savepoints (AND CHAIN). */
    public static final String TRANSACTION_CONTROL = "transaction-control";
    /** L1: the text cannot be split as PostgreSQL's lexer would split it (an unterminated quote or comment, ...). */
    public static final String LEXICAL = "lexical";
    /** The text could not be parsed, so it cannot be shown to only read. */
    public static final String UNPARSEABLE = "unparseable";
    /**
     * A query that passed every token check but that JSqlParser cannot parse: refused, unless the catalog check
     * (PostgreSQL's own parse) follows and proves it.
     */
    public static final String UNPARSED_QUERY = "unparsed-query";
    /**
     * The statement begins with a word no PostgreSQL statement begins with, so PostgreSQL's grammar rejects it:
     * answered with PostgreSQL's own syntax error (42601) at that word, not a refusal.
     */
    public static final String SYNTAX_ERROR = "syntax-error";
    /**
     * The text is beyond what the guard can judge within its bounds on work per statement (see
     * {@link ComplexityEnvelope}): refused with SQLSTATE 54001, as PostgreSQL refuses what exceeds its own limits.
     */
    public static final String TOO_COMPLEX = "too-complex";
    /**
     * A query beyond the envelope in which JSqlParser's work is bounded: the token checks passed, and it is
     * refused with SQLSTATE 54001 unless the catalog check (PostgreSQL's own parse) follows and proves it.
     */
    public static final String TOO_COMPLEX_TO_PARSE = "too-complex-to-parse";
    /** The guard itself failed; it fails closed. */
    public static final String GUARD_ERROR = "guard-error";

    private Refusals() {
    }

    /** {@code pgward refused this query: <what> is not allowed for the read-only login "<login>"}. */
    static Verdict.Refuse notAllowed(String rule, String what, ReadOnlyPolicy policy, Token at) {
        return refuse(rule, Verdict.Refuse.PREFIX + what + " is not allowed for the read-only login \""
                + policy.login() + "\"", position(at));
    }

    /** For text that cannot be shown to only read: the guard fails closed. */
    static Verdict.Refuse unparseable(String detail, Token at) {
        return refuse(UNPARSEABLE,
                Verdict.Refuse.PREFIX + "it could not be parsed to prove it only reads (" + detail + ")", position(at));
    }

    /** A query only JSqlParser could not read; see {@link #UNPARSED_QUERY}. */
    static Verdict.Refuse unparsedQuery(String detail, Token at) {
        return refuse(UNPARSED_QUERY,
                Verdict.Refuse.PREFIX + "it could not be parsed to prove it only reads (" + detail + ")", position(at));
    }

    /**
     * PostgreSQL's error for a statement whose first word begins no statement ({@link StatementStarts}): the word as
     * written, at its position.
     */
    static Verdict.Refuse syntaxError(Token word) {
        return refuse(SYNTAX_ERROR, "syntax error at or near \"" + word.text() + "\"", position(word));
    }

    /** A text beyond the guard's bounds on work per statement (SQLSTATE 54001). */
    static Verdict.Refuse tooComplex(String detail, Token at) {
        return refuse(TOO_COMPLEX, tooComplexMessage(detail), position(at));
    }

    /** A text longer than the guard reads ({@link ComplexityEnvelope#MAX_TEXT_CHARS}): {@link #TOO_COMPLEX}. */
    public static Verdict.Refuse tooLong(int chars) {
        return tooComplex(chars + " characters, more than the " + ComplexityEnvelope.MAX_TEXT_CHARS
                + " the guard reads", null);
    }

    /** A query beyond JSqlParser's envelope; see {@link #TOO_COMPLEX_TO_PARSE}. */
    static Verdict.Refuse tooComplexToParse(String detail, Token at) {
        return refuse(TOO_COMPLEX_TO_PARSE, tooComplexMessage(detail), position(at));
    }

    /** {@code pgward refused this query: it is too complex to check (<detail>)}. */
    static String tooComplexMessage(String detail) {
        return Verdict.Refuse.PREFIX + "it is too complex to check (" + detail + ")";
    }

    static Verdict.Refuse guardError(String detail, Token at) {
        return refuse(GUARD_ERROR,
                Verdict.Refuse.PREFIX + "it could not be checked to prove it only reads (" + detail + ")",
                position(at));
    }

    /**
     * L1: a text the lexer cannot split as PostgreSQL would; see {@link #LEXICAL}. A text that PostgreSQL's scanner
     * would read over and over ({@link LexerException.TooComplex}) is {@link #TOO_COMPLEX} instead: a 42501 refusal
     * is shown to PostgreSQL's grammar for its own error, which would scan it.
     */
    public static Verdict.Refuse lexical(LexerException e) {
        if (e instanceof LexerException.TooComplex) {
            return refuse(TOO_COMPLEX, tooComplexMessage(e.getMessage()), e.position() + 1);
        }
        return refuse(LEXICAL, Verdict.Refuse.PREFIX + "it cannot be read as PostgreSQL would read it ("
                + e.getMessage() + ")", e.position() + 1);
    }

    /** 1-based position of a token in the whole input, 0 for none. */
    static int position(Token at) {
        return at == null ? 0 : at.start() + 1;
    }

    private static Verdict.Refuse refuse(String rule, String message, int position) {
        return new Verdict.Refuse(sqlState(rule), message, position, rule);
    }

    /** The SQLSTATE of a refusal by this rule: 54001 for a text too complex to check, 42601 for a syntax error. */
    private static String sqlState(String rule) {
        return switch (rule) {
            case SYNTAX_ERROR -> SqlStates.SYNTAX_ERROR;
            case TOO_COMPLEX, TOO_COMPLEX_TO_PARSE -> SqlStates.STATEMENT_TOO_COMPLEX;
            default -> SqlStates.INSUFFICIENT_PRIVILEGE;
        };
    }
}
