package io.pgward.guard.catalog;

import io.pgward.guard.Positions;
import io.pgward.guard.lexer.Token;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The text of the query a {@link StatementShape} holds, as the catalog check analyses it: each {@code $n} replaced
 * by a typed NULL ({@code (NULL::integer)}), so the query can be stored in a view, and for
 * {@code COPY relation [(columns)] TO} a {@code SELECT} of what it copies. It remembers where each piece came from,
 * so a position PostgreSQL reports in the analysed text can be given back in the client's statement.
 */
final class QueryText {

    /** A piece of the analysed text copied from the statement: {@code length} characters at each offset. */
    private record Piece(int textStart, int sqlStart, int length) {
    }

    private final StringBuilder text = new StringBuilder();
    private final List<Piece> pieces = new ArrayList<>();

    private QueryText() {
    }

    /**
     * The parameter numbers ($1 → 1) the query uses, ascending. A number beyond int32 counts as
     * {@link Integer#MIN_VALUE}, below 1 like {@code $0}: no Bind gives it a value (PostgreSQL 17 and older wrap it
     * as C's atol and a 32-bit cast do, which depends on the platform; 18 refuses it), so the check sends it as
     * written and the server answers with its own error.
     */
    static TreeSet<Integer> parameters(StatementShape shape) {
        TreeSet<Integer> numbers = new TreeSet<>();
        for (int i = shape.from(); i < shape.to(); i++) {
            Token t = shape.tokens().get(i);
            if (t.kind() == Token.Kind.PARAMETER) {
                numbers.add(fitsInt32(t.value()) ? Integer.parseInt(t.value()) : Integer.MIN_VALUE);
            }
        }
        return numbers;
    }

    /** Whether the digits of a {@code $n} (no leading zeros) are at most 2147483647. */
    private static boolean fitsInt32(String digits) {
        return digits.length() < 10 || digits.length() == 10 && digits.compareTo("2147483647") <= 0;
    }

    /** The query with its parameters left as they are (for PREPARE, which infers their types). */
    static QueryText withParameters(String sql, StatementShape shape) {
        return build(sql, shape, null);
    }

    /** The query with each {@code $n} replaced by {@code (NULL::<typeNames[n]>)}. */
    static QueryText withTypedNulls(String sql, StatementShape shape, Map<Integer, String> typeNames) {
        return withTypedNulls(sql, shape, typeNames, Set.of());
    }

    /**
     * As {@link #withTypedNulls(String, StatementShape, Map)}, and each {@code $n} of {@code typeNameParameters}
     * (parameters of type regtype) replaced by {@code (pg_catalog.to_regtype(NULL::pg_catalog.text))}: a regtype
     * whose value the check does not know, like a to_reg* call of a parameter, so the gates hold it to the places
     * where any OID, a hidden type's too, tells nothing ({@link KeyMatch}). A typed NULL would be a constant, and
     * a NULL constant beside parameters proves nothing.
     */
    static QueryText withTypedNulls(String sql, StatementShape shape, Map<Integer, String> typeNames,
                                    Set<Integer> typeNameParameters) {
        return build(sql, shape, typeNames, typeNameParameters);
    }

    private static QueryText build(String sql, StatementShape shape, Map<Integer, String> typeNames) {
        return build(sql, shape, typeNames, Set.of());
    }

    private static QueryText build(String sql, StatementShape shape, Map<Integer, String> typeNames,
                                   Set<Integer> typeNameParameters) {
        QueryText q = new QueryText();
        List<Token> tokens = shape.tokens();
        if (shape.kind() == StatementShape.Kind.COPY_RELATION) {
            q.append("SELECT ");
            int relationEnd = shape.from();
            while (relationEnd < shape.to() && !isOpenParen(tokens.get(relationEnd))) {
                relationEnd++;
            }
            if (relationEnd < shape.to()) {
                int columnsStart = tokens.get(relationEnd + 1).start();
                int columnsEnd = tokens.get(shape.to() - 2).end();
                q.copy(sql, columnsStart, columnsEnd);
            } else {
                q.append("*");
            }
            q.append(" FROM ONLY ");
            q.copy(sql, tokens.get(shape.from()).start(), tokens.get(relationEnd - 1).end());
            return q;
        }
        int cursor = tokens.get(shape.from()).start();
        int end = tokens.get(shape.to() - 1).end();
        for (int i = shape.from(); i < shape.to(); i++) {
            Token t = tokens.get(i);
            if (typeNames != null && t.kind() == Token.Kind.PARAMETER) {
                q.copy(sql, cursor, t.start());
                String type = typeNames.get(Integer.parseInt(t.value()));
                if (type == null) {
                    throw new IllegalStateException("no type for $" + t.value());
                }
                q.pieces.add(new Piece(q.text.length(), t.start(), 0));
                q.append(typeNameParameters.contains(Integer.parseInt(t.value()))
                        ? "(pg_catalog.to_regtype(NULL::pg_catalog.text))" : "(NULL::" + type + ")");
                cursor = t.end();
            }
        }
        q.copy(sql, cursor, end);
        return q;
    }

    private static boolean isOpenParen(Token t) {
        return t.kind() == Token.Kind.PUNCTUATION && t.text().equals("(");
    }

    private void append(String s) {
        text.append(s);
    }

    private void copy(String sql, int from, int to) {
        if (to > from) {
            pieces.add(new Piece(text.length(), from, to - from));
            text.append(sql, from, to);
        }
    }

    String text() {
        return text.toString();
    }

    /**
     * The 1-based position in the client's statement, in UTF-16 units ({@link Positions}), of a 1-based position
     * PostgreSQL reported in characters in a text that holds this query at {@code offset}; 0 when it falls outside
     * the query.
     */
    int statementPosition(int reported, int offset) {
        if (reported - offset < 1) {
            return 0;
        }
        // The text before the query is pgward's ASCII: characters and UTF-16 units alike.
        int at = Positions.inUtf16(text.toString(), reported - offset) - 1;
        if (at >= text.length()) {
            return 0;
        }
        Piece best = null;
        for (Piece p : pieces) {
            if (p.textStart() <= at) {
                best = p;
            }
        }
        if (best == null) {
            return 0;
        }
        int inside = Math.min(at - best.textStart(), Math.max(best.length() - 1, 0));
        return best.sqlStart() + inside + 1;
    }
}
