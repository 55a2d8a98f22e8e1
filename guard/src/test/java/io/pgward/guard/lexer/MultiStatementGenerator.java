package io.pgward.guard.lexer;

import java.util.List;
import java.util.Random;

/**
 * Seeded random multi-statement texts for {@link SplitMatchesPostgresIT}: harmless SELECT and VALUES statements
 * built from the fragments that lexer differentials are made of (every kind of string literal, nested and line
 * comments ending at CR or LF, dollar quotes, quoted identifiers, semicolons inside and outside), and in some
 * texts a few random edits (a quote, backslash, dollar or comment mark inserted or deleted) that shift where
 * literals end. The only keywords are SELECT, AS, FROM and VALUES, so no edit can turn a statement into a write.
 */
final class MultiStatementGenerator {

    private static final List<String> SEPARATORS = List.of(";", ";;", " ; ", ";\n", "; -- c;\n", "; /* ; */ ",
            ";\r", "\n;\n", "; ;");

    /** Whitespace and comments between tokens; never empty, always ends the comment it opens. */
    private static final List<String> GAPS = List.of(" ", "\n", "\r", "\r\n", "\t", "\f", "  ", " -- c\n",
            " --c;'x\r", " -- ' \" $$ /*\n", "/* c */", " /* a /* b; */ c' */ ", "/**/", "/*/ x; */", "/* ' */",
            "/* -- */", " --\n", "\n-- ;\n", " /* */ -- */\n");

    private static final List<String> PLAIN_PIECES = List.of("a", "Z", " ", ";", "''", "\\", "\\'", "\\\\", "\"",
            "$$", "$a$", "--", "/*", "*/", "\n", "\r", "é", "\uD83D\uDE00", "'; SELECT 'inj' AS c; --", "E",
            "\\n", "\\x41", "\\101", "\\u00e9", "\\\\'", "x");

    private static final List<String> ESCAPE_PIECES = List.of("a", ";", "''", "\\\\", "\\'", "\\n", "\\t", "\\x41",
            "\\x4", "\\101", "\\7", "\\u00e9", "\\U0001F600", "\\uD83D\\uDE00", "\\q", "\\;", "\\\n", "é", "--",
            "/*", "\\'; SELECT 'inj' AS c; --", "b", "c", "d");

    /** Escapes PostgreSQL refuses: rare, so that most texts still run. */
    private static final List<String> BAD_ESCAPE_PIECES = List.of("\\xff", "\\u12", "\\uDE00", "\\0",
            "\\U00110000", "\\uD83Dx");

    private static final List<String> UNICODE_PIECES = List.of("a", ";", "''", "\\0061", "\\+01F600", "\\\\",
            "\\D83D\\DE00", "é", "--", "/*", "x", "y", "z");

    private static final List<String> BAD_UNICODE_PIECES = List.of("\\00", "\\DE00", "\\", "\\+110000");

    private static final List<String> DOLLAR_TAGS = List.of("", "a", "tag", "A", "é", "_1");

    private static final List<String> DOLLAR_PIECES = List.of("x", ";", "$", "$a$", "$A$", "$tag", "'", "\"", "--",
            "/*", "\n", "$$", "'; SELECT 'inj' AS c; --", "y", "z", "a$", "$_1", "\\");

    private static final List<String> CONTINUATIONS = List.of(" ", "\n", " -- c\n", "/* c */\n", "\r\n",
            "\n-- c\n  ", "\t\r", "-- c\r", "\n/* c */");

    private static final List<String> NUMBERS = List.of("1", "1.5", ".5", "1e3", "0x1F", "1_000", "0o17", "0b101",
            "4.", "2147483648", "1E+2", "1.5e-3", "0x_1f", "1_0.5_5");

    private static final List<String> BAD_NUMBERS = List.of("1..2", "0x", "1e", "12abc", "0o8", "1.2.3");

    private static final List<String> OPERATIONS = List.of("1 +/* c */ 2", "2 */* c */ 3", "1 --c\n+ 2", "- -1",
            "1=-1", "'1'::int", "1::text", "3 !=/**/ 4", "10 %-- x\n 3", "2^-1", "1 <= 2", "'a' || 'b'",
            "1 ---1\n", "4 /-1", "1-/**/-1", "B'01' # B'11'");

    private static final List<String> ALIASES = List.of("c", "C", "MiXeD", "\"c;d\"", "\"a\"\"b\"",
            "U&\"d\\0061t\"", "U&\"d!0061t\" UESCAPE '!'", "\"--x\"", "\"/*\"", "\"$$\"", "\"'\"", "x$y", "ÄBC",
            "L".repeat(70), "\"" + "Q".repeat(70) + "\"", "é".repeat(40), "U&\"\\0061" + "b".repeat(66) + "\"",
            "\"tab\tnl\ncr\r\"", "\"é\uD83D\uDE00\"");

