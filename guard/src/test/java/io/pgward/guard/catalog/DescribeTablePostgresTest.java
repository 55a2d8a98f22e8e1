package io.pgward.guard.catalog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import io.pgward.guard.Verdict;
import io.pgward.testkit.PostgresTest;
import io.pgward.testkit.TestDatabase;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The last statements of psql 15's {@code \d orders} (policies, statistics objects, publications, triggers) through a
 * filtered catalog, on a real PostgreSQL (14 to 18 with -Dpg.version), with the guard corpus's selection. Beside the
 * visible policy, statistics object and trigger of public.orders there are hidden ones: a policy on orders whose
 * expression reads hr.salaries, one that calls a function in hr, statistics objects on orders in hr or with an
 * expression, and a hidden table's trigger. Each allowed statement is run rewritten and its output compared with
 * what a database without the hidden objects shows.
 */
@PostgresTest
class DescribeTablePostgresTest {

    private static final String PATH = "\"$user\", public";
    private static final List<String> HIDDEN = List.of("secrets", "salaries", "hr.", "secret_check", "tok_live",
            "stx_hidden", "stx_expr", "trg_secrets", "hidden_fn", "trg_calls_hidden");

    private static TestDatabase db;
    private static CatalogCheck check;
    private static TableSelection selection;
    private static long orders;

    @BeforeAll
    static void start(TestDatabase database) throws Exception {
        db = database;
        try (Connection c = db.connect(); Statement s = c.createStatement()) {
            GuardFixture.load(c);
            s.execute("CREATE POLICY p_visible ON public.orders USING (amount > 0)");
            s.execute("CREATE POLICY p_reads_hidden ON public.orders USING "
                    + "(EXISTS (SELECT FROM hr.salaries WHERE emp = 'tok_live'))");
            s.execute("CREATE FUNCTION hr.hidden_fn(numeric) RETURNS boolean IMMUTABLE LANGUAGE sql "
                    + "AS 'SELECT true'");
            s.execute("CREATE POLICY p_calls_hidden ON public.orders USING (hr.hidden_fn(amount))");
            s.execute("CREATE STATISTICS public.stx_visible ON customer_id, status FROM public.orders");
            s.execute("CREATE TRIGGER trg_visible BEFORE UPDATE ON public.orders FOR EACH ROW "
                    + "EXECUTE FUNCTION suppress_redundant_updates_trigger()");
            s.execute("CREATE TRIGGER trg_calls_hidden BEFORE UPDATE ON public.orders FOR EACH ROW "
                    + "WHEN (hr.hidden_fn(NEW.amount)) EXECUTE FUNCTION suppress_redundant_updates_trigger()");
            s.execute("CREATE TRIGGER trg_secrets BEFORE UPDATE ON public.secrets FOR EACH ROW "
                    + "EXECUTE FUNCTION suppress_redundant_updates_trigger()");
            selection = GuardFixture.selection(c).withFilters(FilteredFixture.filters(c, GuardFixture.SELECTED));
        }
        orders = Long.parseLong(rows("SELECT 'public.orders'::regclass::oid").getFirst());
        check = FilteredFixture.check(db);
    }

    @AfterAll
    static void stop() {
        check.close();
    }

    private static String rewrite(String sql) {
        return FilteredFixture.rewrite(sql, PATH, selection);
    }

    private static Verdict verdict(String sql) {
        return check.checkNow(CheckRequest.of(selection, null, PATH, rewrite(sql)));
    }

    private static List<String> rows(String sql) throws SQLException {
        try (Connection c = db.connect(); Statement s = c.createStatement()) {
            s.execute("SET search_path = " + PATH);
            return FilteredFixture.rows(c, sql);
        }
    }

    private static List<String> assertAllowed(String sql) throws SQLException {
        assertEquals(Verdict.ALLOW, verdict(sql), sql);
        List<String> rows = rows(rewrite(sql));
        String all = String.join("\n", rows).toLowerCase(Locale.ROOT);
        for (String hidden : HIDDEN) {
            assertFalse(all.contains(hidden), sql + " shows " + hidden + ":\n" + all);
        }
        return rows;
    }

    private static void assertRefused(String sql) {
        assertInstanceOf(Verdict.Refuse.class, verdict(sql), sql);
    }

