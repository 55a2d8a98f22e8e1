package io.pgward.guard.catalog;

import io.pgward.guard.lexer.Token;
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
 * <p>A function that is not built in and returns the row type of such a relation describes it as well
 * ({@code select salry from staff()}, where {@code staff} returns {@code setof hr.salaries}): a statement that
 * names one counts as naming the relation, as the valid statement reads that row type.
 *
 * <p>By name, not by resolution (there is none after an error). In each dotted chain of identifiers the first is
 * taken as a bare relation name in any schema (a search_path can make it one), and each adjacent pair as
 * {@code schema.relation} ({@code shadow.orders} is not {@code public.orders}): a column or alias that shares a
 * hidden relation's name also withholds PostgreSQL's error, which fails closed. Names are compared as PostgreSQL
 * stores them (the lexer's folded values, truncated to the length of a name by the cast to {@code name}). A
 * syntax error needs none of this: PostgreSQL's grammar knows nothing of the catalog. The query runs outside the
 * check's transaction, with the control connection's own search_path, so every name in it is qualified.
 */
final class HiddenRelationNames {

    /** OIDs below this are PostgreSQL's own objects (FirstNormalObjectId), the same for every database. */
    private static final long FIRST_NORMAL_OBJECT_ID = 16384;

    private static final String HIDDEN = """
            SELECT pg_catalog.quote_ident(n.nspname) || '.' || pg_catalog.quote_ident(c.relname)
            FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid OPERATOR(pg_catalog.=) c.relnamespace
            WHERE (c.relname OPERATOR(pg_catalog.=) ANY (CAST(? AS pg_catalog.name[]))
                   OR EXISTS (SELECT FROM ROWS FROM (pg_catalog.unnest(CAST(? AS pg_catalog.name[])),
                                                     pg_catalog.unnest(CAST(? AS pg_catalog.name[]))) AS p(s, r)
                              WHERE p.s OPERATOR(pg_catalog.=) n.nspname AND p.r OPERATOR(pg_catalog.=) c.relname)
                   OR c.reltype OPERATOR(pg_catalog.=) ANY (
                        SELECT f.prorettype FROM pg_catalog.pg_proc f
                        WHERE f.proname OPERATOR(pg_catalog.=) ANY (CAST(? AS pg_catalog.name[]))
                          AND f.oid OPERATOR(pg_catalog.>=) CAST(? AS pg_catalog.oid)))
              AND c.oid OPERATOR(pg_catalog.>=) CAST(? AS pg_catalog.oid)
              AND NOT c.oid OPERATOR(pg_catalog.=) ANY (CAST(? AS pg_catalog.oid[]))
            ORDER BY 1""";

    private HiddenRelationNames() {
    }

    /**
     * The qualified names of the relations outside {@code selection}, not built in, that {@code tokens} may name;
     * empty when there are none. Runs one query on {@code connection}, outside any transaction.
     */
    static List<String> named(Connection connection, List<Token> tokens, TableSelection selection)
            throws SQLException {
        Set<String> bare = new LinkedHashSet<>();
        Set<String> every = new LinkedHashSet<>();
        List<String> schemas = new ArrayList<>();
        List<String> names = new ArrayList<>();
        int i = 0;
        while (i < tokens.size()) {
            if (!isIdentifier(tokens.get(i))) {
                i++;
                continue;
            }
            bare.add(tokens.get(i).value());
            every.add(tokens.get(i).value());
            int j = i;
            while (j + 2 < tokens.size() && isDot(tokens.get(j + 1)) && isIdentifier(tokens.get(j + 2))) {
                schemas.add(tokens.get(j).value());
                names.add(tokens.get(j + 2).value());
                every.add(tokens.get(j + 2).value());
                j += 2;
            }
            i = j + 1;
        }
        if (bare.isEmpty()) {
            return List.of();
        }
        List<String> hidden = new ArrayList<>();
        try (PreparedStatement ps = connection.prepareStatement(HIDDEN)) {
            ps.setArray(1, connection.createArrayOf("text", bare.toArray()));
            ps.setArray(2, connection.createArrayOf("text", schemas.toArray()));
            ps.setArray(3, connection.createArrayOf("text", names.toArray()));
            ps.setArray(4, connection.createArrayOf("text", every.toArray()));
            ps.setLong(5, FIRST_NORMAL_OBJECT_ID);
            ps.setLong(6, FIRST_NORMAL_OBJECT_ID);
            ps.setArray(7, connection.createArrayOf("int8",
                    selection.relations().stream().map(SelectedRelation::oid).toArray()));
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    hidden.add(rs.getString(1));
                }
            }
        }
        return hidden;
    }

    private static boolean isIdentifier(Token token) {
        return token.kind() == Token.Kind.WORD || token.kind() == Token.Kind.QUOTED_IDENTIFIER;
    }

    private static boolean isDot(Token token) {
        return token.kind() == Token.Kind.PUNCTUATION && token.text().equals(".");
    }
}
