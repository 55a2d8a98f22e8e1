package io.pgward.guard.lexer;

import io.pgward.guard.lexer.Lexeme.Form;
import io.pgward.guard.lexer.Token.Kind;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The INITIAL-state rules of PostgreSQL's scanner (src/backend/parser/scan.l, PostgreSQL 17): whitespace
 * and comments, identifiers, numbers, operators, parameters and dollar quotes; quoted strings and quoted
 * identifiers are handed to {@link QuotedLiterals}.
 *
 * <p>flex picks the longest match among all rules and, on a tie, the rule written first. Where several rules can
 * start at the same character (numbers, {@code $}, {@code U&}, one-letter string prefixes, operators next to
 * comment starts) the methods below compute each candidate's length and apply that same choice, so no input is
 * read differently from the server. Offsets are {@code char} indexes into the Java string; PostgreSQL's
 * character classes for bytes {@code \200-\377} become "any char at or above U+0080", which is the same set once
 * the text is UTF-8.
 */
final class Scanner {

    /** PostgreSQL's NAMEDATALEN: identifiers are cut to NAMEDATALEN - 1 bytes, operators must be shorter. */
    static final int NAMEDATALEN = 64;

    private final String sql;
    private final int length;
    private final boolean standardConformingStrings;
    private final OperatorRunReads runReads;
    private int pos;

    Scanner(String sql, boolean standardConformingStrings) {
        this.sql = sql;
        this.length = sql.length();
        this.standardConformingStrings = standardConformingStrings;
        this.runReads = new OperatorRunReads(sql);
    }

    /**
     * After this scanner or the caller refused the text at {@code position}: whether PostgreSQL's scanner could
     * still read too much of it, had it read on ({@link OperatorRunReads#readsAfterError}).
     */
    void boundReadsAfterError(int position) throws LexerException.TooComplex {
        runReads.readsAfterError(position);
    }

    /** The next token, or {@code null} at the end of the input. */
    Lexeme next() throws LexerException {
        skipWhitespaceAndComments();
        if (pos >= length) {
            return null;
        }
        int start = pos;
        char c = sql.charAt(pos);
        if (isIdentStart(c)) {
            return identifierOrPrefixedLiteral(start);
        }
        if (isDigit(c) || (c == '.' && isDigit(at(pos + 1)))) {
            return number(start);
        }
        switch (c) {
            case '\'':
                return advance(QuotedLiterals.string(sql, start, start,
                        standardConformingStrings ? QuotedLiterals.Mode.STANDARD : QuotedLiterals.Mode.ESCAPE,
                        Form.SIMPLE_STRING));
            case '"':
                return advance(QuotedLiterals.identifier(sql, start, start, false));
            case '$':
                return dollar(start);
            case '.':
                return at(pos + 1) == '.' ? emit(Kind.OPERATOR, start, 2) : emit(Kind.PUNCTUATION, start, 1);
            case ':':
                return at(pos + 1) == ':' || at(pos + 1) == '=' ? emit(Kind.OPERATOR, start, 2)
                        : emit(Kind.PUNCTUATION, start, 1);
            case ',', '(', ')', '[', ']', ';':
                return emit(Kind.PUNCTUATION, start, 1);
            default:
                if (isOpChar(c)) {
                    return operator(start);
                }
                // scan.l's {other}: returned to the grammar as a bare character ($, \, {, }, controls ...).
                return emit(Kind.PUNCTUATION, start, 1);
        }
    }

    /** {whitespace}: [ \t\n\r\f\v]+, "--" to the next \n or \r, and nesting slash-star comments. */
    private void skipWhitespaceAndComments() throws LexerException {
        while (pos < length) {
            char c = sql.charAt(pos);
            if (isSpace(c)) {
                pos++;
            } else if (c == '-' && at(pos + 1) == '-') {
                runReads.matchAt(pos);
                pos += 2;
                while (pos < length && !isNewline(sql.charAt(pos))) {
                    pos++;
                }
            } else if (c == '/' && at(pos + 1) == '*') {
                blockComment();
            } else {
                return;
            }
        }
    }

    /**
     * State xc: every slash-star opens a level, every star-slash closes one; nothing else (quotes included)
     * means anything inside. Each slash-star reads the operator characters after it ({@link OperatorRunReads}).
     */
    private void blockComment() throws LexerException {
        int start = pos;
        int depth = 0;
        runReads.matchAt(pos);
        pos += 2;
        while (true) {
            if (pos >= length) {
                throw new LexerException("unterminated /* comment", start);
            }
            char c = sql.charAt(pos);
            if (c == '/' && at(pos + 1) == '*') {
                runReads.matchAt(pos);
                depth++;
                pos += 2;
            } else if (c == '*' && at(pos + 1) == '/') {
                pos += 2;
                if (depth == 0) {
                    return;
                }
                depth--;
            } else {
                pos++;
            }
        }
    }

