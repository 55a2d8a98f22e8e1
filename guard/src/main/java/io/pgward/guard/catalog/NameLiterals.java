package io.pgward.guard.catalog;

import io.pgward.guard.lexer.Token;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * The string literals of a statement, where a hidden object's name is looked for to word PostgreSQL's error for an
 * absent one, and where that error points. PostgreSQL reads a reg* literal ({@code 'x'::regclass},
 * {@code regclass 'x'}, {@code CAST('x' AS regclass)}) while it analyses the statement, and an error of the input
 * function carries the literal's position (parse_coerce.c sets the error cursor to the constant's location). The
 * stored parse tree of PostgreSQL 17 and later keeps no locations, so the literal is found by its tokens.
 */
final class NameLiterals {

    /** The object-identifier types a literal may be read as while the statement is analysed. */
    private static final Set<String> REG_TYPES = Set.of("regclass", "regtype", "regproc", "regprocedure",
            "regoper", "regoperator", "regnamespace", "regrole", "regcollation");

    /**
     * One string literal.
     *
     * @param value its decoded content
     * @param regType the object-identifier type it is written as the input of (cast, typed literal, CAST), or null
     * @param argument it is a whole argument of a call ({@code f('x')}, {@code f(a, 'x')}), which PostgreSQL
     *                 coerces to the parameter's type, a reg* type too, while it analyses the statement
     * @param start offset in the statement of its first character
     * @param end offset in the statement just after its last character
     */
    record Literal(String value, String regType, boolean argument, int start, int end) {

        /**
         * 1-based position of its first character in the statement, counted as a verdict's position is
         * ({@link io.pgward.guard.Positions}), as PostgreSQL's errors about it are once read.
         */
        int position() {
            return start + 1;
        }

        boolean regTyped() {
            return regType != null;
        }

        /** How likely PostgreSQL read this literal as a reg* constant: 0 written so, 1 an argument, 2 otherwise. */
        int rank() {
            return regTyped() ? 0 : argument ? 1 : 2;
        }
    }

    private NameLiterals() {
    }

    /** The string literals among {@code tokens} (a statement's), in order. */
    static List<Literal> of(List<Token> tokens) {
        List<Literal> literals = new ArrayList<>();
        for (int i = 0; i < tokens.size(); i++) {
            Token t = tokens.get(i);
            if (t.kind() == Token.Kind.STRING) {
                literals.add(new Literal(t.value(), regType(tokens, i),
                        argument(tokens, i), t.start(), t.end()));
            }
        }
        return literals;
    }

    private static boolean argument(List<Token> tokens, int at) {
        return at > 1 && (punctuation(tokens.get(at - 1), "(") && identifierLike(tokens.get(at - 2))
                || punctuation(tokens.get(at - 1), ","))
                && at + 1 < tokens.size() && (punctuation(tokens.get(at + 1), ")")
                || punctuation(tokens.get(at + 1), ","));
    }

    private static boolean identifierLike(Token t) {
        return t.kind() == Token.Kind.WORD || t.kind() == Token.Kind.QUOTED_IDENTIFIER;
    }

    private static String regType(List<Token> tokens, int at) {
        // 'x'::regclass, 'x'::pg_catalog.regclass, '{..}'::regtype[]
        if (at + 2 < tokens.size() && operator(tokens.get(at + 1), "::") && typeNameAt(tokens, at + 2) != null) {
            return typeNameAt(tokens, at + 2);
        }
        // regclass 'x'
        if (at > 0 && regTypeWord(tokens.get(at - 1))) {
            return tokens.get(at - 1).value();
        }
        // CAST('x' AS regclass)
        return at > 1 && punctuation(tokens.get(at - 1), "(") && tokens.get(at - 2).isWord("cast")
                && at + 2 < tokens.size() && tokens.get(at + 1).isWord("as") ? typeNameAt(tokens, at + 2) : null;
    }

    /** The reg* type name at {@code at}, bare or after {@code pg_catalog.}, or null. */
    private static String typeNameAt(List<Token> tokens, int at) {
        int word = at + 2 < tokens.size() && identifier(tokens.get(at), "pg_catalog")
                && punctuation(tokens.get(at + 1), ".") ? at + 2 : at;
        return regTypeWord(tokens.get(word)) ? tokens.get(word).value() : null;
    }

    private static boolean regTypeWord(Token t) {
        return (t.kind() == Token.Kind.WORD || t.kind() == Token.Kind.QUOTED_IDENTIFIER)
                && REG_TYPES.contains(t.value());
    }

    private static boolean identifier(Token t, String value) {
        return (t.kind() == Token.Kind.WORD || t.kind() == Token.Kind.QUOTED_IDENTIFIER) && t.value().equals(value);
    }

    private static boolean operator(Token t, String text) {
        return t.kind() == Token.Kind.OPERATOR && t.text().equals(text);
    }

    private static boolean punctuation(Token t, String text) {
        return t.kind() == Token.Kind.PUNCTUATION && t.text().equals(text);
    }
}
