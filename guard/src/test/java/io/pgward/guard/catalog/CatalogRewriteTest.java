package io.pgward.guard.catalog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgward.guard.lexer.LexerException;
import io.pgward.guard.lexer.SqlLexer;
import io.pgward.guard.lexer.StatementText;
import io.pgward.guard.selection.OidSet;
import io.pgward.guard.selection.VisibleCatalog;
import io.pgward.guard.selection.VisibleCatalog.Catalog;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The rewrite on L1's tokens, without a server: which references it replaces, and how. */
class CatalogRewriteTest {

    private static final String PATH = "\"$user\", public";

    static final CatalogFilters FILTERS = CatalogFilters.of(
            VisibleCatalog.of(170000, 16500, Map.of(Catalog.PG_CLASS, OidSet.of(16400, 16401),
                    Catalog.PG_NAMESPACE, OidSet.of(11, 2200), Catalog.PG_TYPE, OidSet.of(16402))),
            CatalogColumns.of(Map.of("pg_class", 1259L, "pg_namespace", 2615L, "pg_inherits", 2611L),
                    Map.of("pg_class", List.of(col("oid", 1), col("relname", 2), col("relnamespace", 3),
                                    new CatalogColumns.Column("relacl", 4, true)),
                            "pg_namespace", List.of(col("oid", 1), col("nspname", 2)),
                            "pg_inherits", List.of(col("inhrelid", 1), col("inhparent", 2)))));

    /** The masked ACL column is carried only when the statement names it (or has a {@code *}): see below. */
    private static final String CLASS = "(SELECT \"oid\", \"relname\", \"relnamespace\" FROM pg_catalog.pg_class WHERE (\"oid\" OPERATOR(pg_catalog.<) '16384'::pg_catalog.oid "
            + "OR \"oid\" OPERATOR(pg_catalog.=) ANY ('{16400,16401}'::pg_catalog.oid[])) OFFSET 0)";
    private static final String NAMESPACE = "(SELECT \"oid\", \"nspname\" FROM pg_catalog.pg_namespace WHERE "
            + "\"oid\" OPERATOR(pg_catalog.=) ANY ('{11,2200}'::pg_catalog.oid[]) OFFSET 0)";

    private static CatalogColumns.Column col(String name, int attnum) {
        return new CatalogColumns.Column(name, attnum, false);
    }

    private static String rewrite(String sql) {
        return rewrite(sql, PATH);
    }

