package io.pgward.guard.catalog;

import io.pgward.guard.lexer.Token;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The text parameters of a statement that take type names: those whose every use is the whole argument of a call
 * written {@code to_regtype($n)} or {@code pg_catalog.to_regtype($n)} (psycopg 3.2's {@code TypeInfo.fetch}). The
 * session resolves their bound values before each Bind and binds a name nothing has in place of a hidden type's, so
 * to_regtype answers NULL for it as for an absent type; a value so replaced must reach nothing but to_regtype, or
 * the replacement itself would show. That the call is the built-in to_regtype, compared only with visible types'
 * OIDs, is the gates' to prove ({@link GatedUses#keyedTypeNameTexts}): the spelling here only picks the candidates.
 */
final class TypeNameTexts {

    /** text and varchar: a value in binary format is the name's bytes, as in text format. */
    static final Set<Long> TYPES = Set.of(25L, 1043L);

    private TypeNameTexts() {
    }

    /**
     * @param types the OID of each {@code $n} the statement uses, given or inferred
     */
    static Set<Integer> of(StatementShape shape, Map<Integer, Long> types) {
        Set<Integer> candidates = new TreeSet<>();
        types.forEach((n, type) -> {
            if (TYPES.contains(type)) {
                candidates.add(n);
            }
        });
        List<Token> tokens = shape.tokens();
        for (int i = shape.from(); i < shape.to() && !candidates.isEmpty(); i++) {
            Token t = tokens.get(i);
            if (t.kind() == Token.Kind.PARAMETER && !toRegtypeArgument(tokens, i, shape.from(), shape.to())) {
                candidates.remove(Integer.parseInt(t.value()));
            }
        }
        return candidates;
    }

    /** Whether the parameter at {@code at} is all of the argument of {@code [pg_catalog.]to_regtype(...)}. */
    private static boolean toRegtypeArgument(List<Token> tokens, int at, int from, int to) {
        if (at - 2 < from || at + 1 >= to || !punctuation(tokens.get(at - 1), "(")
                || !punctuation(tokens.get(at + 1), ")") || !tokens.get(at - 2).isWord("to_regtype")) {
            return false;
        }
        int name = at - 2;
        if (name - 1 >= from && punctuation(tokens.get(name - 1), ".")) {
            return name - 2 >= from && tokens.get(name - 2).isWord("pg_catalog")
                    && !(name - 3 >= from && punctuation(tokens.get(name - 3), "."));
        }
        return true;
    }

    private static boolean punctuation(Token t, String text) {
        return t.kind() == Token.Kind.PUNCTUATION && t.text().equals(text);
    }
}