    /**
     * {identifier}, or one of the rules that beat it by one character: b' x' n' e' (string prefixes) and
     * u&' u&" (Unicode escapes). {xufailed} (u&) followed by anything else is the identifier "u".
     */
    private Lexeme identifierOrPrefixedLiteral(int start) throws LexerException {
        int end = start + 1;
        while (end < length && isIdentCont(sql.charAt(end))) {
            end++;
        }
        if (end == start + 1) {
            char c = sql.charAt(start);
            char next = at(end);
            if (next == '\'') {
                switch (c) {
                    case 'b', 'B':
                        return advance(QuotedLiterals.string(sql, start, end, QuotedLiterals.Mode.BIT, Form.PLAIN));
                    case 'x', 'X':
                        return advance(QuotedLiterals.string(sql, start, end, QuotedLiterals.Mode.HEX, Form.PLAIN));
                    case 'e', 'E':
                        return advance(QuotedLiterals.string(sql, start, end, QuotedLiterals.Mode.ESCAPE,
                                Form.SIMPLE_STRING));
                    case 'n', 'N': {
                        // The NCHAR keyword, then an ordinary '...' (escapes per standard_conforming_strings)
                        // scanned on its own: errors point at its quote.
                        Lexeme body = QuotedLiterals.string(sql, end, end, standardConformingStrings
                                ? QuotedLiterals.Mode.STANDARD : QuotedLiterals.Mode.ESCAPE, Form.PLAIN);
                        return advance(new Lexeme(Kind.STRING, Form.PLAIN, start, body.end(), body.value()));
                    }
                    default:
                        break;
                }
            } else if ((c == 'u' || c == 'U') && next == '&') {
                char quote = at(end + 1);
                if (quote == '\'') {
                    if (!standardConformingStrings) {
                        throw new LexerException("unsafe use of string constant with Unicode escapes", start);
                    }
                    return advance(QuotedLiterals.string(sql, start, end + 1, QuotedLiterals.Mode.UNICODE,
                            Form.UNICODE_STRING));
                }
                if (quote == '"') {
                    return advance(QuotedLiterals.identifier(sql, start, end + 1, true));
                }
            }
        }
        return emit(Kind.WORD, start, end - start, foldIdentifier(sql, start, end));
    }

    /** {param}, {param_junk}, {dolqdelim}, {dolqfailed} and a bare $ ({other}). */
    private Lexeme dollar(int start) throws LexerException {
        if (isDigit(at(start + 1))) {
            int end = start + 1;
            while (isDigit(at(end))) {
                end++;
            }
            if (isIdentStart(at(end))) {
                throw new LexerException("trailing junk after parameter", start);
            }
            return emit(Kind.PARAMETER, start, end - start, parameterNumber(start, end));
        }
        int tagEnd = start + 1;
        if (isDollarTagStart(at(tagEnd))) {
            tagEnd++;
            while (isDollarTagCont(at(tagEnd))) {
                tagEnd++;
            }
        }
        if (at(tagEnd) != '$') {
            return emit(Kind.PUNCTUATION, start, 1);
        }
        // Inside the quote flex tries {dolqdelim} at every '$', and tag characters never include '$', so the
        // quote ends at the first later occurrence of the exact opening delimiter (case-sensitive).
        String delimiter = sql.substring(start, tagEnd + 1);
        int close = sql.indexOf(delimiter, tagEnd + 1);
        if (close < 0) {
            throw new LexerException("unterminated dollar-quoted string", start);
        }
        int end = close + delimiter.length();
        pos = end;
        return new Lexeme(Kind.STRING, Form.SIMPLE_STRING, start, end, sql.substring(tagEnd + 1, close));
    }

    /**
     * The digits without leading zeros, however many: PostgreSQL 17 and older wrap a number beyond int32 and refuse
     * the statement when they analyse it (42P02), 18 refuses it here (42601); the catalog check lets the server
     * give whichever error it gives ({@code QueryText#parameters}).
     */
    private String parameterNumber(int start, int end) {
        return sql.substring(start + 1, end).replaceFirst("^0+(?=.)", "");
    }

