package io.pgward.guard.selection;

import io.pgward.guard.SqlStates;
import io.pgward.guard.lexer.LexerException;
import io.pgward.guard.lexer.SqlLexer;
import io.pgward.guard.lexer.Token;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The column lists pgward adds to PostgreSQL's undefined-column (42703, including a {@code JOIN ... USING} column
 * one side lacks) and ambiguous-column (42702) errors while a selection is set, so that the reader sees which
 * columns exist.
 *
 * <p>For each selected relation the statement names, in list order: {@code Columns of <name>: <c1>, <c2>.} Names
 * are quoted where PostgreSQL needs it; a list stops at {@value #MAX_COLUMNS} names, then {@code , …} with no
 * period. The lists are joined with a space and appended to the error's primary message (the 'M' field of the
 * ErrorResponse) after a space, or after ". " when the message does not already end with a period:
 * {@code column "totl" does not exist. Columns of public.orders: id, customer_id, status.}
 *
 * <p>A relation counts when the statement names it the way PostgreSQL would resolve the name, read from the
 * lexer's tokens, so that text inside string literals and comments is never a name: in each dotted chain of
 * identifiers, every adjacent pair matches a relation on schema and name ({@code hr.stores} is not
 * {@code public.stores}), and the first identifier of the chain is a bare name that matches a selected relation of
 * that name in any schema ({@code orders} and {@code orders.id} both name {@code public.orders}). Unquoted
 * identifiers fold to lower case and quoted ones keep their case, as the lexer gives them.
 */
public final class ColumnHints {

    public static final String UNDEFINED_COLUMN = SqlStates.UNDEFINED_COLUMN;
    public static final String AMBIGUOUS_COLUMN = SqlStates.AMBIGUOUS_COLUMN;
    static final int MAX_COLUMNS = 60;

    private ColumnHints() {
    }

    /** Whether an error with this SQLSTATE gets the hints. */
    public static boolean appliesTo(String sqlState) {
        return UNDEFINED_COLUMN.equals(sqlState) || AMBIGUOUS_COLUMN.equals(sqlState);
    }

    /**
     * The error's primary message with the hints appended, or unchanged when there are none.
     *
     * @see #hints(String, boolean, ResolvedSelection)
     */
    public static String appendTo(String message, String sql, boolean standardConformingStrings,
                                  ResolvedSelection selection) {
        String hints = hints(sql, standardConformingStrings, selection);
        if (hints.isEmpty()) {
            return message;
        }
        return message + (message.endsWith(".") ? " " : ". ") + hints;
    }

    /**
     * The hint text for {@code sql}: {@code Columns of ...} for each selected relation it names, joined with a
     * space; empty when it names none, when there is no selection, or when the text does not lex.
     *
     * @param selection the login's resolved selection, whose relations carry their column names
     */
    public static String hints(String sql, boolean standardConformingStrings, ResolvedSelection selection) {
        return String.join(" ", namedRelations(sql, standardConformingStrings, selection).stream()
                .map(ColumnHints::columnsOf).toList());
    }

    /**
     * The display names of the selected relations {@code sql} names, in list order, as {@code pgward.describe}
     * takes them (for the HINT of a column error); empty as for {@link #hints}.
     */
    public static List<String> named(String sql, boolean standardConformingStrings, ResolvedSelection selection) {
        return namedRelations(sql, standardConformingStrings, selection).stream()
                .map(SelectedRelation::displayName).toList();
    }

    private static List<SelectedRelation> namedRelations(String sql, boolean standardConformingStrings,
                                                         ResolvedSelection selection) {
        if (selection.relations().isEmpty()) {
            return List.of();
        }
        List<Token> tokens;
        try {
            tokens = SqlLexer.tokenize(sql, standardConformingStrings);
        } catch (LexerException e) {
            return List.of();
        }
        Set<SelectedRelation> named = named(tokens, selection);
        List<SelectedRelation> inOrder = new ArrayList<>();
        for (SelectedRelation relation : selection.relations()) {
            if (named.contains(relation)) {
                inOrder.add(relation);
            }
        }
        return inOrder;
    }

    static String columnsOf(SelectedRelation relation) {
        List<String> columns = relation.columns();
        if (columns.size() <= MAX_COLUMNS) {
            return "Columns of " + relation.displayName() + ": " + String.join(", ", columns) + ".";
        }
        return "Columns of " + relation.displayName() + ": " + String.join(", ", columns.subList(0, MAX_COLUMNS))
                + ", …";
    }

    private static Set<SelectedRelation> named(List<Token> tokens, ResolvedSelection selection) {
        Set<SelectedRelation> named = new LinkedHashSet<>();
        int i = 0;
        while (i < tokens.size()) {
            if (!isIdentifier(tokens.get(i))) {
                i++;
                continue;
            }
            List<String> chain = new ArrayList<>();
            chain.add(tokens.get(i).value());
            int j = i + 1;
            while (j + 1 < tokens.size() && isDot(tokens.get(j)) && isIdentifier(tokens.get(j + 1))) {
                chain.add(tokens.get(j + 1).value());
                j += 2;
            }
            for (SelectedRelation relation : selection.relations()) {
                if (relation.name().equals(chain.getFirst())) {
                    named.add(relation);
                }
                for (int k = 0; k + 1 < chain.size(); k++) {
                    if (relation.schema().equals(chain.get(k)) && relation.name().equals(chain.get(k + 1))) {
                        named.add(relation);
                    }
                }
            }
            i = j;
        }
        return named;
    }

    private static boolean isIdentifier(Token token) {
        return token.kind() == Token.Kind.WORD || token.kind() == Token.Kind.QUOTED_IDENTIFIER;
    }

    private static boolean isDot(Token token) {
        return token.kind() == Token.Kind.PUNCTUATION && token.text().equals(".");
    }
}
