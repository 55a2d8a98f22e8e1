package io.pgward.guard.catalog;

import io.pgward.guard.lexer.LexerException;
import io.pgward.guard.lexer.SqlLexer;
import io.pgward.guard.selection.ResolvedSelection;
import io.pgward.guard.selection.SelectedNames;
import io.pgward.guard.selection.SelectionResolver;
import io.pgward.testkit.TestDatabase;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * TEST ONLY: what the catalog tests on a real PostgreSQL share once {@link GuardFixture} is loaded: the selection with
 * its catalog and view filters, the rewrite through them, the enum types the type tests look up, a catalog check
 * on the database, and the rows a statement returns.
 */
final class FilteredFixture {

    private FilteredFixture() {
    }

    /** Catalog filters for the visible relations of the names, resolved as a "tables" selection. */
    static CatalogFilters filters(Connection owner, List<String> names) throws SQLException {
        ResolvedSelection resolved = SelectionResolver.resolve(owner, SelectedNames.parse("tables", names));
        return CatalogFilters.of(resolved.visible(), CatalogColumns.read(owner));
    }

    /** The names selected with catalog filters and filtered system views, as a selection login has them. */
    static TableSelection filteredSelection(Connection owner, List<String> names) throws SQLException {
        ResolvedSelection resolved = SelectionResolver.resolve(owner, SelectedNames.parse("tables", names));
        return GuardFixture.selection(owner, names)
                .withFilters(CatalogFilters.of(resolved.visible(), CatalogColumns.read(owner)))
                .withViews(ViewFilters.of(resolved.visible(), resolved.names(), ViewColumns.read(owner)));
    }

    /** The statement with the selection's covered catalogs and filtered views replaced by their filters. */
    static String rewrite(String sql, String searchPath, TableSelection selection) {
        try {
            return CatalogRewrite.rewrite(SqlLexer.split(sql, true).getFirst(), searchPath, selection.filters(),
                    selection.views());
        } catch (LexerException e) {
            throw new AssertionError(e);
        }
    }

    /**
     * The types the type tests look up: an enum a selected table uses ({@code public.order_status} on orders), a
     * hidden enum with the same name ({@code hr.order_status}) and a hidden enum only a hidden table uses
     * ({@code hr.secret_kind} on hr.salaries).
     */
    static void createStatusTypes(Statement owner) throws SQLException {
        owner.execute("CREATE TYPE public.order_status AS ENUM ('new', 'paid')");
        owner.execute("ALTER TABLE public.orders ADD COLUMN state public.order_status");
        owner.execute("CREATE TYPE hr.order_status AS ENUM ('tok_live')");
        owner.execute("CREATE TYPE hr.secret_kind AS ENUM ('tok_live')");
        owner.execute("ALTER TABLE hr.salaries ADD COLUMN kind hr.secret_kind");
    }

    /** A catalog check on two control connections: 5 s a check, 1000 verdicts cached, no schema polling. */
    static CatalogCheck check(TestDatabase db) {
        return CatalogChecks.on(db);
    }

    /** Every row on a new connection as the database owner, its cells joined with "|". */
    /**
     * Asserts that {@code refusal}, the verdict for {@code sql} which names the hidden {@code hidden}, is PostgreSQL's
     * own answer for the same statement with {@code absent} (a name nothing has, of the same length, so at the same
     * position) in its place: its SQLSTATE, its text with the name put back, its position.
     */
    static void assertAnsweredAsAbsent(TestDatabase db, io.pgward.guard.Verdict refusal, String sql, String hidden,
                                       String absent) {
        org.postgresql.util.PSQLException expected = org.junit.jupiter.api.Assertions.assertThrows(
                org.postgresql.util.PSQLException.class, () -> rows(db, sql.replace(hidden, absent)));
        io.pgward.guard.Verdict.Refuse r = org.junit.jupiter.api.Assertions.assertInstanceOf(
                io.pgward.guard.Verdict.Refuse.class, refusal, sql);
        org.junit.jupiter.api.Assertions.assertEquals(CatalogRefusals.ABSENT_OBJECT, r.rule(), r.message());
        org.junit.jupiter.api.Assertions.assertEquals(expected.getSQLState(), r.sqlState(), r.message());
        String message = expected.getServerErrorMessage().getMessage().replace(absent, hidden)
                .replace(absent.toLowerCase(), hidden.toLowerCase());
        if (absent.indexOf('.') > 0 && hidden.indexOf('.') > 0) {
            // The schema alone, where PostgreSQL answers for the schema.
            message = message.replace(absent.substring(0, absent.indexOf('.')).toLowerCase(),
                    hidden.substring(0, hidden.indexOf('.')).toLowerCase());
        }
        org.junit.jupiter.api.Assertions.assertEquals(message, r.message());
        org.junit.jupiter.api.Assertions.assertEquals(expected.getServerErrorMessage().getPosition(), r.position(),
                r.message());
    }

    static List<String> rows(TestDatabase db, String sql) throws SQLException {
        try (Connection c = db.connect()) {
            return rows(c, sql);
        }
    }

    /** Every row on the given connection, its cells joined with "|" (a null cell as "null"). */
    static List<String> rows(Connection c, String sql) throws SQLException {
        List<String> rows = new ArrayList<>();
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            int n = rs.getMetaData().getColumnCount();
            while (rs.next()) {
                List<String> cells = new ArrayList<>();
                for (int i = 1; i <= n; i++) {
                    cells.add(String.valueOf(rs.getString(i)));
                }
                rows.add(String.join("|", cells));
            }
        }
        return rows;
    }
}