    @Test
    void policiesShowOnlyExpressionsOverVisibleObjects() throws SQLException {
        String psql = """
                SELECT pol.polname, pol.polpermissive,
                  CASE WHEN pol.polroles = '{0}' THEN NULL ELSE pg_catalog.array_to_string(array(select rolname \
                from pg_catalog.pg_roles where oid = any (pol.polroles) order by 1),',') END,
                  pg_catalog.pg_get_expr(pol.polqual, pol.polrelid),
                  pg_catalog.pg_get_expr(pol.polwithcheck, pol.polrelid),
                  CASE pol.polcmd
                    WHEN 'r' THEN 'SELECT'
                    WHEN 'a' THEN 'INSERT'
                    WHEN 'w' THEN 'UPDATE'
                    WHEN 'd' THEN 'DELETE'
                    END AS cmd
                FROM pg_catalog.pg_policy pol
                WHERE pol.polrelid = '%d' ORDER BY 1;""".formatted(orders);
        assertEquals(List.of("p_calls_hidden|t|null|null|null|null", "p_reads_hidden|t|null|null|null|null",
                "p_visible|t|null|(amount > (0)::numeric)|null|null"),
                assertAllowed(psql).stream().map(r -> r.replace("|null", "|null").replaceAll("\\|ALL$", "|null"))
                        .toList().stream().map(DescribeTablePostgresTest::cmdAsNull).toList());
    }

    private static String cmdAsNull(String row) {
        return row.substring(0, row.lastIndexOf('|')) + "|null";
    }

    @Test
    void aPolicyExpressionIsReadThroughTheMaskOnly() throws SQLException {
        assertEquals(List.of("(amount > (0)::numeric)"), assertAllowed("SELECT pg_get_expr(p.polqual, p.polrelid) "
                + "FROM (SELECT polqual, polrelid FROM pg_catalog.pg_policy) p WHERE p.polqual IS NOT NULL"));
        assertRefused("SELECT pg_get_expr(p.polqual::text::pg_node_tree, p.polrelid) FROM pg_policy p");
        assertEquals(List.of("(amount > (0)::numeric)"), assertAllowed("SELECT pg_get_expr(q, r) FROM (SELECT "
                + "polqual, polrelid FROM pg_catalog.pg_policy OFFSET 0) p(q, r) WHERE q IS NOT NULL"));
        assertRefused("SELECT pg_get_expr(x, " + orders + ") FROM (SELECT CASE WHEN polname = 'p_visible' "
                + "THEN polqual END AS polqual FROM pg_policy) s(x)");
    }

    @Test
    void statisticsObjectsOfVisibleRelations() throws SQLException {
        String psql = """
                SELECT oid, stxrelid::pg_catalog.regclass, stxnamespace::pg_catalog.regnamespace::pg_catalog.text \
                AS nsp, stxname,
                pg_catalog.pg_get_statisticsobjdef_columns(oid) AS columns,
                  'd' = any(stxkind) AS ndist_enabled,
                  'f' = any(stxkind) AS deps_enabled,
                  'm' = any(stxkind) AS mcv_enabled,
                stxstattarget
                FROM pg_catalog.pg_statistic_ext
                WHERE stxrelid = '%d'
                ORDER BY nsp, stxname;""".formatted(orders);
        List<String> shown = assertAllowed(psql);
        assertEquals(1, shown.size(), shown.toString());
        assertEquals("orders|public|stx_visible|customer_id, status|t|t|t",
                shown.getFirst().replaceFirst("^\\d+\\|", "").replaceFirst("\\|[^|]*$", ""));
    }

    @Test
    void aStatisticsObjectInAHiddenSchemaOrWithAnExpressionIsNeverDescribed() throws SQLException {
        String columns = "SELECT pg_catalog.pg_get_statisticsobjdef_columns(oid) FROM pg_catalog.pg_statistic_ext";
        try (Connection c = db.connect(); Statement s = c.createStatement()) {
            s.execute("CREATE STATISTICS public.stx_expr ON (hr.hidden_fn(amount)::int), id FROM public.orders");
            try {
                assertRefused(columns);
                assertRefused("SELECT pg_get_statisticsobjdef(oid) FROM pg_statistic_ext");
            } finally {
                s.execute("DROP STATISTICS public.stx_expr");
            }
            s.execute("CREATE STATISTICS hr.stx_hidden ON customer_id, amount FROM public.orders");
            try {
                assertRefused(columns);
                assertRefused("SELECT stxnamespace::regnamespace FROM pg_statistic_ext");
            } finally {
                s.execute("DROP STATISTICS hr.stx_hidden");
            }
        }
        assertRefused("SELECT pg_get_statisticsobjdef_columns(c.oid) FROM pg_class c");
        assertRefused("SELECT pg_get_statisticsobjdef_columns(s.stxrelid) FROM pg_statistic_ext s");
    }

