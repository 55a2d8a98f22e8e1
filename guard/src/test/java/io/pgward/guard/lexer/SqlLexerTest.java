package io.pgward.guard.lexer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgward.guard.lexer.Token.Kind;
import java.util.List;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class SqlLexerTest {

    private static final boolean ON = true;
    private static final boolean OFF = false;

    @Nested
    class Splitting {

        @Test
        void nestedBlockCommentHidesTheDropAndItsSemicolons() throws LexerException {
            String sql = "SELECT 1; /* nested /* */ DROP TABLE x; */ SELECT 2";
            assertEquals(List.of("SELECT 1", "SELECT 2"), texts(sql, ON));
            assertTrue(words(sql).stream().noneMatch("drop"::equals));
        }

        @Test
        void carriageReturnEndsALineCommentSoTheDropStaysVisibleInTheSameStatement() throws LexerException {
            String sql = "SELECT 1 --comment\rDROP TABLE t";
            List<StatementText> statements = SqlLexer.split(sql, ON);
            assertEquals(1, statements.size());
            assertEquals(sql, statements.getFirst().text());
            assertEquals(List.of("select", "1", "drop", "table", "t"), values(statements.getFirst().tokens()));
        }

        @Test
        void lineCommentWithoutNewlineRunsToTheEnd() throws LexerException {
            assertEquals(List.of("SELECT 1"), texts("SELECT 1 -- ; DROP TABLE t", ON));
            assertEquals(List.of("SELECT 1", "DROP TABLE t"), texts("SELECT 1 -- x\n; DROP TABLE t", ON));
        }

        @Test
        void escapeStringBackslashIsTheSameWhateverStandardConformingStrings() throws LexerException {
            String sql = "SELECT E'\\\\'; DROP TABLE t; --'";
            assertEquals(List.of("SELECT E'\\\\'", "DROP TABLE t"), texts(sql, ON));
            assertEquals(List.of("SELECT E'\\\\'", "DROP TABLE t"), texts(sql, OFF));
            assertEquals("\\", SqlLexer.tokenize(sql, ON).get(1).value());
        }

        @Test
        void plainStringBackslashDependsOnStandardConformingStrings() throws LexerException {
            String sql = "SELECT '\\'; DROP TABLE t; --'";
            assertEquals(List.of("SELECT '\\'", "DROP TABLE t"), texts(sql, ON));
            assertEquals(List.of(sql), texts(sql, OFF));
            assertEquals("'; DROP TABLE t; --", SqlLexer.tokenize(sql, OFF).get(1).value());
        }

        @Test
        void dollarQuoteHidesASemicolonButNotWhatFollowsItsEnd() throws LexerException {
            String sql = "SELECT $a$ ; $a$; DROP";
            assertEquals(List.of("SELECT $a$ ; $a$", "DROP"), texts(sql, ON));
            assertEquals(" ; ", SqlLexer.tokenize(sql, ON).get(1).value());
        }

        @Test
        void dollarInsideAnIdentifierDoesNotStartADollarQuote() throws LexerException {
            String sql = "SELECT a$b$c FROM t; DROP TABLE x";
            assertEquals(List.of("SELECT a$b$c FROM t", "DROP TABLE x"), texts(sql, ON));
            assertEquals(new Token(Kind.WORD, "a$b$c", "a$b$c", 7, 12), SqlLexer.tokenize(sql, ON).get(1));
        }

        @Test
        void emptyStatementsAreDropped() throws LexerException {
            List<StatementText> statements = SqlLexer.split("SELECT 1;;; ;SELECT 2", ON);
            assertEquals(List.of("SELECT 1", "SELECT 2"), statements.stream().map(StatementText::text).toList());
            assertEquals(List.of(0, 13), statements.stream().map(StatementText::start).toList());
            assertEquals(List.of(), texts(" ; -- only a comment\n /* and another */ ;", ON));
            assertEquals(List.of(), texts("", ON));
        }

        @Test
        void statementTextRunsFromFirstToLastTokenKeepingInnerComments() throws LexerException {
            String sql = "  /* lead */ SELECT /* inner */ 1 -- trail\n ; \n";
            StatementText only = SqlLexer.split(sql, ON).getFirst();
            assertEquals("SELECT /* inner */ 1", only.text());
            assertEquals(sql.indexOf("SELECT"), only.start());
            assertEquals(List.of("select", "1"), values(only.tokens()));
        }

        @Test
        void quotedIdentifierAndStringsHideSemicolons() throws LexerException {
            assertEquals(List.of("SELECT 'a;b' AS \"c;d\"", "SELECT E'\\';'"),
                    texts("SELECT 'a;b' AS \"c;d\"; SELECT E'\\';'", ON));
        }

        @Test
        void beginAtomicBodyIsSplitMoreFinelyThanTheServerDoes() throws LexerException {
            // The server runs one CREATE FUNCTION here; the pieces all lie inside it and the first is the CREATE.
            String sql = "CREATE FUNCTION f() RETURNS int LANGUAGE sql BEGIN ATOMIC SELECT 1; SELECT 2; END";
            assertEquals(List.of("CREATE FUNCTION f() RETURNS int LANGUAGE sql BEGIN ATOMIC SELECT 1",
                    "SELECT 2", "END"), texts(sql, ON));
        }
    }

    @Nested
    class Strings {

        @Test
        void adjacentLiteralsJoinOnlyAcrossANewline() throws LexerException {
            List<Token> sameLine = SqlLexer.tokenize("SELECT 'a' 'b'", ON);
            assertEquals(List.of("select", "a", "b"), values(sameLine));
            assertEquals(Kind.STRING, sameLine.get(2).kind());

            List<Token> continued = SqlLexer.tokenize("SELECT 'a'\n'b'", ON);
            assertEquals(2, continued.size());
            assertEquals(new Token(Kind.STRING, "'a'\n'b'", "ab", 7, 14), continued.get(1));
        }

        @ParameterizedTest
        @CsvSource(delimiter = '|', quoteCharacter = '`', value = {
            "'a' -- note\\n'b'|ab",
            "'a'\\r'b'|ab",
            "'a'  \\t\\n -- one\\n  -- two\\n 'b'|ab",
            "'a'\\n'b'\\n'c'|abc",
            "'it''s'|it's",
            "''''|'",
            "''|''"
        })
        void continuationAndDoubledQuotes(String literal, String value) throws LexerException {
            List<Token> tokens = SqlLexer.tokenize(literal.replace("\\n", "\n").replace("\\r", "\r")
                    .replace("\\t", "\t"), ON);
            assertEquals(1, tokens.size());
            assertEquals(value.equals("''") ? "" : value, tokens.getFirst().value());
        }

        @Test
        void blockCommentDoesNotContinueALiteral() throws LexerException {
            assertEquals(2, SqlLexer.tokenize("'a' /* c */\n'b'", ON).size());
        }

        @Test
        void escapeStringSequences() throws LexerException {
            assertEquals("A-A-B-C-\n\t\b\f\r\u000B-\\-'-q-xg-8",
                    value("E'\\x41-\\101-\\u0042-\\U00000043-\\n\\t\\b\\f\\r\\v-\\\\-\\'-\\q-\\xg-\\8'"));
            assertEquals("\uD83D\uDE00", value("e'\\uD83D\\uDE00'"));
            assertEquals("\uD83D\uDE00", value("E'\\U0001F600'"));
            assertEquals("\u00e9", value("E'\\303\\251'"));
            assertEquals("é", value("E'\\é'"));
            assertEquals("a\nb", value("E'a'\n'\\nb'"));
        }

        @ParameterizedTest
        @CsvSource(delimiter = '|', quoteCharacter = '`', value = {
            "E'\\xff'|invalid byte sequence for encoding \"UTF8\": 0xff|0",
            "E'\\0'|invalid byte sequence for encoding \"UTF8\": 0x00|0",
            "E'\\303('|invalid byte sequence for encoding \"UTF8\": 0xc3 0x28|0",
            "E'ab\\u00'|invalid Unicode escape|4",
            "E'\\user'|invalid Unicode escape|2",
            "E'\\U0001F60'|invalid Unicode escape|2",
            "E'\\uDE00'|invalid Unicode surrogate pair|2",
            "E'\\uD83Dx'|invalid Unicode surrogate pair|8",
            "E'\\uD83D\\u0041'|invalid Unicode surrogate pair|8",
            "E'\\u0000'|invalid Unicode escape value|2",
            "E'\\U00110000'|invalid Unicode escape value|2"
        })
        void escapeStringErrors(String literal, String message, int position) {
            assertError(literal, ON, message, position);
        }

        @Test
        void plainStringFollowsStandardConformingStrings() throws LexerException {
            assertEquals("\\x41", SqlLexer.tokenize("'\\x41'", ON).getFirst().value());
            assertEquals("A", SqlLexer.tokenize("'\\x41'", OFF).getFirst().value());
            assertEquals("a\\", SqlLexer.tokenize("N'a\\'", ON).getFirst().value());
            assertEquals("a'", SqlLexer.tokenize("N'a\\''", OFF).getFirst().value());
        }

        @Test
        void bitHexAndNationalLiterals() throws LexerException {
            assertEquals(List.of("0101", "1F", "abc"), values(SqlLexer.tokenize("B'0101' x'1F' n'abc'", ON)));
            assertEquals(List.of("1001"), values(SqlLexer.tokenize("b'10'\n'01'", ON)));
            // No '' doubling in bit strings: the first quote ends it and a new literal starts.
            assertEquals(List.of(new Token(Kind.STRING, "B'10'", "10", 0, 5), new Token(Kind.STRING, "'01'", "01", 5, 9)),
                    SqlLexer.tokenize("B'10''01'", ON));
            // Longer identifiers are identifiers: only a lone b, x, n, e or u& prefixes a literal.
            assertEquals(List.of("bb", "x"), values(SqlLexer.tokenize("bb'x'", ON)));
        }

        @Test
        void unicodeStrings() throws LexerException {
            assertEquals("data", value("U&'d\\0061t\\+000061'"));
            assertEquals("\\", value("U&'\\\\'"));
            assertEquals("\uD83D\uDE00", value("u&'\\D83D\\DE00'"));
            List<Token> escaped = SqlLexer.tokenize("SELECT U&'d!0061t!+000061' /* c */ UESCAPE '!' AS x", ON);
            Token literal = escaped.get(1);
            assertEquals("U&'d!0061t!+000061' /* c */ UESCAPE '!'", literal.text());
            assertEquals("data", literal.value());
            assertEquals(7, literal.start());
            assertEquals(List.of("select", "data", "as", "x"), values(escaped));
            assertEquals("a\\0061", value("U&'a\\0061' UESCAPE $$!$$"));
            assertEquals("ab", value("U&'a'\n'b'"));
        }

        @ParameterizedTest
        @CsvSource(delimiter = '|', quoteCharacter = '`', value = {
            "U&'\\'|invalid Unicode escape|3",
            "U&'ab\\00'|invalid Unicode escape|5",
            "U&'\\0000'|invalid Unicode escape value|3",
            "U&'\\DE00'|invalid Unicode surrogate pair|3",
            "U&'\\D83D'|invalid Unicode surrogate pair|8",
            "U&'\\D83Dx'|invalid Unicode surrogate pair|8",
            "U&'x' UESCAPE 'ab'|invalid Unicode escape character|14",
            "U&'x' UESCAPE 'a'|invalid Unicode escape character|14",
            "U&'x' UESCAPE '+'|invalid Unicode escape character|14",
            "U&'x' UESCAPE ' '|invalid Unicode escape character|14",
            "U&'x' UESCAPE '\"'|invalid Unicode escape character|14",
            "U&'x' UESCAPE 'é'|invalid Unicode escape character|14",
            "U&'x' UESCAPE \"!\"|UESCAPE must be followed by a simple string literal|14",
            "U&'x' UESCAPE N'!'|UESCAPE must be followed by a simple string literal|14",
            "U&'x' UESCAPE U&'!'|UESCAPE must be followed by a simple string literal|14",
            "U&'x' UESCAPE|UESCAPE must be followed by a simple string literal|13",
            "U&\"\"|zero-length delimited identifier|0"
        })
        void unicodeErrors(String literal, String message, int position) {
            assertError(literal, ON, message, position);
        }

        @Test
        void unicodeStringNeedsStandardConformingStrings() throws LexerException {
            assertError("SELECT U&'x'", OFF, "unsafe use of string constant with Unicode escapes", 7);
            assertEquals("x", SqlLexer.tokenize("SELECT U&\"x\"", OFF).get(1).value());
        }

        @Test
        void uAmpersandWithoutAQuoteIsTheIdentifierU() throws LexerException {
            List<Token> tokens = SqlLexer.tokenize("u&x", ON);
            assertEquals(List.of(Kind.WORD, Kind.OPERATOR, Kind.WORD), tokens.stream().map(Token::kind).toList());
            assertEquals(List.of("u", "&", "x"), values(tokens));
        }

        @Test
        void dollarQuotes() throws LexerException {
            assertEquals("a$b", value("$$a$b$$"));
            assertEquals(" $a ; $b$ ", value("$a$ $a ; $b$ $a$"));
            assertEquals(" x", value("$a$ x$a$"));
            assertEquals("$abc$", value("$ab$$abc$$ab$"));
            assertEquals("x", value("$é1$x$é1$"));
            assertError("$A$ x $a$", ON, "unterminated dollar-quoted string", 0);
            assertEquals(List.of(Kind.PUNCTUATION, Kind.WORD), kinds("$a"));
            assertEquals(List.of(Kind.PUNCTUATION, Kind.NUMBER), kinds("$ 1"));
            assertEquals(List.of(Kind.PARAMETER, Kind.PUNCTUATION), kinds("$1$"));
            assertEquals(List.of(Kind.NUMBER, Kind.STRING), kinds("1$a$x$a$"));
        }
    }

    @Nested
    class Identifiers {

        @Test
        void unquotedFoldOnlyAsciiLetters() throws LexerException {
            assertEquals(List.of("select", "foobar", "MiXed", "Ärger", "ß_1$"),
                    values(SqlLexer.tokenize("SeLeCt FooBar \"MiXed\" ÄRGER ß_1$", ON)));
        }

        @Test
        void nonAsciiSpaceIsPartOfAnIdentifier() throws LexerException {
            assertEquals(List.of("select\u00a01"), values(SqlLexer.tokenize("SELECT\u00a01", ON)));
        }

        @Test
        void quotedIdentifiers() throws LexerException {
            assertEquals(List.of("a\"b", "\"", "x;y"), values(SqlLexer.tokenize("\"a\"\"b\" \"\"\"\" \"x;y\"", ON)));
            assertEquals("data", SqlLexer.tokenize("U&\"d\\0061t\\+000061\"", ON).getFirst().value());
            assertEquals("Da", SqlLexer.tokenize("U&\"D!0061\" UESCAPE '!'", ON).getFirst().value());
            assertError("SELECT \"\"", ON, "zero-length delimited identifier", 7);
        }

        @Test
        void identifiersAreCutTo63BytesOnACharacterBoundary() throws LexerException {
            String ascii = "A".repeat(70);
            assertEquals("a".repeat(63), SqlLexer.tokenize(ascii, ON).getFirst().value());
            assertEquals(ascii, SqlLexer.tokenize(ascii, ON).getFirst().text());
            assertEquals("A".repeat(63), SqlLexer.tokenize("\"" + ascii + "\"", ON).getFirst().value());
            assertEquals("é".repeat(31), SqlLexer.tokenize("é".repeat(40), ON).getFirst().value());
            assertEquals("x" + "é".repeat(31), SqlLexer.tokenize("x" + "é".repeat(40), ON).getFirst().value());
            assertEquals("a".repeat(63),
                    SqlLexer.tokenize("U&\"" + "\\0061".repeat(70) + "\"", ON).getFirst().value());
            assertEquals("a".repeat(63), SqlLexer.tokenize("a".repeat(63), ON).getFirst().value());
        }
    }

    @Nested
    class OperatorsAndNumbers {

        @ParameterizedTest
        @CsvSource(delimiter = '|', quoteCharacter = '`', value = {
            "a=-1|a,=,-,1",
            "a?-b|a,?-,b",
            "a@-b|a,@-,b",
            "a<=b|a,<=,b",
            "a!=b|a,!=,b",
            "a<>b|a,<>,b",
            "a=>b|a,=>,b",
            "a->>b|a,->>,b",
            "a~~*b|a,~~*,b",
            "a*-+b|a,*,-,+,b",
            "a%-b|a,%-,b",
            "a*/*c*/b|a,*,b",
            "a+--c\\nb|a,+,b",
            "a::int|a,::,int",
            "x:=1|x,:=,1",
            "1..10|1,..,10",
            "a:b|a,:,b",
            "a.b|a,.,b",
            "2 */ 3|2,*/,3"
        })
        void operatorsFollowPostgresql(String sql, String expected) throws LexerException {
            assertEquals(List.of(expected.split(",")), texts(SqlLexer.tokenize(sql.replace("\\n", "\n"), ON)));
        }

        @Test
        void operatorKinds() throws LexerException {
            assertEquals(List.of(Kind.OPERATOR, Kind.OPERATOR, Kind.OPERATOR, Kind.PUNCTUATION, Kind.PUNCTUATION),
                    kinds(":: := .. : ."));
            assertError("SELECT 1 " + "~".repeat(64) + " 1", ON, "operator too long", 9);
            assertEquals(63, SqlLexer.tokenize("~".repeat(63), ON).getFirst().text().length());
        }

        @ParameterizedTest
        @CsvSource(delimiter = '|', quoteCharacter = '`', value = {
            "1e10|1e10",
            ".5|.5",
            "4.|4.",
            "1.5e-3|1.5e-3",
            "1.2.3|1.2,.3",
            "0x1F|0x1F",
            "0o17|0o17",
            "0b101|0b101",
            "1_000_000|1_000_000",
            "0x_1f|0x_1f",
            "1.5_5|1.5_5",
            "2147483648|2147483648",
            "1E+5|1E+5"
        })
        void numbers(String sql, String expected) throws LexerException {
            List<Token> tokens = SqlLexer.tokenize(sql, ON);
            assertEquals(List.of(expected.split(",")), texts(tokens));
            assertTrue(tokens.stream().allMatch(t -> t.kind() == Kind.NUMBER));
        }

        @ParameterizedTest
        @CsvSource(delimiter = '|', quoteCharacter = '`', value = {
            "SELECT 123abc|trailing junk after numeric literal|7",
            "SELECT 0x|invalid hexadecimal integer|7",
            "SELECT 0x_|invalid hexadecimal integer|7",
            "SELECT 0o|invalid octal integer|7",
            "SELECT 0b|invalid binary integer|7",
            "SELECT 0xZ|trailing junk after numeric literal|7",
            "SELECT 0o8|trailing junk after numeric literal|7",
            "SELECT 0x1Fg|trailing junk after numeric literal|7",
            "SELECT 1e|trailing junk after numeric literal|7",
            "SELECT 1e+|trailing junk after numeric literal|7",
            "SELECT 1.5e-x|trailing junk after numeric literal|7",
            "SELECT 1_|trailing junk after numeric literal|7",
            "SELECT 1__2|trailing junk after numeric literal|7",
            "SELECT 1.x|trailing junk after numeric literal|7",
            "SELECT .5e|trailing junk after numeric literal|7",
            "SELECT 1e5x|trailing junk after numeric literal|7",
            "SELECT 1e'x'|trailing junk after numeric literal|7",
            "SELECT $1abc|trailing junk after parameter|7",
            "SELECT $1_0|trailing junk after parameter|7"
        })
        void numberErrors(String sql, String message, int position) {
            assertError(sql, ON, message, position);
        }

        @Test
        void parameters() throws LexerException {
            assertEquals(new Token(Kind.PARAMETER, "$12", "12", 0, 3), SqlLexer.tokenize("$12", ON).getFirst());
            // Beyond int32 still one parameter, as PostgreSQL 17 scans it; the server refuses it later.
            assertEquals(new Token(Kind.PARAMETER, "$002147483648", "2147483648", 0, 13),
                    SqlLexer.tokenize("$002147483648", ON).getFirst());
            assertEquals("2147483647", SqlLexer.tokenize("$002147483647", ON).getFirst().value());
        }
    }

    @Nested
    class WhitespaceCommentsAndErrors {

        @Test
        void everyPostgresqlSpaceSeparatesTokens() throws LexerException {
            assertEquals(List.of("a", "b", "c", "d", "e", "f", "g"),
                    values(SqlLexer.tokenize("a b\tc\nd\re\ff\u000Bg", ON)));
        }

        @Test
        void blockCommentsNest() throws LexerException {
            assertEquals(List.of("select", "1"), values(SqlLexer.tokenize("SELECT /* a /* b */ c */ 1", ON)));
            assertEquals(List.of("select", "1"), values(SqlLexer.tokenize("SELECT /*/ x */ 1", ON)));
            assertEquals(List.of("select", "1"), values(SqlLexer.tokenize("SELECT /**/1", ON)));
            assertEquals(List.of("select", "1"), values(SqlLexer.tokenize("SELECT /* ' \" $$ -- */ 1", ON)));
            assertEquals(List.of("select", "1", "+"), values(SqlLexer.tokenize("SELECT 1 +/* x */", ON)));
        }

        @ParameterizedTest
        @CsvSource(delimiter = '|', quoteCharacter = '`', value = {
            "SELECT /* a /* b */ 1|unterminated /* comment|7",
            "SELECT /*/|unterminated /* comment|7",
            "SELECT 'abc|unterminated quoted string|7",
            "SELECT 'a''|unterminated quoted string|7",
            "SELECT E'abc\\'|unterminated quoted string|7",
            "SELECT E'abc\\|unterminated quoted string|7",
            "SELECT 'a'\\n'b|unterminated quoted string|7",
            "SELECT N'abc|unterminated quoted string|8",
            "SELECT U&'abc|unterminated quoted string|7",
            "SELECT B'01|unterminated bit string literal|7",
            "SELECT X'1F|unterminated hexadecimal string literal|7",
            "SELECT \"abc|unterminated quoted identifier|7",
            "SELECT U&\"abc|unterminated quoted identifier|7",
            "SELECT $x$abc|unterminated dollar-quoted string|7",
            "SELECT $$abc$|unterminated dollar-quoted string|7"
        })
        void unterminatedConstructs(String sql, String message, int position) {
            assertError(sql.replace("\\n", "\n"), ON, message, position);
        }

        @Test
        void unterminatedUnderStandardConformingStringsOff() {
            assertError("SELECT 'abc\\'", OFF, "unterminated quoted string", 7);
        }

        @Test
        void nulIsRefused() {
            assertError("SELECT 1\0; DROP TABLE t", ON, "query text contains a NUL character", 8);
        }

        @Test
        void otherCharactersArePunctuation() throws LexerException {
            assertEquals(List.of(Kind.PUNCTUATION, Kind.PUNCTUATION, Kind.PUNCTUATION, Kind.PUNCTUATION),
                    kinds("\\ { } \u0001"));
        }

        @Test
        void tokenOffsetsPointIntoTheInput() throws LexerException {
            String sql = "SELECT \"A\"\"b\", E'x\\ny' FROM t";
            for (Token token : SqlLexer.tokenize(sql, ON)) {
                assertEquals(token.text(), sql.substring(token.start(), token.end()));
            }
        }
    }

    private static void assertError(String sql, boolean scs, String message, int position) {
        LexerException error = assertThrows(LexerException.class, () -> SqlLexer.tokenize(sql, scs), sql);
        assertEquals(message, error.getMessage(), sql);
        assertEquals(position, error.position(), sql);
    }

    private static List<String> texts(String sql, boolean scs) throws LexerException {
        return SqlLexer.split(sql, scs).stream().map(StatementText::text).toList();
    }

    private static List<String> texts(List<Token> tokens) {
        return tokens.stream().map(Token::text).toList();
    }

    private static List<String> values(List<Token> tokens) {
        return tokens.stream().map(Token::value).toList();
    }

    private static List<String> words(String sql) throws LexerException {
        return SqlLexer.tokenize(sql, ON).stream().filter(t -> t.kind() == Kind.WORD).map(Token::value).toList();
    }

    private static List<Kind> kinds(String sql) throws LexerException {
        return SqlLexer.tokenize(sql, ON).stream().map(Token::kind).toList();
    }

    private static String value(String literal) throws LexerException {
        List<Token> tokens = SqlLexer.tokenize(literal, ON);
        assertEquals(1, tokens.size(), literal);
        return tokens.getFirst().value();
    }
}
