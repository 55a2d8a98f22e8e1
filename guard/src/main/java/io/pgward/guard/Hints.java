package io.pgward.guard;

import java.util.List;

/**
 * The HINTs of pgward's refusals ({@link Verdict.Refuse#hint()}): what a user refused for what a login with a table
 * selection may not see can run instead. They point at the functions pgward answers itself, which work through every
 * read-only login with a selection: {@code select * from pgward.relations()} lists the selected relations, and
 * {@code select * from pgward.describe('name')} gives one's columns, keys and relationships.
 */
public final class Hints {

    static final String RELATIONS = "select * from pgward.relations()";

    private Hints() {
    }

    /** For a statement that reads something outside the selection: where to see what the login may read. */
    public static String relations() {
        return RELATIONS + " lists the tables and views this login may read.";
    }

    /**
     * For a statement about columns of selected relations (an undefined or ambiguous column): how to see each
     * one's columns; {@link #relations()} when it names none.
     *
     * @param names the selected relations the statement names, as {@code describe} takes them ({@code schema.name},
     *              quoted where PostgreSQL needs it)
     */
    public static String describe(List<String> names) {
        if (names.isEmpty()) {
            return relations();
        }
        StringBuilder hint = new StringBuilder();
        for (String name : names) {
            hint.append(hint.isEmpty() ? "" : "; ").append("select * from pgward.describe(")
                    .append(literal(name)).append(") shows the columns of ").append(name);
        }
        return hint.append('.').toString();
    }

    /** {@code name} as a string literal: a quoted identifier may hold a quote. */
    private static String literal(String name) {
        return "'" + name.replace("'", "''") + "'";
    }
}
