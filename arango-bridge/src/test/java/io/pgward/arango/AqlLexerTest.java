package io.pgward.arango;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** AQL's lexical rules, as every reader of AQL text in pgward (keywords, row limit, parameters) sees them. */
class AqlLexerTest {

    /** Each token as its kind and text, for short expectations. */
    private static List<String> tokens(String aql) {
        return AqlLexer.tokenize(aql).stream().map(t -> t.kind() + " " + t.text()).toList();
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
        assertEquals(List.of("WORD a", "WORD b", "WORD c", "PUNCTUATION *", "PUNCTUATION /"),
                tokens("// x\ra // y\nb /* /* z */ c */"));
    }

    @Test
    void everyQuoteTakesBackslashEscapesAndRunsToTheEndWhenUnterminated() {
        assertEquals(List.of("STRING say \"hi\"", "QUOTED_NAME a`b", "QUOTED_NAME c\u00B4d", "STRING open $1"),
                tokens("\"say \\\"hi\\\"\" `a\\`b` \u00B4c\\\u00B4d\u00B4 'open $1"));
        assertEquals(List.of("WORD a"), tokens("a /* open"));
    }

    @Test
    void aDollarAndUpToFiveDigitsStandingAloneIsAPostgresParameter() {
        assertEquals(List.of("PARAMETER $1", "PUNCTUATION .", "NUMBER 5", "PARAMETER $65535", "WORD $123456",
                        "WORD $var1", "WORD x$5", "WORD $2a", "NUMBER 1$3", "WORD $"),
                tokens("$1.5 $65535 $123456 $var1 x$5 $2a 1$3 $"));
    }

    @Test
    void aBindParameterNameIsLettersDigitsAndUnderscores() {
        assertEquals(List.of("BIND_PARAMETER @p_1", "BIND_PARAMETER @", "PARAMETER $1", "BIND_PARAMETER @@c",
                "WORD $x"), tokens("@p_1 @$1 @@c$x"));
    }

    @Test
    void locatedTokensSayWhereTheyWereWritten() {
        String aql = "RETURN /* c */ `n`;";
        List<AqlLexer.Located> located = AqlLexer.locate(aql);
        assertEquals(List.of("RETURN", "`n`", ";"),
                located.stream().map(l -> aql.substring(l.start(), l.end())).toList());
    }
}
