package io.pgward.guard.classify;

import io.pgward.guard.Verdict;
import io.pgward.guard.lexer.Token;

/**
 * The refusal texts. Every one starts with {@link Verdict.Refuse#PREFIX} ({@code pgward refused this query: }) and
 * either names what is not allowed for the login, or says why the statement could not be checked.
 */
final class Refusals {

    private Refusals() {
    }

    /** {@code pgward refused this query: <what> is not allowed for the read-only login "<login>"}. */
    static Decision.Refuse notAllowed(String rule, String what, ReadOnlyPolicy policy, Token at) {
        return new Decision.Refuse(rule,
                Verdict.Refuse.PREFIX + what + " is not allowed for the read-only login \"" + policy.login() + "\"",
                position(at));
    }

    /** For text that cannot be shown to only read: the guard fails closed. */
    static Decision.Refuse unparseable(String detail, Token at) {
        return new Decision.Refuse(Decision.Rule.UNPARSEABLE,
                Verdict.Refuse.PREFIX + "it could not be parsed to prove it only reads (" + detail + ")", position(at));
    }

    /** A query only JSqlParser could not read; see {@link Decision.Rule#UNPARSED_QUERY}. */
    static Decision.Refuse unparsedQuery(String detail, Token at) {
        return new Decision.Refuse(Decision.Rule.UNPARSED_QUERY,
                Verdict.Refuse.PREFIX + "it could not be parsed to prove it only reads (" + detail + ")", position(at));
    }

    /**
     * PostgreSQL's error for a statement whose first word begins no statement ({@link StatementStarts}): the word as
     * written, at its position.
     */
    static Decision.Refuse syntaxError(Token word) {
        return new Decision.Refuse(Decision.Rule.SYNTAX_ERROR, "syntax error at or near \"" + word.text() + "\"",
                position(word));
    }

    /** A text beyond the guard's bounds on work per statement (SQLSTATE 54001). */
    static Decision.Refuse tooComplex(String detail, Token at) {
        return new Decision.Refuse(Decision.Rule.TOO_COMPLEX, tooComplexMessage(detail), position(at));
    }

    /** A query beyond JSqlParser's envelope; see {@link Decision.Rule#TOO_COMPLEX_TO_PARSE}. */
    static Decision.Refuse tooComplexToParse(String detail, Token at) {
        return new Decision.Refuse(Decision.Rule.TOO_COMPLEX_TO_PARSE, tooComplexMessage(detail), position(at));
    }

    /** {@code pgward refused this query: it is too complex to check (<detail>)}. */
    static String tooComplexMessage(String detail) {
        return Verdict.Refuse.PREFIX + "it is too complex to check (" + detail + ")";
    }

    static Decision.Refuse guardError(String detail, Token at) {
        return new Decision.Refuse(Decision.Rule.GUARD_ERROR,
                Verdict.Refuse.PREFIX + "it could not be checked to prove it only reads (" + detail + ")",
                position(at));
    }

    /** 1-based position of a token in the whole input, 0 for none. */
    static int position(Token at) {
        return at == null ? 0 : at.start() + 1;
    }
}
