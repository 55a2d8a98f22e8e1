package io.pgward.arango;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** AQL's lexical rules, as every reader of AQL text in pgward (keywords, row limit, parameters) sees them. */
class AqlLexerTest {

    private static AqlLexer.Token token(AqlLexer.Kind kind, String text) {
        return new AqlLexer.Token(kind, text);
    }

    @Test
    void lexerTokensFollowAqlRules() {
        List<AqlLexer.Token> tokens = AqlLexer.tokenize("FOR d IN `my coll` FILTER d.x == 'a\\'b' && d.n > 1.5 "
                + "// tail\nRETURN @@c");
        assertEquals(List.of(
                new AqlLexer.Token(AqlLexer.Kind.WORD, "FOR"),
                new AqlLexer.Token(AqlLexer.Kind.WORD, "d"),
                new AqlLexer.Token(AqlLexer.Kind.WORD, "IN"),
                new AqlLexer.Token(AqlLexer.Kind.QUOTED_NAME, "my coll"),
                new AqlLexer.Token(AqlLexer.Kind.WORD, "FILTER"),
                new AqlLexer.Token(AqlLexer.Kind.WORD, "d"),
                new AqlLexer.Token(AqlLexer.Kind.PUNCTUATION, "."),
                new AqlLexer.Token(AqlLexer.Kind.WORD, "x"),
                new AqlLexer.Token(AqlLexer.Kind.PUNCTUATION, "="),
                new AqlLexer.Token(AqlLexer.Kind.PUNCTUATION, "="),
                new AqlLexer.Token(AqlLexer.Kind.STRING, "a'b"),
                new AqlLexer.Token(AqlLexer.Kind.PUNCTUATION, "&"),
                new AqlLexer.Token(AqlLexer.Kind.PUNCTUATION, "&"),
                new AqlLexer.Token(AqlLexer.Kind.WORD, "d"),
                new AqlLexer.Token(AqlLexer.Kind.PUNCTUATION, "."),
                new AqlLexer.Token(AqlLexer.Kind.WORD, "n"),
                new AqlLexer.Token(AqlLexer.Kind.PUNCTUATION, ">"),
                new AqlLexer.Token(AqlLexer.Kind.NUMBER, "1.5"),
                new AqlLexer.Token(AqlLexer.Kind.WORD, "RETURN"),
                new AqlLexer.Token(AqlLexer.Kind.BIND_PARAMETER, "@@c")), tokens);
    }

    @Test
    void commentsEndAtEitherLineBreakAndDoNotNest() {
        assertEquals(List.of(token(AqlLexer.Kind.WORD, "a"), token(AqlLexer.Kind.WORD, "b"),
                        token(AqlLexer.Kind.WORD, "c"), token(AqlLexer.Kind.PUNCTUATION, "*"),
                        token(AqlLexer.Kind.PUNCTUATION, "/")),
                AqlLexer.tokenize("// x\ra // y\nb /* /* z */ c */"));
    }

    @Test
    void everyQuoteTakesBackslashEscapesAndRunsToTheEndWhenUnterminated() {
        assertEquals(List.of(token(AqlLexer.Kind.STRING, "say \"hi\""), token(AqlLexer.Kind.QUOTED_NAME, "a`b"),
                        token(AqlLexer.Kind.QUOTED_NAME, "c\u00B4d"), token(AqlLexer.Kind.STRING, "open $1")),
                AqlLexer.tokenize("\"say \\\"hi\\\"\" `a\\`b` \u00B4c\\\u00B4d\u00B4 'open $1"));
        assertEquals(List.of(token(AqlLexer.Kind.WORD, "a")), AqlLexer.tokenize("a /* open"));
    }

    @Test
    void aDollarAndUpToFiveDigitsStandingAloneIsAPostgresParameter() {
        assertEquals(List.of(token(AqlLexer.Kind.PARAMETER, "$1"), token(AqlLexer.Kind.PUNCTUATION, "."),
                        token(AqlLexer.Kind.NUMBER, "5"), token(AqlLexer.Kind.PARAMETER, "$65535"),
                        token(AqlLexer.Kind.WORD, "$123456"), token(AqlLexer.Kind.WORD, "$var1"),
                        token(AqlLexer.Kind.WORD, "x$5"), token(AqlLexer.Kind.WORD, "$2a"),
                        token(AqlLexer.Kind.NUMBER, "1$3"), token(AqlLexer.Kind.WORD, "$")),
                AqlLexer.tokenize("$1.5 $65535 $123456 $var1 x$5 $2a 1$3 $"));
    }

    @Test
    void aBindParameterNameIsLettersDigitsAndUnderscores() {
        assertEquals(List.of(token(AqlLexer.Kind.BIND_PARAMETER, "@p_1"), token(AqlLexer.Kind.BIND_PARAMETER, "@"),
                        token(AqlLexer.Kind.PARAMETER, "$1"), token(AqlLexer.Kind.BIND_PARAMETER, "@@c"),
                        token(AqlLexer.Kind.WORD, "$x")),
                AqlLexer.tokenize("@p_1 @$1 @@c$x"));
    }

    @Test
    void locatedTokensSayWhereTheyWereWritten() {
        String aql = "RETURN /* c */ `n`;";
        List<AqlLexer.Located> located = AqlLexer.locate(aql);
        assertEquals(List.of("RETURN", "`n`", ";"),
                located.stream().map(l -> aql.substring(l.start(), l.end())).toList());
    }
}