    /**
     * {operator}: the longest run of op_chars, cut before an embedded comment start, and without trailing + or -
     * unless the operator also holds one of ~ ! @ # ^ &amp; | ` ? % (so "=-" is "=" then "-", but "?-" is one).
     */
    private Lexeme operator(int start) throws LexerException {
        int runEnd = runReads.matchAt(start);
        String run = sql.substring(start, runEnd);
        int nchars = run.length();
        int slashStar = run.indexOf("/*");
        int dashDash = run.indexOf("--");
        int commentStart = slashStar < 0 ? dashDash : dashDash < 0 ? slashStar : Math.min(slashStar, dashDash);
        if (commentStart >= 0) {
            nchars = commentStart;
        }
        if (nchars > 1 && isPlusOrMinus(run.charAt(nchars - 1))) {
            boolean keepsSign = false;
            for (int i = nchars - 2; i >= 0 && !keepsSign; i--) {
                keepsSign = "~!@#^&|`?%".indexOf(run.charAt(i)) >= 0;
            }
            if (!keepsSign) {
                do {
                    nchars--;
                } while (nchars > 1 && isPlusOrMinus(run.charAt(nchars - 1)));
            }
        }
        if (nchars >= NAMEDATALEN) {
            throw new LexerException("operator too long", start);
        }
        return emit(Kind.OPERATOR, start, nchars);
    }

    /** The numeric rules of scan.l, in the order they are written there (the order breaks ties). */
    private enum NumberRule {
        DECINTEGER(null), HEXINTEGER(null), OCTINTEGER(null), BININTEGER(null),
        HEXFAIL("invalid hexadecimal integer"), OCTFAIL("invalid octal integer"), BINFAIL("invalid binary integer"),
        NUMERIC(null), NUMERICFAIL(null), REAL(null), REALFAIL("trailing junk after numeric literal"),
        INTEGER_JUNK("trailing junk after numeric literal"), NUMERIC_JUNK("trailing junk after numeric literal"),
        REAL_JUNK("trailing junk after numeric literal");

        final String error;

        NumberRule(String error) {
            this.error = error;
        }
    }

    /**
     * A number starting with a digit or with '.' and a digit. Computes where each numeric rule's match would
     * end, keeps the longest (first written on a tie), and acts as scan.l does: {numericfail} ("1..") is the
     * integer before the "..", the *fail and *_junk rules are errors.
     */
    private Lexeme number(int start) throws LexerException {
        int[] ends = new int[NumberRule.values().length];
        Arrays.fill(ends, -1);
        int integerEnd = isDigit(at(start)) ? decimalInteger(start) : -1;
        ends[NumberRule.DECINTEGER.ordinal()] = integerEnd;
        if (at(start) == '0') {
            char radix = (char) (at(start + 1) | 0x20); // ASCII lower case; other chars never match
            NumberRule rule = radix == 'x' ? NumberRule.HEXINTEGER : radix == 'o' ? NumberRule.OCTINTEGER
                    : radix == 'b' ? NumberRule.BININTEGER : null;
            if (rule != null) {
                int digitsEnd = radixDigits(start + 2, radix == 'x' ? 16 : radix == 'o' ? 8 : 2);
                if (digitsEnd > start + 2) {
                    ends[rule.ordinal()] = digitsEnd;
                }
                ends[rule.ordinal() + 3] = start + 2 + (at(start + 2) == '_' ? 1 : 0);
            }
        }
        int numericEnd = -1;
        if (integerEnd < 0) {
            numericEnd = decimalInteger(start + 1);
        } else if (at(integerEnd) == '.') {
            numericEnd = isDigit(at(integerEnd + 1)) ? decimalInteger(integerEnd + 1) : integerEnd + 1;
            if (at(integerEnd + 1) == '.') {
                ends[NumberRule.NUMERICFAIL.ordinal()] = integerEnd + 2;
            }
        }
        ends[NumberRule.NUMERIC.ordinal()] = numericEnd;
        int mantissaEnd = numericEnd >= 0 ? numericEnd : integerEnd;
        int realEnd = -1;
        if (at(mantissaEnd) == 'e' || at(mantissaEnd) == 'E') {
            int exponent = mantissaEnd + 1;
            if (isPlusOrMinus(at(exponent))) {
                exponent++;
                ends[NumberRule.REALFAIL.ordinal()] = exponent;
            }
            if (isDigit(at(exponent))) {
                realEnd = decimalInteger(exponent);
            }
        }
        ends[NumberRule.REAL.ordinal()] = realEnd;
        ends[NumberRule.INTEGER_JUNK.ordinal()] = junkEnd(integerEnd);
        ends[NumberRule.NUMERIC_JUNK.ordinal()] = junkEnd(numericEnd);
        ends[NumberRule.REAL_JUNK.ordinal()] = junkEnd(realEnd);

        NumberRule chosen = null;
        for (NumberRule rule : NumberRule.values()) {
            if (ends[rule.ordinal()] >= 0 && (chosen == null || ends[rule.ordinal()] > ends[chosen.ordinal()])) {
                chosen = rule;
            }
        }
        if (chosen.error != null) {
            throw new LexerException(chosen.error, start);
        }
        int end = chosen == NumberRule.NUMERICFAIL ? integerEnd : ends[chosen.ordinal()];
        return emit(Kind.NUMBER, start, end - start);
    }

