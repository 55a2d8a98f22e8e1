package io.pgward.guard.catalog;

import io.pgward.guard.lexer.Token;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Whether PostgreSQL's error for a statement may reach a login with a table selection as PostgreSQL sent it.
 *
 * <p>PostgreSQL stops analysing a statement at its first error, before pgward sees which relations it reads, and
 * the error can describe a relation outside the selection: the HINT of an undefined column names the nearest
 * column of any relation in scope ({@code select salry from hr.salaries}: "Perhaps you meant to reference the
 * column "salaries.salary""), an operator or input-syntax error names a hidden column's type, and even the choice
 * between "column does not exist" and pgward's refusal of a statement that is valid tells which columns a hidden
 * relation has. So when any identifier the statement writes is the name of a relation outside the selection that
 * is not built in, the statement gets the refusal a valid statement reading it gets, whatever PostgreSQL said.
 *
 * <p>By name and in any schema, not by resolution (there is none after an error): a column or alias that shares a
 * hidden relation's name also withholds PostgreSQL's error, which fails closed. Names are compared as PostgreSQL
 * stores them (the lexer's folded values, truncated to the length of a name by the cast to {@code name}). A syntax
 * error needs none of this: PostgreSQL's grammar knows nothing of the catalog.
 */
final class HiddenRelationNames {

    /** OIDs below this are PostgreSQL's own objects (FirstNormalObjectId), the same for every database. */
    private static final long FIRST_NORMAL_OBJECT_ID = 16384;

    private static final String HIDDEN = """
            SELECT pg_catalog.quote_ident(n.nspname) || '.' || pg_catalog.quote_ident(c.relname)
            FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
            WHERE c.relname OPERATOR(pg_catalog.=) ANY (CAST(? AS pg_catalog.name[]))
              AND c.oid OPERATOR(pg_catalog.>=) CAST(? AS pg_catalog.oid)
              AND NOT c.oid OPERATOR(pg_catalog.=) ANY (CAST(? AS pg_catalog.oid[]))
            ORDER BY 1""";

    private HiddenRelationNames() {
    }

    /**
     * The qualified names of the relations outside {@code selection}, not built in, that an identifier of
     * {@code tokens} names; empty when there are none. Runs one query on {@code connection}, outside any
     * transaction.
     */
    static List<String> named(Connection connection, List<Token> tokens, TableSelection selection)
            throws SQLException {
        Set<String> identifiers = new LinkedHashSet<>();
        for (Token token : tokens) {
            if (token.kind() == Token.Kind.WORD || token.kind() == Token.Kind.QUOTED_IDENTIFIER) {
                identifiers.add(token.value());
            }
        }
        if (identifiers.isEmpty()) {
            return List.of();
        }
        List<String> hidden = new ArrayList<>();
        try (PreparedStatement ps = connection.prepareStatement(HIDDEN)) {
            Array names = connection.createArrayOf("text", identifiers.toArray());
            Array selected = connection.createArrayOf("int8",
                    selection.relations().stream().map(SelectedRelation::oid).toArray());
            ps.setArray(1, names);
            ps.setLong(2, FIRST_NORMAL_OBJECT_ID);
            ps.setArray(3, selected);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    hidden.add(rs.getString(1));
                }
            }
        }
        return hidden;
    }
}