    private static String rewrite(String sql, String path) {
        try {
            StatementText statement = SqlLexer.split(sql, true).getFirst();
            return CatalogRewrite.rewrite(statement, path, FILTERS);
        } catch (LexerException e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void replacesQualifiedReferenceAndKeepsItsAlias() {
        assertEquals("SELECT c.relname FROM " + CLASS + " c WHERE c.oid = 1",
                rewrite("SELECT c.relname FROM pg_catalog.pg_class c WHERE c.oid = 1"));
        assertEquals("SELECT c.relname FROM " + CLASS + " AS c",
                rewrite("SELECT c.relname FROM pg_catalog.pg_class AS c"));
    }

    @Test
    void givesAReferenceWithoutAliasTheCatalogsName() {
        assertEquals("SELECT nspname FROM " + NAMESPACE + " AS \"pg_namespace\"",
                rewrite("SELECT nspname FROM pg_namespace"));
        assertEquals("SELECT 1 FROM " + NAMESPACE + " AS \"pg_namespace\" WHERE true",
                rewrite("SELECT 1 FROM pg_namespace WHERE true"));
    }

    @Test
    void matchesQuotedUnicodeAndUpperCaseSpellingsByValue() {
        String expected = "SELECT 1 FROM " + CLASS + " AS \"pg_class\"";
        assertEquals(expected, rewrite("SELECT 1 FROM \"pg_catalog\".\"pg_class\""));
        assertEquals(expected, rewrite("SELECT 1 FROM PG_CATALOG . PG_CLASS"));
        assertEquals(expected, rewrite("SELECT 1 FROM pg_catalog /* x */ . U&\"pg\\005fclass\""));
        assertEquals(expected, rewrite("SELECT 1 FROM Pg_Class"));
    }

    @Test
    void leavesQuotedNamesWithOtherCaseAndOtherSchemasAlone() {
        for (String sql : List.of("SELECT 1 FROM \"PG_CLASS\"", "SELECT 1 FROM public.pg_class",
                "SELECT 1 FROM \"public\".pg_class c", "SELECT 1 FROM mydb.pg_catalog.pg_class",
                "SELECT 1 FROM pg_catalog.pg_proc", "SELECT pg_class.oid FROM t",
                "SELECT x, pg_class FROM t", "SELECT pg_class(1)")) {
            assertEquals(sql, rewrite(sql), sql);
        }
    }

    @Test
    void neverTouchesStringsCommentsOrDollarQuotes() {
        for (String sql : List.of("SELECT 'FROM pg_class' FROM t", "SELECT $$ FROM pg_catalog.pg_class $$",
                "SELECT 1 -- FROM pg_class\nFROM t", "SELECT 1 /* FROM pg_class */ FROM t",
                "SELECT E'\\' FROM pg_class' FROM t", "SELECT $q$FROM pg_class$q$")) {
            assertEquals(sql, rewrite(sql), sql);
        }
    }

    @Test
    void keepsParameters() {
        assertEquals("SELECT relname FROM " + CLASS + " AS \"pg_class\" WHERE oid = $1 AND relname LIKE $2",
                rewrite("SELECT relname FROM pg_class WHERE oid = $1 AND relname LIKE $2"));
    }

    @Test
    void rewritesEveryFromItemJoinsCommasSubqueriesAndOnly() {
        assertEquals("SELECT 1 FROM " + CLASS + " c LEFT JOIN " + NAMESPACE + " n ON n.oid = c.relnamespace, "
                        + NAMESPACE + " AS \"pg_namespace\"",
                rewrite("SELECT 1 FROM pg_catalog.pg_class c LEFT JOIN pg_catalog.pg_namespace n "
                        + "ON n.oid = c.relnamespace, pg_namespace"));
        assertEquals("SELECT (SELECT count(*) FROM " + CLASS + " AS \"pg_class\") FROM t WHERE EXISTS "
                        + "(SELECT 1 FROM " + NAMESPACE + " n)",
                rewrite("SELECT (SELECT count(*) FROM pg_class) FROM t WHERE EXISTS (SELECT 1 FROM pg_namespace n)"));
        assertEquals("SELECT 1 FROM " + CLASS + " AS \"pg_class\"", rewrite("SELECT 1 FROM ONLY pg_class"));
        assertEquals("SELECT 1 FROM (" + CLASS + " c JOIN " + NAMESPACE + " n ON true)",
                rewrite("SELECT 1 FROM (pg_class c JOIN pg_namespace n ON true)"));
        assertEquals("SELECT 1 FROM generate_series(1, 2) g, " + CLASS + " AS \"pg_class\"",
                rewrite("SELECT 1 FROM generate_series(1, 2) g, pg_class"));
    }

    @Test
    void addsTheSystemColumnsTheStatementNames() {
        String rewritten = rewrite("SELECT c.xmin, c.\"tableoid\" FROM pg_class c");
        assertTrue(rewritten.contains("\"relnamespace\", \"tableoid\", \"xmin\" FROM pg_catalog.pg_class"), rewritten);
    }

    /** The ACL column keeps the entries among the visible roles: here the session's role alone. */
    @Test
    void carriesTheMaskedAclOnlyWhenTheStatementMayReadIt() {
        String masked = AclMask.expression("\"relacl\"", OidSet.of(16500)) + " AS \"relacl\"";
        assertTrue(rewrite("SELECT c.relacl FROM pg_class c").contains(masked));
        assertTrue(rewrite("SELECT c.* FROM pg_class c").contains(masked));
        assertFalse(rewrite("SELECT c.relname FROM pg_class c").contains("relacl"));
    }

    @Test
    void filtersPgInheritsOnBothEnds() {
        String rewritten = rewrite("SELECT * FROM pg_inherits");
        assertTrue(rewritten.contains("WHERE (\"inhrelid\" OPERATOR(pg_catalog.<) '16384'::pg_catalog.oid OR "
                + "\"inhrelid\" OPERATOR(pg_catalog.=) ANY ('{16400,16401}'::pg_catalog.oid[])) AND "
                + "(\"inhparent\" OPERATOR(pg_catalog.<) '16384'::pg_catalog.oid OR \"inhparent\" "
                + "OPERATOR(pg_catalog.=) ANY ('{16400,16401}'::pg_catalog.oid[])) OFFSET 0) AS \"pg_inherits\""),
                rewritten);
    }

    @Test
    void bareNamesFollowTheSearchPath() {
        String sql = "SELECT 1 FROM pg_class";
        assertEquals(sql, rewrite(sql, "public, pg_catalog"));
        assertFalse(rewrite(sql, "pg_catalog, public").equals(sql));
        assertFalse(rewrite(sql, "\"$user\", public").equals(sql));
        assertFalse(rewrite("SELECT 1 FROM pg_catalog.pg_class", "public, pg_catalog")
                .equals("SELECT 1 FROM pg_catalog.pg_class"));
        assertEquals(List.of("$user", "public", "My Schema"),
                CatalogRewrite.SearchPath.schemas("\"$user\", PUBLIC, \"My Schema\""));
    }

    @Test
    void aCteOfTheSameNameIsNotTheCatalog() {
        String sql = "WITH pg_class AS (SELECT 1 AS oid) SELECT oid FROM pg_class";
        assertEquals(sql, rewrite(sql));
        String qualified = "WITH pg_class AS MATERIALIZED (SELECT 1) SELECT 1 FROM pg_catalog.pg_class c";
        assertEquals("WITH pg_class AS MATERIALIZED (SELECT 1) SELECT 1 FROM " + CLASS + " c", rewrite(qualified));
    }

    @Test
    void unchangedWithoutFilters() {
        StatementText statement;
        try {
            statement = SqlLexer.split("SELECT 1 FROM pg_class", true).getFirst();
        } catch (LexerException e) {
            throw new AssertionError(e);
        }
        assertEquals("SELECT 1 FROM pg_class", CatalogRewrite.rewrite(statement, PATH, CatalogFilters.NONE));
    }

    /** An aggregate's {@code (*)} names no column: the object-identifier columns stay out of the subquery. */
    @Test
    void countStarCarriesNoObjectIdentifierColumn() {
        CatalogFilters withRegproc = CatalogFilters.of(VisibleCatalog.of(170000, 16500, Map.of()),
                CatalogColumns.of(Map.of("pg_am", 2601L), Map.of("pg_am", List.of(col("oid", 1),
                        col("amname", 2), new CatalogColumns.Column("amhandler", 3, false, true)))));
        String count = CatalogRewrite.rewrite(split("SELECT count(*) FROM pg_am"), PATH, withRegproc);
        assertFalse(count.contains("amhandler"), count);
        String star = CatalogRewrite.rewrite(split("SELECT * FROM pg_am"), PATH, withRegproc);
        assertTrue(star.contains("\"amhandler\""), star);
        String product = CatalogRewrite.rewrite(split("SELECT 2 * 3 FROM pg_am"), PATH, withRegproc);
        assertTrue(product.contains("\"amhandler\""), "a product is taken for a star, which refuses: " + product);
    }

    private static StatementText split(String sql) {
        try {
            return SqlLexer.split(sql, true).getFirst();
        } catch (LexerException e) {
            throw new AssertionError(e);
        }
    }

    /** pgward's wrapping of a size function's column argument in the selection's relations. */
    private static String listed(String column) {
        return "CASE WHEN " + column + " OPERATOR(pg_catalog.=) ANY ('{16400,16401}'::pg_catalog.oid[]) THEN "
                + column + " END";
    }

    @Test
    void wrapsTheColumnArgumentOfASizeOrStatisticsFunction() {
        assertEquals("SELECT pg_catalog.pg_size_pretty(pg_catalog.pg_table_size(" + listed("c.oid") + ")) FROM "
                        + CLASS + " c",
                rewrite("SELECT pg_catalog.pg_size_pretty(pg_catalog.pg_table_size(c.oid)) FROM pg_catalog.pg_class c"));
        assertEquals("SELECT PG_RELATION_SIZE(" + listed("oid") + ", 'main') FROM t",
                rewrite("SELECT PG_RELATION_SIZE(oid, 'main') FROM t"));
        assertEquals("SELECT \"pg_stat_get_numscans\"( " + listed("\"C\".\"oid\"") + " ) FROM t \"C\"",
                rewrite("SELECT \"pg_stat_get_numscans\"( \"C\" /* x */ . \"oid\" ) FROM t \"C\""));
        // the call's parenthesis still closes its level: the FROM after it is rewritten
        assertEquals("SELECT (pg_indexes_size(" + listed("x") + ")) FROM " + CLASS + " AS \"pg_class\"",
                rewrite("SELECT (pg_indexes_size(x)) FROM pg_class"));
    }

    @Test
    void leavesEveryOtherArgumentAndFunctionAlone() {
        for (String sql : List.of("SELECT pg_table_size(16400)", "SELECT pg_table_size('orders')",
                "SELECT pg_table_size((c.oid))", "SELECT pg_table_size(c.oid + 1)", "SELECT pg_table_size(a.b.c)",
                "SELECT pg_table_size(relation => c.oid)", "SELECT pg_table_size($1)",
                "SELECT myschema.pg_table_size(c.oid)", "SELECT pg_get_userbyid(c.relowner)",
                "SELECT pg_table_size(current_user)", "SELECT 'pg_table_size(c.oid)'",
                "SELECT pg_table_size", "SELECT (1).pg_table_size(c.oid)", "SELECT 'x'.pg_table_size(c.oid)")) {
            assertEquals(sql, rewrite(sql), sql);
        }
    }
}
