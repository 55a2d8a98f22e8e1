package io.pgward.guard.catalog;

/**
 * The constant patterns of regular-expression and LIKE conditions that {@link QuietQuals} accepts beside a hidden
 * row: patterns that PostgreSQL compiles without error and matches in time linear in the value, so that evaluating
 * one on a row reveals nothing but its result. Both matter because a pattern is compiled or read only when a row
 * reaches it: an invalid pattern fails only if some row gets that far, which tells whether such a row exists.
 *
 * <p>Regular expressions: a subset of PostgreSQL's advanced syntax that psql's and the drivers' name patterns use
 * ({@code ^(orders)$}, {@code ^pg_toast}, {@code ^(pg_.*|information_schema)$}): printable ASCII, at most
 * {@link #MAX_LENGTH} characters, branches separated by {@code |}, atoms (a literal, {@code .}, a backslash before a
 * punctuation character, a bracket of letters, digits and ascending ranges, a non-empty group) each with at most one
 * of {@code * + ?}, and the anchors {@code ^ $} unquantified. Excluded, each for a reason: back-references
 * ({@code \1}: matching them backtracks, exponential in the value), bounds ({@code {m,n}}: they multiply the
 * automaton, and "too complex" is an error), every other backslash escape, {@code (?...)} options and lookaround,
 * and director prefixes ({@code ***:}). Without back-references PostgreSQL's matcher is a DFA and a boolean match
 * ({@code ~}) never dissects sub-matches.
 *
 * <p>LIKE and ILIKE: at most {@link #MAX_LENGTH} characters and no trailing lone backslash (PostgreSQL raises "LIKE
 * pattern must not end with escape character" only when a value gets that far). Its matcher gives up as soon as
 * the rest of the value is too short, which bounds it by the lengths of value and pattern. A pattern with an
 * ESCAPE clause is a function call, not a constant, and is not accepted.
 */
final class QuietPatterns {

    static final int MAX_LENGTH = 200;
    private static final int MAX_DEPTH = 8;
    private static final String SPECIAL = "^$.[]()|*+?{}\\";

    private final String pattern;
    private int at;
    private int depth;

    private QuietPatterns(String pattern) {
        this.pattern = pattern;
    }

    /**
     * A text datum's characters when they are all printable ASCII (PostgreSQL's varlena with a 4-byte or 1-byte
     * header, little-endian as outDatum writes it on such a server); null otherwise.
     */
    static String asciiText(TreeValue.Datum datum) {
        byte[] b = datum.bytes();
        int start;
        int end;
        if (b.length >= 4 && (b[0] & 3) == 0) {
            long header = (b[0] & 0xFFL) | (b[1] & 0xFFL) << 8 | (b[2] & 0xFFL) << 16 | (b[3] & 0xFFL) << 24;
            start = 4;
            end = (int) (header >>> 2);
        } else if (b.length >= 1 && (b[0] & 1) == 1 && b[0] != 1) {
            start = 1;
            end = (b[0] & 0xFF) >>> 1;
        } else {
            return null;
        }
        if (end < start || end > b.length || end != datum.length()) {
            return null;
        }
        StringBuilder text = new StringBuilder(end - start);
        for (int i = start; i < end; i++) {
            if (b[i] < 0x20 || b[i] > 0x7E) {
                return null;
            }
            text.append((char) b[i]);
        }
        return text.toString();
    }

    static boolean regex(String pattern) {
        if (pattern.isEmpty() || pattern.length() > MAX_LENGTH || !printable(pattern)) {
            return false;
        }
        QuietPatterns p = new QuietPatterns(pattern);
        return p.alternation() && p.at == pattern.length();
    }

    static boolean like(String pattern) {
        if (pattern.length() > MAX_LENGTH) {
            return false;
        }
        for (int i = 0; i < pattern.length(); i++) {
            if (pattern.charAt(i) == '\\') {
                if (i + 1 == pattern.length()) {
                    return false;
                }
                i++;
            }
        }
        return true;
    }

    private static boolean printable(String s) {
        return s.chars().allMatch(c -> c >= 0x20 && c <= 0x7E);
    }

    private boolean more() {
        return at < pattern.length();
    }

    private char peek() {
        return pattern.charAt(at);
    }

    private boolean alternation() {
        if (++depth > MAX_DEPTH) {
            return false;
        }
        try {
            if (!branch()) {
                return false;
            }
            while (more() && peek() == '|') {
                at++;
                if (!branch()) {
                    return false;
                }
            }
            return true;
        } finally {
            depth--;
        }
    }

    private boolean branch() {
        int pieces = 0;
        while (more() && peek() != '|' && peek() != ')') {
            if (!piece()) {
                return false;
            }
            pieces++;
        }
        return pieces > 0;
    }

    private boolean piece() {
        char c = peek();
        if (c == '^' || c == '$') {
            at++;
            return !quantifierNext();
        }
        if (!atom()) {
            return false;
        }
        if (more() && "*+?".indexOf(peek()) >= 0) {
            at++;
        }
        // A second quantifier, a non-greedy one or a bound.
        return !quantifierNext();
    }

    private boolean quantifierNext() {
        return more() && "*+?{".indexOf(peek()) >= 0;
    }

    private boolean atom() {
        char c = peek();
        switch (c) {
            case '.' -> {
                at++;
                return true;
            }
            case '\\' -> {
                if (at + 1 >= pattern.length() || Character.isLetterOrDigit(pattern.charAt(at + 1))) {
                    return false;
                }
                at += 2;
                return true;
            }
            case '[' -> {
                return bracket();
            }
            case '(' -> {
                at++;
                if (!alternation()) {
                    return false;
                }
                if (!more() || peek() != ')') {
                    return false;
                }
                at++;
                return true;
            }
            default -> {
                if (SPECIAL.indexOf(c) >= 0) {
                    return false;
                }
                at++;
                return true;
            }
        }
    }

    /** {@code [abc]}, {@code [^a-z_]}: letters, digits, {@code _}, space and ascending ranges of one kind. */
    private boolean bracket() {
        at++;
        if (more() && peek() == '^') {
            at++;
        }
        int items = 0;
        while (more()) {
            char c = peek();
            if (c == ']') {
                at++;
                return items > 0;
            }
            if (!Character.isLetterOrDigit(c) && c != '_' && c != ' ') {
                return false;
            }
            if (at + 2 < pattern.length() && pattern.charAt(at + 1) == '-' && pattern.charAt(at + 2) != ']') {
                char end = pattern.charAt(at + 2);
                if (!sameKind(c, end) || end < c) {
                    return false;
                }
                at += 3;
            } else {
                at++;
            }
            items++;
        }
        return false;
    }

    private static boolean sameKind(char a, char b) {
        return Character.isDigit(a) && Character.isDigit(b) || a >= 'a' && a <= 'z' && b >= 'a' && b <= 'z'
                || a >= 'A' && a <= 'Z' && b >= 'A' && b <= 'Z';
    }
}
