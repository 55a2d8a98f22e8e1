package io.pgward.guard.catalog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import io.pgward.guard.Verdict;
import io.pgward.testkit.PostgresTest;
import io.pgward.testkit.TestDatabase;
import java.sql.Connection;
import java.sql.Statement;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Verdicts shared by {@link ConstantShape} key, against a real PostgreSQL holding the guard corpus's fixture: which
 * statements are answered without a round trip, and which constants keep a statement to its own check. Round trips
 * are counted by {@link CatalogCheck#catalogRoundTrips()}.
 */
@PostgresTest
class ShapeCacheTest {

    private static final String PATH = "\"$user\", public";

    private static CatalogCheck check;
    private static TableSelection selection;

    @BeforeAll
    static void start(TestDatabase db) throws Exception {
        try (Connection c = db.connect(); Statement s = c.createStatement()) {
            GuardFixture.load(c);
            s.execute("CREATE SEQUENCE IF NOT EXISTS public.s1");
            s.execute("CREATE SEQUENCE IF NOT EXISTS public.s2");
            s.execute("DO $$BEGIN CREATE TYPE public.shape_mood AS ENUM ('ok', 'sad'); "
                    + "EXCEPTION WHEN duplicate_object THEN NULL; END$$");
            selection = GuardFixture.selection(c);
        }
        check = CatalogChecks.on(db);
    }

    @AfterAll
    static void stop() {
        check.close();
    }

    @BeforeEach
    void emptyCache() {
        check.invalidate();
    }

    /** The verdict, and whether it took a round trip to the catalog. */
    private record Checked(Verdict verdict, boolean roundTrip) {
    }

    private static Checked selected(String sql) {
        return run(selection, sql);
    }

    private static Checked unselected(String sql) {
        return run(TableSelection.NONE, sql);
    }

    private static Checked run(TableSelection login, String sql) {
        long before = check.catalogRoundTrips();
        Verdict v = check.checkNow(CheckRequest.of(login, null, PATH, sql));
        return new Checked(v, check.catalogRoundTrips() > before);
    }

    private static void allowedByShape(Checked c) {
        assertEquals(new Checked(Verdict.ALLOW, false), c);
    }

    private static void allowedByItsOwnCheck(Checked c) {
        assertEquals(new Checked(Verdict.ALLOW, true), c);
    }

    @Test
    void aNewValueOfAJudgedShapeIsAnsweredWithoutARoundTrip() {
        allowedByItsOwnCheck(selected("select * from public.orders where id = 1"));
        long hits = check.shapeHits();
        allowedByShape(selected("select * from public.orders where id = 2"));
        allowedByShape(selected("select *  from public.orders\n where id=3 /* a comment */"));
        assertEquals(hits + 2, check.shapeHits());
        allowedByItsOwnCheck(selected("select * from public.orders where status = 'open' and created_at > "
                + "timestamptz '2024-01-01' limit 10"));
        allowedByShape(selected("select * from public.orders where status = $$closed$$ and created_at > "
                + "timestamptz '2025-06-30 12:00' limit 500"));
        assertEquals(2, check.cachedShapes());
    }

    @Test
    void aConstantOfAnotherTypeClassGetsItsOwnCheck() {
        allowedByItsOwnCheck(unselected("select * from public.orders where id = 1"));
        allowedByItsOwnCheck(unselected("select * from public.orders where id = 10000000000"));
        allowedByItsOwnCheck(unselected("select * from public.orders where id = 1.5"));
        allowedByShape(unselected("select * from public.orders where id = 7"));
        allowedByShape(unselected("select * from public.orders where id = 20000000000"));
        allowedByShape(unselected("select * from public.orders where id = 7.25"));
    }

    @Test
    void aNameReadIntoAnObjectIdentifierTypeIsNeverShared() {
        // Without a selection both run; with one, object-identifier types are refused. Either way each is checked.
        allowedByItsOwnCheck(unselected("select 'public.orders'::regclass"));
        assertEquals(true, unselected("select 'hr.salaries'::regclass").roundTrip());
        assertEquals(true, unselected("select 'public.secrets'::regclass").roundTrip());
        assertEquals(true, unselected("select * from public.orders where 'public.orders'::regclass > 0").roundTrip());
        assertEquals(true, unselected("select * from public.orders where 'public.customers'::regclass > 0")
                .roundTrip());
        assertEquals(true, unselected("select 'x'::text::regclass").roundTrip());
        assertEquals(true, unselected("select 'y'::text::regclass").roundTrip());
        assertInstanceOf(Verdict.Refuse.class, selected("select 'public.orders'::regclass").verdict());
        assertEquals(0, check.cachedShapes());
    }

    @Test
    void aNameAFunctionResolvesIsNeverShared() {
        allowedByItsOwnCheck(unselected("select pg_relation_size('public.orders')"));
        assertEquals(true, unselected("select pg_relation_size('hr.salaries')").roundTrip());
        assertInstanceOf(Verdict.Refuse.class, selected("select pg_relation_size('public.orders')").verdict());
        assertInstanceOf(Verdict.Refuse.class, selected("select pg_relation_size('hr.salaries')").verdict());
        allowedByItsOwnCheck(unselected("select currval('public.s1')"));
        assertEquals(true, unselected("select currval('public.s2')").roundTrip());
        // the same functions with a value from the data, not a constant: still text-only (defence in depth)
        allowedByItsOwnCheck(unselected("select to_regclass(status) from public.orders where id = 1"));
        assertEquals(true, unselected("select to_regclass(status) from public.orders where id = 2").roundTrip());
        assertEquals(0, check.cachedShapes());
    }

    @Test
    void aValueReadIntoARowTypeOrATextSearchConfigurationIsNeverShared() {
        // record_in runs each column type's input function, which for some types looks names up
        allowedByItsOwnCheck(unselected("select ('(1,2,3,open,2024-01-01)'::public.orders).status"));
        assertEquals(true, unselected("select ('(4,5,6,closed,2024-01-02)'::public.orders).status").roundTrip());
        allowedByItsOwnCheck(unselected("select to_tsvector(c, status) from public.orders, "
                + "(select 'english'::regconfig) x(c)"));
        assertEquals(true, unselected("select to_tsvector(c, status) from public.orders, "
                + "(select 'simple'::regconfig) x(c)").roundTrip());
        assertEquals(0, check.cachedShapes());
    }

    @Test
    void anEnumLabelIsSharedButAnArrayOfThemIsNot() {
        // enum_in reads the label among the type's own labels: a BI tool's filter on a status column
        allowedByItsOwnCheck(unselected("select * from public.orders where 'ok'::public.shape_mood > 'sad'"));
        allowedByShape(unselected("select * from public.orders where 'sad'::public.shape_mood > 'ok'"));
        allowedByItsOwnCheck(unselected("select '{ok}'::public.shape_mood[]"));
        assertEquals(true, unselected("select '{sad}'::public.shape_mood[]").roundTrip());
        assertEquals(1, check.cachedShapes());
    }

    @Test
    void aPositionInOrderByIsNotAConstant() {
        allowedByItsOwnCheck(selected("select id, status from public.orders order by 1"));
        allowedByItsOwnCheck(selected("select id, status from public.orders order by 2"));
        allowedByItsOwnCheck(selected("select status, count(*) from public.orders group by 1"));
    }

    @Test
    void aRefusalIsNotSharedButAnAllowIsEvenWithAValueThatWillFail() {
        // PostgreSQL's analysis fails on 'abc' (22P02): the check refuses with its error, and does not share that.
        Verdict.Refuse refused = assertInstanceOf(Verdict.Refuse.class,
                selected("select * from public.orders where id = 'abc'").verdict());
        assertEquals("22P02", refused.sqlState());
        allowedByItsOwnCheck(selected("select * from public.orders where id = '5'"));
        // Another value of the allowed shape runs, and fails with PostgreSQL's own error, as it would directly.
        allowedByShape(selected("select * from public.orders where id = 'xyz'"));
        // A refusal by the selection is not shared either.
        assertInstanceOf(Verdict.Refuse.class, selected("select * from hr.salaries where salary > 1").verdict());
        assertEquals(true, selected("select * from hr.salaries where salary > 2").roundTrip());
    }

    @Test
    void theSharedVerdictsAreKeptPerLoginAndDroppedWithTheSchema() {
        allowedByItsOwnCheck(selected("select * from public.customers where id = 1"));
        allowedByItsOwnCheck(unselected("select * from public.customers where id = 2"));
        // another search_path is another key
        long before = check.catalogRoundTrips();
        assertEquals(Verdict.ALLOW, check.checkNow(new CheckRequest(selection, null, "public", true,
                "select * from public.customers where id = 3", List.of())));
        assertEquals(before + 1, check.catalogRoundTrips());
        assertEquals(3, check.cachedShapes());
        check.invalidate();
        assertEquals(0, check.cachedShapes());
        allowedByItsOwnCheck(selected("select * from public.customers where id = 4"));
    }

    @Test
    void explainCopyAndCursorsShareByTheirQuery() {
        allowedByItsOwnCheck(selected("explain select * from public.orders where amount > 10"));
        allowedByShape(selected("explain select * from public.orders where amount > 20"));
        allowedByItsOwnCheck(selected("copy (select * from public.orders where id = 1) to stdout"));
        allowedByShape(selected("copy (select * from public.orders where id = 2) to stdout"));
        allowedByItsOwnCheck(selected("declare c cursor for select * from public.orders where id = 1"));
        allowedByShape(selected("declare c cursor for select * from public.orders where id = 9"));
    }
}
