package io.pgward.guard.lexer;

/**
 * What one text's runs of operator characters cost PostgreSQL's scanner, counted as {@link Scanner} meets each match
 * the scanner starts in one, and bounded: past {@link #MAX_READS} characters read, the text is refused as too complex
 * ({@link LexerException.TooComplex}) before any of it reaches PostgreSQL.
 *
 * <p>Why (scan.l): the operator rule ({@code {op_chars}+}) and the comment start ({@code {xcstart}}, a slash-star and
 * {@code {op_chars}*}, in code and inside a comment alike) first match the whole run of operator characters ahead,
 * then give back what they do not keep (yyless), and the next match reads it again. A run that holds many token or
 * comment starts is read once for each: in the square of its length. Nested comment starts (each opens a comment
 * inside the last), {@code /**}{@code /} repeated (each comment ends where the next starts), {@code +} or {@code -}
 * repeated (a trailing + or - is cut from an operator, one token at a time) and any of these before a {@code --}
 * comment whose first characters continue the run. The scanner does not check for interrupts, so no
 * statement_timeout stops it: on PostgreSQL 17, {@code /*} nested 16,000 deep then closed (62 KB) takes 5.7 s of
 * CPU, 60,000 deep (240 KB) a minute, and the server's grammar reads it too when asked for its error of a refused
 * text. pgward's own lexer read such a run in the square of its length too (32,000 {@code +}: 15 s).
 *
 * <p>What is counted, for each match started on an operator character outside literals and line comments: the rest
 * of its run, which the match reads. These are an operator, a line or block comment start in code, and a block
 * comment start inside a block comment: the only matches that read past what they keep. Everything else is read
 * once, or twice where a rule gives back a fixed few characters: literals, quoted identifiers and dollar quotes by
 * rules that stop at their quote, a comment's other characters one match at a time.
 */
final class OperatorRunReads {

    /**
     * Characters PostgreSQL's scanner may read in one text's runs of operator characters: as many as the guard reads
     * of a whole text ({@code ComplexityEnvelope.MAX_TEXT_CHARS}, 256 KiB). The scanner reads them at about 5 ns
     * each (PostgreSQL 17: {@code /*} nested 4,000 deep then closed is 48 million reads, 232 ms), so the worst text
     * admitted costs it about a millisecond: {@code /*} nested 295 deep then closed (1,189 characters) 1.3 ms, against
     * 0.06 ms with a space after each. A legitimate text stays far below: an operator is read once and a sign after
     * it twice ({@code =-}), a comment start in code reads its banner once ({@code /*====}), so a text reads fewer
     * characters than it holds unless its runs hold several tokens each; the guard's corpus and PostgreSQL's own
     * information_schema.sql and system_views.sql read at most 0.1 characters per character of text.
     */
    static final long MAX_READS = 1L << 18;

    private final String sql;
    private long reads;
    /** The run read last, [runStart, runEnd): every match in a run reads to the same end, found once. */
    private int runStart;
    private int runEnd;

    OperatorRunReads(String sql) {
        this.sql = sql;
    }

    /**
     * Counts the match PostgreSQL's scanner starts at {@code at}, an operator character, and returns the end of the
     * run it reads.
     */
    int matchAt(int at) throws LexerException.TooComplex {
        if (at < runStart || at >= runEnd) {
            runStart = at;
            runEnd = runEnd(at);
        }
        reads += runEnd - at;
        if (reads > MAX_READS) {
            throw tooComplex(runStart, runEnd);
        }
        return runEnd;
    }

    /**
     * After an error at {@code from}: counts every run of operator characters after it as if each of its characters
     * started a match, the most any state of any scanner can read there. PostgreSQL 14 and 15 read on past some
     * text this lexer refuses ({@code 0x}, {@code 1_}), and a refused text may be shown to PostgreSQL's grammar to
     * answer with its own error.
     */
    void readsAfterError(int from) throws LexerException.TooComplex {
        int at = from;
        while (at < sql.length()) {
            if (!Scanner.isOpChar(sql.charAt(at))) {
                at++;
                continue;
            }
            int end = runEnd(at);
            long length = end - at;
            reads += length * (length + 1) / 2;
            if (reads > MAX_READS) {
                throw tooComplex(at, end);
            }
            at = end;
        }
    }

    private int runEnd(int at) {
        int end = at;
        while (end < sql.length() && Scanner.isOpChar(sql.charAt(end))) {
            end++;
        }
        return end;
    }

    private static LexerException.TooComplex tooComplex(int start, int end) {
        return new LexerException.TooComplex("its runs of operator characters would cost PostgreSQL's scanner more "
                + "than " + MAX_READS + " character reads, as it reads a run again for each token or comment start "
                + "in it (nested comment starts, + or - repeated); this run is " + (end - start)
                + " characters long", start);
    }
}
