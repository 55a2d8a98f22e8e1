package io.pgward.guard.catalog;

import io.pgward.guard.lexer.LexerException;
import io.pgward.guard.lexer.SqlLexer;
import io.pgward.guard.lexer.StatementText;
import io.pgward.guard.lexer.Token;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;

/**
 * A statement text with every constant {@link ConstantShape} leaves out of its key replaced by another value of the
 * same class: an integer by the next one of the same type, a decimal with its last digit changed, a string with the
 * case of its letters swapped (names in it still fold to the same object). Literals the key keeps (positions, type
 * modifiers, call arguments) are left as written, so the variant has the same key as the original.
 *
 * <p>TEST ONLY; public for the corpus replay in it-tests (guard's test-jar).
 */
public final class LiteralVariants {

    private static final BigInteger INT4_MAX = BigInteger.valueOf(Integer.MAX_VALUE);
    private static final BigInteger INT8_MAX = BigInteger.valueOf(Long.MAX_VALUE);

    private LiteralVariants() {
    }

    /** The variant, or null when the text has no such constant (or does not lex). */
    public static String of(String sql) {
        List<Token> constants = new ArrayList<>();
        try {
            for (StatementText statement : SqlLexer.split(sql, true)) {
                for (Token t : ConstantShape.constants(statement)) {
                    // constants() counts from the statement's start; the text's offsets are wanted here.
                    constants.add(new Token(t.kind(), t.text(), t.value(), t.start() + statement.start(),
                            t.end() + statement.start()));
                }
            }
        } catch (LexerException e) {
            return null;
        }
        StringBuilder out = new StringBuilder(sql);
        boolean changed = false;
        for (int i = constants.size() - 1; i >= 0; i--) {
            Token t = constants.get(i);
            String other = t.kind() == Token.Kind.NUMBER ? number(t.text()) : string(t.text());
            if (!other.equals(t.text())) {
                out.replace(t.start(), t.end(), other);
                changed = true;
            }
        }
        return changed ? out.toString() : null;
    }

    private static String number(String text) {
        if (text.chars().allMatch(Character::isDigit)) {
            BigInteger n = new BigInteger(text);
            boolean last = n.equals(INT4_MAX) || n.equals(INT8_MAX);
            return (last ? n.subtract(BigInteger.ONE) : n.add(BigInteger.ONE)).toString();
        }
        for (int i = text.length() - 1; i >= 0; i--) {
            char c = text.charAt(i);
            if (Character.isDigit(c)) {
                return text.substring(0, i) + (char) ('0' + (c - '0' + 1) % 10) + text.substring(i + 1);
            }
        }
        return text;
    }

    /**
     * Swaps the case of the letters of the body, leaving the prefix and the quotes (or dollar tags) alone. E'' and
     * U&'' strings are left as written: their escapes change meaning with their case.
     */
    private static String string(String text) {
        int bodyStart;
        int bodyEnd;
        char first = Character.toUpperCase(text.charAt(0));
        if (first == '$') {
            bodyStart = text.indexOf('$', 1) + 1;
            bodyEnd = text.length() - bodyStart;
        } else if (first == 'E' || first == 'U') {
            return text;
        } else {
            bodyStart = text.indexOf('\'') + 1;
            bodyEnd = text.lastIndexOf('\'');
        }
        StringBuilder b = new StringBuilder(text.substring(0, bodyStart));
        for (int i = bodyStart; i < bodyEnd; i++) {
            char c = text.charAt(i);
            b.append(Character.isUpperCase(c) ? Character.toLowerCase(c)
                    : Character.isLowerCase(c) ? Character.toUpperCase(c) : c);
        }
        return b.append(text, Math.max(bodyStart, bodyEnd), text.length()).toString();
    }
}
