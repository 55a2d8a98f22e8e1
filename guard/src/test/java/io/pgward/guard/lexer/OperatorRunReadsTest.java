package io.pgward.guard.lexer;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.function.IntFunction;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The bound on what a text's runs of operator characters cost PostgreSQL's scanner ({@link OperatorRunReads}): each
 * family of runs the scanner reads in the square of their length is accepted up to the bound and refused one step
 * beyond, as too complex, at the start of the run.
 */
class OperatorRunReadsTest {

    private static final String SELECT = "select 1 ";

    /** Each family, and its largest size whose reads stay within {@link OperatorRunReads#MAX_READS}. */
    enum Family {
        NESTED_COMMENT_STARTS(295, n -> SELECT + "/*".repeat(n) + "*/".repeat(n)),
        COMMENTS_BACK_TO_BACK(361, n -> SELECT + "/**/".repeat(n)),
        PLUS_REPEATED(723, n -> SELECT + "+".repeat(n) + " 2"),
        SIGNS_AFTER_AN_OPERATOR(361, n -> SELECT + "=" + "-+".repeat(n) + " 2"),
        PLUS_BEFORE_A_LINE_COMMENT(416, n -> SELECT + "+".repeat(n) + "--" + "+".repeat(n) + "\n 2"),
        COMMENT_STARTS_INSIDE_A_COMMENT(417, n -> SELECT + "/* x " + "/*+".repeat(n) + " " + "*/".repeat(n) + " */");

        final int largestAccepted;
        final IntFunction<String> text;

        Family(int largestAccepted, IntFunction<String> text) {
            this.largestAccepted = largestAccepted;
            this.text = text;
        }
    }

    @ParameterizedTest
    @EnumSource(Family.class)
    void acceptsEachFamilyUpToTheBoundAndRefusesItJustBeyond(Family family) {
        assertDoesNotThrow(() -> SqlLexer.tokenize(family.text.apply(family.largestAccepted), true));
        String beyond = family.text.apply(family.largestAccepted + 1);
        LexerException.TooComplex refused = assertThrows(LexerException.TooComplex.class,
                () -> SqlLexer.tokenize(beyond, true));
        assertTrue(refused.getMessage().startsWith("its runs of operator characters would cost PostgreSQL's "
                + "scanner more than 262144 character reads"), refused.getMessage());
        assertTrue(Scanner.isOpChar(beyond.charAt(refused.position())), "at the run");
        assertTrue(refused.position() >= SELECT.length());
    }

    @Test
    void literalsQuotedIdentifiersDollarQuotesAndTheRestOfCommentsAreNotCounted() {
        // PostgreSQL reads their insides once: literals by rules that stop only at their quote, a line comment in one
        // match to the end of its line, a block comment's characters other than slash-star one match at a time.
        String runs = "/*".repeat(5_000) + "*/".repeat(5_000) + "+".repeat(5_000);
        String read = "select '" + runs + "', E'" + runs + "', $q$" + runs + "$q$, $$" + runs + "$$, 1 as \""
                + runs + "\", U&'" + runs + "' /* " + "*".repeat(100_000) + "+-".repeat(50_000) + " */ -- "
                + "+".repeat(100_000) + "\n";
        Family nested = Family.NESTED_COMMENT_STARTS;
        assertDoesNotThrow(() -> SqlLexer.tokenize(read + nested.text.apply(nested.largestAccepted), true));
        assertThrows(LexerException.TooComplex.class,
                () -> SqlLexer.tokenize(read + nested.text.apply(nested.largestAccepted + 1), true));
    }

    @Test
    void anUnterminatedCommentIsRefusedAsTooComplexBeforeItsEnd() {
        // PostgreSQL reads the whole comment before it reports that it is unterminated.
        assertThrows(LexerException.TooComplex.class,
                () -> SqlLexer.tokenize("select 1 /*" + "/*".repeat(1_000), true));
    }

    @Test
    void runsAfterAnErrorAreBoundedAsIfEachCharacterStartedAMatch() {
        // PostgreSQL 14 and 15 read "0x" as 0 and x and go on scanning; this lexer stops at it.
        Family nested = Family.NESTED_COMMENT_STARTS;
        assertThrows(LexerException.TooComplex.class,
                () -> SqlLexer.tokenize("select 0x " + nested.text.apply(nested.largestAccepted), true));
        LexerException error = assertThrows(LexerException.class,
                () -> SqlLexer.tokenize("select 0x /* " + "+".repeat(100) + " */", true));
        assertEquals("invalid hexadecimal integer", error.getMessage());
    }

    @Test
    void aLongRunCostsThisLexerLittleToo() {
        // Each operator token used to read the rest of its run here as well: 32,000 + took 15 s.
        String text = SELECT + "+".repeat(200_000) + " 2";
        assertTimeoutPreemptively(Duration.ofSeconds(2),
                () -> assertThrows(LexerException.TooComplex.class, () -> SqlLexer.tokenize(text, true)));
    }
}