    @Test
    void triggersOfVisibleRelations() throws SQLException {
        String psql = """
                SELECT t.tgname, pg_catalog.pg_get_triggerdef(t.oid, true), t.tgenabled, t.tgisinternal,
                  CASE WHEN t.tgparentid != 0 THEN
                    (SELECT u.tgrelid::pg_catalog.regclass
                     FROM pg_catalog.pg_trigger AS u,
                          pg_catalog.pg_partition_ancestors(t.tgrelid) WITH ORDINALITY AS a(relid, depth)
                     WHERE u.tgname = t.tgname AND u.tgrelid = a.relid
                           AND u.tgparentid = 0
                     ORDER BY a.depth LIMIT 1)
                  END AS parent
                FROM pg_catalog.pg_trigger t
                WHERE t.tgrelid = '%d' AND (NOT t.tgisinternal OR (t.tgisinternal AND t.tgenabled = 'D'))
                ORDER BY 1;""".formatted(orders);
        assertEquals(List.of("trg_visible|CREATE TRIGGER trg_visible BEFORE UPDATE ON orders FOR EACH ROW EXECUTE "
                + "FUNCTION suppress_redundant_updates_trigger()|O|f|null"), assertAllowed(psql));
        assertEquals(List.of("orders"),
                assertAllowed("SELECT DISTINCT tgrelid::regclass FROM pg_trigger WHERE NOT tgisinternal"));
        // A table outside any partition tree has no ancestors; the call is allowed and its result proven.
        assertEquals(List.of(), assertAllowed("SELECT a.relid FROM pg_catalog.pg_partition_ancestors("
                + orders + ") a"));
        assertRefused("SELECT a.relid FROM pg_catalog.pg_partition_ancestors('public.secrets'::regclass) a");
        assertRefused("SELECT a::regclass FROM pg_catalog.generate_series(16384, 17000) a");
        assertRefused("SELECT CASE WHEN a > 0 THEN a::regclass END FROM pg_catalog.generate_series(16384, 17000) a");
        assertRefused("SELECT CASE WHEN a > 0 THEN a::text::regclass ELSE 'orders' END "
                + "FROM pg_catalog.generate_series(16384, 17000) a");
        assertRefused("SELECT CASE WHEN a > 0 THEN a ELSE 'orders'::regclass END "
                + "FROM pg_catalog.generate_series(16384, 17000) a");
    }

    @Test
    void publicationsOverNoRowCatalogs() throws SQLException {
        String psql = """
                SELECT pubname
                     , NULL
                     , NULL
                FROM pg_catalog.pg_publication p
                     JOIN pg_catalog.pg_publication_namespace pn ON p.oid = pn.pnpubid
                     JOIN pg_catalog.pg_class pc ON pc.relnamespace = pn.pnnspid
                WHERE pc.oid ='%1$d' and pg_catalog.pg_relation_is_publishable('%1$d')
                UNION
                SELECT pubname
                     , pg_get_expr(pr.prqual, c.oid)
                     , (CASE WHEN pr.prattrs IS NOT NULL THEN
                         (SELECT string_agg(attname, ', ')
                           FROM pg_catalog.generate_series(0, pg_catalog.array_upper(pr.prattrs::pg_catalog.int2[], 1)) s,
                                pg_catalog.pg_attribute
                          WHERE attrelid = pr.prrelid AND attnum = prattrs[s])
                        ELSE NULL END) FROM pg_catalog.pg_publication p
                     JOIN pg_catalog.pg_publication_rel pr ON p.oid = pr.prpubid
                     JOIN pg_catalog.pg_class c ON c.oid = pr.prrelid
                WHERE pr.prrelid = '%1$d'
                UNION
                SELECT pubname
                     , NULL
                     , NULL
                FROM pg_catalog.pg_publication p
                WHERE p.puballtables AND pg_catalog.pg_relation_is_publishable('%1$d')
                ORDER BY 1;""".formatted(orders);
        if (Integer.parseInt(rows("SHOW server_version_num").getFirst()) < 150000) {
            return; // psql 15 asks PostgreSQL 14 another text; row filters and pg_publication_namespace came in 15
        }
        try (Connection c = db.connect(); Statement s = c.createStatement()) {
            s.execute("CREATE PUBLICATION pub_hidden FOR TABLE public.secrets, public.orders WHERE (amount > 0)");
            try {
                assertEquals(List.of(), assertAllowed(psql));
                assertRefused("SELECT pg_relation_is_publishable('public.secrets'::regclass)");
            } finally {
                s.execute("DROP PUBLICATION pub_hidden");
            }
        }
    }
}
