package io.pgward.guard;

import io.pgward.guard.catalog.ConstantShape;
import io.pgward.guard.classify.ComplexityEnvelope;
import io.pgward.guard.lexer.StatementText;
import io.pgward.guard.lexer.Token;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * A text that every layer of the guard allowed, and the constants in it that another text may hold in their place
 * and still have the same shape keys: {@link #matches} recognises such a text by comparing characters, without
 * lexing it, so that a session that sends the same statement with new values pays neither L1's lexer nor the two
 * shape keys for each one (docs/verdicts-by-shape.md, "Same shape, no lexing").
 *
 * <p><b>Why a match has the same keys.</b> A constant here is one that both {@link TextShape} (L1 and L2) and
 * {@link ConstantShape} (L3) leave out of their keys: a plain integer, a plain decimal, or a plain {@code '...'}
 * string of letters, digits and a few safe characters. A text matches when it equals this one outside those
 * constants, character for character, and holds in place of each a literal that both keys give the same class:
 * an integer of digits only, a decimal of digits, a point and digits, a string of the same safe characters with no
 * backslash and no line break. Such a text lexes into the same tokens but for those constants' values:
 * <ul>
 *   <li>Everything before a constant is the same characters, so the lexer reaches it in the same state, at the start
 *       of a token (a constant of this text starts one).</li>
 *   <li>Where a number ends depends only on the characters after its digits ({@code .}, {@code e}, {@code _}, a
 *       letter), and those are this text's own, after which this text's number ended; a string ends at a quote not
 *       doubled, and whether another string continues it depends only on what follows, again this text's own.</li>
 *   <li>Everything after a constant is the same characters, read from the same state.</li>
 * </ul>
 * Both keys read a replaced constant by its class and its neighbours only, and the neighbours are the same tokens,
 * so both keys are this text's keys. The verdict still comes from the caches that hold it (the caller looks the
 * keys up, and a miss takes the full path), so a schema change, a reload or an evicted entry is seen as before.
 *
 * <p>Immutable and thread-safe.
 */
public final class ShapeTemplate {

    private final String text;
    private final boolean standardConformingStrings;
    private final String shapeKey;
    private final int[] starts;
    private final int[] ends;
    private final String[] textClasses;
    private final String[] constantClasses;

    private ShapeTemplate(String text, boolean standardConformingStrings, String shapeKey, List<Token> constants,
                          List<String> constantClasses) {
        this.text = text;
        this.standardConformingStrings = standardConformingStrings;
        this.shapeKey = shapeKey;
        int n = constants.size();
        this.starts = new int[n];
        this.ends = new int[n];
        this.textClasses = new String[n];
        this.constantClasses = constantClasses.toArray(new String[0]);
        for (int i = 0; i < n; i++) {
            Token t = constants.get(i);
            starts[i] = t.start();
            ends[i] = t.end();
            textClasses[i] = t.kind() == Token.Kind.STRING ? TextShape.stringClass(t) : TextShape.numberClass(t.text());
        }
    }

    /**
     * The template of a text L1 split into {@code statements}, or null when the text has no shape (it must take the
     * full path every time).
     */
    public static ShapeTemplate of(String text, List<StatementText> statements, boolean standardConformingStrings) {
        String key = TextShape.key(statements);
        if (key == null || text.length() > ComplexityEnvelope.MAX_TEXT_CHARS) {
            return null;
        }
        Set<Integer> leftOutByL3 = new HashSet<>();
        for (StatementText statement : statements) {
            for (Token t : ConstantShape.constants(statement)) {
                leftOutByL3.add(statement.start() + t.start());
            }
        }
        List<Token> constants = new ArrayList<>();
        List<String> constantClasses = new ArrayList<>();
        for (Token t : TextShape.constants(statements)) {
            String constantClass = t.kind() == Token.Kind.STRING ? ConstantShape.stringClass(t.text())
                    : ConstantShape.numberClass(t.text());
            if (leftOutByL3.contains(t.start()) && constantClass != null) {
                constants.add(t);
                constantClasses.add(constantClass);
            }
        }
        return new ShapeTemplate(text, standardConformingStrings, key, constants, constantClasses);
    }

    /** L1's shape key of the text, and of every text that {@link #matches} it. */
    public String shapeKey() {
        return shapeKey;
    }

    public boolean standardConformingStrings() {
        return standardConformingStrings;
    }

    /** The text the template was made from. */
    public String text() {
        return text;
    }

    /**
     * Whether {@code other} is this text with each of its constants replaced by a literal of the same class, read
     * with the same standard_conforming_strings. Linear in the length of {@code other}; no allocation but a
     * number's text.
     */
    public boolean matches(String other, boolean otherStandardConformingStrings) {
        if (otherStandardConformingStrings != standardConformingStrings
                || other.length() > ComplexityEnvelope.MAX_TEXT_CHARS) {
            return false;
        }
        int at = 0;
        int otherAt = 0;
        for (int i = 0; i < starts.length; i++) {
            int same = starts[i] - at;
            if (!other.regionMatches(otherAt, text, at, same)) {
                return false;
            }
            otherAt += same;
            at = ends[i];
            int end = literalEnd(other, otherAt, i);
            if (end < 0) {
                return false;
            }
            otherAt = end;
        }
        int rest = text.length() - at;
        return other.length() - otherAt == rest && other.regionMatches(otherAt, text, at, rest);
    }

    /** Where the literal that stands for constant {@code i} at {@code from} ends, or -1 if none of its class does. */
    private int literalEnd(String s, int from, int i) {
        if (from >= s.length()) {
            return -1;
        }
        if (s.charAt(from) == '\'') {
            return textClasses[i].equals("string") ? stringEnd(s, from) : -1;
        }
        int end = digitsEnd(s, from);
        if (end == from) {
            return -1;
        }
        if (end + 1 < s.length() && s.charAt(end) == '.' && isDigit(s.charAt(end + 1))) {
            end = digitsEnd(s, end + 1);
        }
        String number = s.substring(from, end);
        return textClasses[i].equals(TextShape.numberClass(number))
                && constantClasses[i].equals(ConstantShape.numberClass(number)) ? end : -1;
    }

    /**
     * The end of a {@code '...'} string at {@code from} whose value L1 classes as a plain string: letters, digits and
     * {@link TextShape}'s safe characters, a quote only doubled; -1 for any other.
     */
    private static int stringEnd(String s, int from) {
        int k = from + 1;
        while (k < s.length()) {
            int c = s.codePointAt(k);
            if (c == '\'') {
                if (k + 1 < s.length() && s.charAt(k + 1) == '\'') {
                    k += 2;
                    continue;
                }
                return k + 1;
            }
            if (!TextShape.safeInString(c)) {
                return -1;
            }
            k += Character.charCount(c);
        }
        return -1;
    }

    private static int digitsEnd(String s, int from) {
        int k = from;
        while (k < s.length() && isDigit(s.charAt(k))) {
            k++;
        }
        return k;
    }

    private static boolean isDigit(char c) {
        return c >= '0' && c <= '9';
    }
}