    /** End of {decinteger} = digit (_? digit)* starting at {@code from}, or -1. */
    private int decimalInteger(int from) {
        if (!isDigit(at(from))) {
            return -1;
        }
        int i = from + 1;
        while (true) {
            if (isDigit(at(i))) {
                i++;
            } else if (at(i) == '_' && isDigit(at(i + 1))) {
                i += 2;
            } else {
                return i;
            }
        }
    }

    /** End of (_? digit)* in the given radix starting at {@code from}. */
    private int radixDigits(int from, int radix) {
        int i = from;
        while (true) {
            if (Character.digit(at(i), radix) >= 0 && at(i) < 0x80) {
                i++;
            } else if (at(i) == '_' && Character.digit(at(i + 1), radix) >= 0 && at(i + 1) < 0x80) {
                i += 2;
            } else {
                return i;
            }
        }
    }

    /** End of {identifier} right after a number ending at {@code numberEnd}, or -1. */
    private int junkEnd(int numberEnd) {
        if (numberEnd < 0 || !isIdentStart(at(numberEnd))) {
            return -1;
        }
        int i = numberEnd + 1;
        while (isIdentCont(at(i))) {
            i++;
        }
        return i;
    }

    private Lexeme emit(Kind kind, int start, int count) {
        return emit(kind, start, count, sql.substring(start, start + count));
    }

    private Lexeme emit(Kind kind, int start, int count, String value) {
        pos = start + count;
        return new Lexeme(kind, Form.PLAIN, start, pos, value);
    }

    private Lexeme advance(Lexeme lexeme) {
        pos = lexeme.end();
        return lexeme;
    }

    /** The char at {@code i}, or NUL past the end (the input never holds a NUL: {@link SqlLexer} refuses it). */
    private char at(int i) {
        return i < length ? sql.charAt(i) : '\0';
    }

    /** downcase_truncate_identifier for a UTF-8 database: only A-Z are folded, then cut to 63 bytes. */
    static String foldIdentifier(String text) {
        return foldIdentifier(text, 0, text.length());
    }

    /** {@link #foldIdentifier(String)} of {@code sql}'s characters from {@code start} to {@code end}. */
    private static String foldIdentifier(String sql, int start, int end) {
        int upper = start;
        while (upper < end && !isAsciiUpper(sql.charAt(upper))) {
            upper++;
        }
        if (upper == end) {
            return truncateIdentifier(sql.substring(start, end));
        }
        char[] folded = new char[end - start];
        sql.getChars(start, end, folded, 0);
        for (int i = upper - start; i < folded.length; i++) {
            if (isAsciiUpper(folded[i])) {
                folded[i] = (char) (folded[i] + ('a' - 'A'));
            }
        }
        return truncateIdentifier(new String(folded));
    }

    private static boolean isAsciiUpper(char c) {
        return c >= 'A' && c <= 'Z';
    }

    /** truncate_identifier: at most NAMEDATALEN - 1 bytes of UTF-8, never splitting a character. */
    static String truncateIdentifier(String identifier) {
        if (identifier.length() < NAMEDATALEN / 4
                || identifier.getBytes(StandardCharsets.UTF_8).length < NAMEDATALEN) {
            return identifier;
        }
        int bytes = 0;
        int i = 0;
        while (i < identifier.length()) {
            int codePoint = identifier.codePointAt(i);
            int size = codePoint < 0x80 ? 1 : codePoint < 0x800 ? 2 : codePoint < 0x10000 ? 3 : 4;
            if (bytes + size > NAMEDATALEN - 1) {
                break;
            }
            bytes += size;
            i += Character.charCount(codePoint);
        }
        return identifier.substring(0, i);
    }

    static boolean isSpace(char c) {
        return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\u000B';
    }

    static boolean isNewline(char c) {
        return c == '\n' || c == '\r';
    }

    static boolean isDigit(char c) {
        return c >= '0' && c <= '9';
    }

    /** ident_start: [A-Za-z\200-\377_]. */
    static boolean isIdentStart(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c >= 0x80;
    }

    /** ident_cont: ident_start, digits and '$'. */
    static boolean isIdentCont(char c) {
        return isIdentStart(c) || isDigit(c) || c == '$';
    }

    /** dolq_start is ident_start; dolq_cont adds digits but not '$'. */
    private static boolean isDollarTagStart(char c) {
        return isIdentStart(c);
    }

    private static boolean isDollarTagCont(char c) {
        return isIdentStart(c) || isDigit(c);
    }

    /** op_chars: ~ ! @ # ^ &amp; | ` ? + - * / % &lt; &gt; =. */
    static boolean isOpChar(char c) {
        return "~!@#^&|`?+-*/%<>=".indexOf(c) >= 0;
    }

    private static boolean isPlusOrMinus(char c) {
        return c == '+' || c == '-';
    }
}