    private static final List<String> BAD_ALIASES = List.of("\"\"", "u&x", "U&\"\\00\"", "\"x");

    private static final List<String> EDITS = List.of("'", "\"", "$", "\\", ";", "*", "/", "-", "\n", "\r",
            "$a$", "/*", "*/", "--", "E'", "U&");

    private final Random random;

    MultiStatementGenerator(long seed) {
        this.random = new Random(seed);
    }

    String next() {
        StringBuilder text = new StringBuilder();
        if (chance(0.15)) {
            text.append(pick(SEPARATORS));
        }
        int statements = 1 + random.nextInt(4);
        for (int i = 0; i < statements; i++) {
            if (i > 0) {
                text.append(pick(SEPARATORS));
            }
            if (chance(0.3)) {
                text.append(pick(GAPS));
            }
            text.append(statement());
        }
        if (chance(0.3)) {
            text.append(pick(SEPARATORS));
        }
        if (chance(0.2)) {
            text.append(pick(GAPS));
        }
        String result = text.toString();
        if (chance(0.3)) {
            int edits = 1 + random.nextInt(2);
            for (int i = 0; i < edits; i++) {
                result = edit(result);
            }
        }
        return result;
    }

    private String statement() {
        return switch (random.nextInt(10)) {
            case 6 -> "SELECT" + gap() + expression() + gap() + "," + gap() + expression();
            case 7 -> "VALUES" + gap() + "(" + expression() + ")";
            case 8 -> "SELECT" + gap() + "concat(" + expression() + "," + gap() + expression() + ")" + gap() + "AS"
                    + gap() + alias();
            case 9 -> "SELECT" + gap() + expression() + gap() + "AS" + gap() + alias() + gap() + "FROM"
                    + gap() + "(SELECT 1)" + gap() + "AS" + gap() + alias();
            default -> "SELECT" + gap() + expression() + gap() + "AS" + gap() + alias();
        };
    }

    private String expression() {
        return switch (random.nextInt(12)) {
            case 0, 1 -> "'" + body(PLAIN_PIECES, 6) + "'";
            case 2, 3 -> (chance(0.5) ? "E'" : "e'") + body(ESCAPE_PIECES, BAD_ESCAPE_PIECES, 6) + "'";
            case 4 -> unicodeString();
            case 5, 6 -> dollarString();
            case 7 -> "'" + body(PLAIN_PIECES, 3) + "'" + pick(CONTINUATIONS) + "'" + body(PLAIN_PIECES, 3) + "'";
            case 8 -> pick(List.of("B'0101'", "X'1F'", "N'ab;c'", "b'10'\n'01'", "N'a\\'b'", "x'AB'\r'cd'"));
            case 9 -> chance(0.1) ? pick(BAD_NUMBERS) : pick(NUMBERS);
            default -> pick(OPERATIONS);
        };
    }

    private String unicodeString() {
        String body = body(UNICODE_PIECES, BAD_UNICODE_PIECES, 5);
        if (chance(0.3)) {
            return "U&'" + body.replace("\\", "!") + "'" + gap() + "UESCAPE" + gap() + pick(List.of("'!'", "$$!$$",
                    "E'!'", "'!!'", "'a'"));
        }
        return (chance(0.5) ? "U&'" : "u&'") + body + "'";
    }

    private String dollarString() {
        String delimiter = "$" + pick(DOLLAR_TAGS) + "$";
        return delimiter + body(DOLLAR_PIECES, 5) + delimiter;
    }

    private String body(List<String> pieces, int max) {
        return body(pieces, List.of(), max);
    }

    /** Up to {@code max} pieces; a piece is one of {@code bad} with a small probability. */
    private String body(List<String> pieces, List<String> bad, int max) {
        StringBuilder body = new StringBuilder();
        int count = random.nextInt(max + 1);
        for (int i = 0; i < count; i++) {
            body.append(!bad.isEmpty() && chance(0.03) ? pick(bad) : pick(pieces));
        }
        return body.toString();
    }

    private String alias() {
        return chance(0.03) ? pick(BAD_ALIASES) : pick(ALIASES);
    }

    private String gap() {
        return pick(GAPS);
    }

    /** Inserts one of {@link #EDITS}, or deletes one character, at a random place. */
    private String edit(String text) {
        int at = random.nextInt(text.length() + 1);
        if (at < text.length() && Character.isLowSurrogate(text.charAt(at))) {
            at--; // keep surrogate pairs whole: the server never sees half a character
        }
        if (chance(0.5) && at < text.length()) {
            return text.substring(0, at) + text.substring(at + Character.charCount(text.codePointAt(at)));
        }
        return text.substring(0, at) + pick(EDITS) + text.substring(at);
    }

    private boolean chance(double probability) {
        return random.nextDouble() < probability;
    }

    private String pick(List<String> choices) {
        return choices.get(random.nextInt(choices.size()));
    }
}
