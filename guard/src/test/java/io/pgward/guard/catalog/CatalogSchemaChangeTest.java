package io.pgward.guard.catalog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgward.guard.SqlStates;
import io.pgward.guard.Verdict;
import io.pgward.testkit.PostgresTest;
import io.pgward.testkit.TestDatabase;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The catalog check when the schema changes under it: the verdict cache, its invalidation (by the schema poll and
 * by {@link CatalogCheck#invalidate()}), the schema-change hook, and the database-wide conditions (risky domains,
 * the TEMP privilege) that refuse every statement (a risky domain: every statement that reaches it, see
 * RiskyDomainScopeTest).
 */
@PostgresTest
class CatalogSchemaChangeTest {

    private static final String PATH = "\"$user\", public";
    private static TestDatabase db;

    @BeforeAll
    static void start(TestDatabase database) throws Exception {
        db = database;
        owner("CREATE TABLE public.events(id int, kind text)", "CREATE TABLE public.other(id int)");
    }

    private static void owner(String... statements) throws SQLException {
        AsOwner.run(db, statements);
    }

    private static TableSelection events() throws SQLException {
        try (Connection c = db.connect()) {
            return GuardFixture.selection(c, List.of("public.events"));
        }
    }

    /** A check polling every {@code poll} (none for zero). */
    private static CatalogCheck newCheck(Duration poll) {
        CatalogCheck check = new CatalogCheck(CatalogCheck.controlPool(db.jdbcUrl(), db.user(), db.password(), 2),
                new CatalogCheck.Options(Duration.ofSeconds(5), 100, poll));
        assertEquals(!poll.isZero(), check.schemaKnown(), "a polling check reads its first fingerprint at once");
        return check;
    }

    @Test
    void aCachedVerdictCostsNoRoundTripAndInvalidateDropsIt() throws Exception {
        try (CatalogCheck check = newCheck(Duration.ZERO)) {
            CheckRequest request = CheckRequest.of(TableSelection.NONE, null, PATH, "SELECT kind FROM public.other2");
            owner("CREATE TABLE public.other2(kind text)");
            assertEquals(Verdict.ALLOW, check.checkNow(request));
            assertEquals(1, check.cachedVerdicts());
            owner("ALTER TABLE public.other2 RENAME TO other3");
            // Without a poll, nothing has told the check: the cached verdict answers, with no round trip (a round
            // trip would find no public.other2).
            assertEquals(Verdict.ALLOW, check.checkNow(request));
            check.invalidate();
            assertEquals(0, check.cachedVerdicts());
            Verdict.Refuse r = assertInstanceOf(Verdict.Refuse.class, check.checkNow(request));
            assertEquals(SqlStates.UNDEFINED_TABLE, r.sqlState());
        }
    }

    /**
     * The first fingerprint a poll reads is the baseline for the next. A verdict reached before that reading must not
     * be kept: DDL between the check and the reading would be part of the baseline, never noticed, and the verdict
     * would answer for a schema that is gone.
     */
    @Test
    void aVerdictReachedBeforeTheFirstFingerprintIsNotKept() throws Exception {
        owner("CREATE TABLE public.early(kind text)");
        try (CatalogCheck check = new CatalogCheck(CatalogCheck.controlPool(db.jdbcUrl(), db.user(), db.password(),
                2), new CatalogCheck.Options(Duration.ofSeconds(5), 100, Duration.ofHours(1)), false)) {
            CheckRequest request = CheckRequest.of(TableSelection.NONE, null, PATH, "SELECT kind FROM public.early");
            assertEquals(Verdict.ALLOW, check.checkNow(request));
            owner("ALTER TABLE public.early RENAME TO early_gone");
            check.poll();
            assertTrue(check.schemaKnown());
            Verdict.Refuse r = assertInstanceOf(Verdict.Refuse.class, check.checkNow(request),
                    "the verdict on the table before its rename was kept");
            assertEquals(SqlStates.UNDEFINED_TABLE, r.sqlState());
            // Once the baseline is read, verdicts are kept again until the next change.
            assertEquals(1, check.cachedVerdicts());
        }
    }

    @Test
    void aListenerThatStoppedListeningHearsNoLaterChange() throws Exception {
        // No poll within the test: only the two invalidations call the listeners.
        try (CatalogCheck check = newCheck(Duration.ofMinutes(10))) {
            java.util.concurrent.atomic.AtomicInteger kept = new java.util.concurrent.atomic.AtomicInteger();
            java.util.concurrent.atomic.AtomicInteger stopped = new java.util.concurrent.atomic.AtomicInteger();
            check.onSchemaChange(kept::incrementAndGet);
            Runnable stop = check.onSchemaChange(stopped::incrementAndGet);
            check.invalidate();
            assertEquals(1, stopped.get());
            stop.run();
            check.invalidate();
            assertEquals(2, kept.get());
            assertEquals(1, stopped.get(), "a policy a reload dropped is not called again");
        }
    }

    @Test
    void aDroppedAndRecreatedSelectedTableDropsTheCacheAndNeedsItsNewOid() throws Exception {
        try (CatalogCheck check = newCheck(Duration.ofMillis(100))) {
            Semaphore changes = new Semaphore(0);
            check.onSchemaChange(changes::release);
            TableSelection before = events();
            CheckRequest request = CheckRequest.of(before, null, PATH, "SELECT kind FROM public.events");
            assertEquals(Verdict.ALLOW, check.checkNow(request));
            assertEquals(1, check.cachedVerdicts());
            changes.drainPermits();
            owner("DROP TABLE public.events", "CREATE TABLE public.events(id int, kind text)");
            assertTrue(changes.tryAcquire(10, TimeUnit.SECONDS), "the schema poll noticed the change");
            assertEquals(0, check.cachedVerdicts());
            // The old selection names the old OID: the new table is not selected until the selection is resolved
            // again (the listener's job).
            Verdict.Refuse r = assertInstanceOf(Verdict.Refuse.class, check.checkNow(request));
            assertEquals(CatalogRefusals.RELATION, r.rule());
            assertEquals(Verdict.ALLOW, check.checkNow(CheckRequest.of(events(), null, PATH,
                    "SELECT kind FROM public.events")));
        }
    }

    @Test
    void theSchemaPollNoticesNewFunctionsTypesAndPolicies() throws Exception {
        try (CatalogCheck check = newCheck(Duration.ofMillis(100))) {
            Semaphore changes = new Semaphore(0);
            check.onSchemaChange(changes::release);
            for (String ddl : List.of("CREATE FUNCTION public.f_poll() RETURNS int LANGUAGE sql AS 'SELECT 1'",
                    "CREATE TYPE public.t_poll AS ENUM ('a')", "CREATE DOMAIN public.d_poll AS int",
                    "ALTER TABLE public.other ENABLE ROW LEVEL SECURITY",
                    "CREATE POLICY p_poll ON public.other USING (true)",
                    "CREATE OR REPLACE FUNCTION public.f_poll() RETURNS int LANGUAGE sql AS 'SELECT 2'",
                    "CREATE VIEW public.v_poll AS SELECT 1 AS one", "ALTER TABLE public.other ADD COLUMN x int",
                    "DROP VIEW public.v_poll")) {
                assertEquals(Verdict.ALLOW, check.checkNow(CheckRequest.of(TableSelection.NONE, null, PATH,
                        "SELECT 1")));
                changes.drainPermits();
                owner(ddl);
                assertTrue(changes.tryAcquire(10, TimeUnit.SECONDS), "not noticed: " + ddl);
                assertEquals(0, check.cachedVerdicts(), ddl);
            }
        }
    }

    /** DDL that writes none of pg_class, pg_type or pg_attribute, which the visible sets of a selection read. */
    @Test
    void theSchemaPollNoticesTriggersSequenceOwnershipAndCollationOwners() throws Exception {
        owner("DO $$ BEGIN CREATE ROLE pgward_poll_owner; EXCEPTION WHEN duplicate_object THEN NULL; END $$",
                "CREATE TABLE public.polled(id int, note text)",
                "CREATE TRIGGER polled_first BEFORE UPDATE ON public.polled FOR EACH ROW "
                        + "EXECUTE FUNCTION pg_catalog.suppress_redundant_updates_trigger()",
                "CREATE SEQUENCE public.polled_seq", "CREATE COLLATION public.polled_c FROM \"C\"");
        try (CatalogCheck check = newCheck(Duration.ofMillis(100))) {
            Semaphore changes = new Semaphore(0);
            check.onSchemaChange(changes::release);
            for (String ddl : List.of("CREATE TRIGGER polled_second BEFORE UPDATE ON public.polled FOR EACH ROW "
                            + "EXECUTE FUNCTION pg_catalog.suppress_redundant_updates_trigger()",
                    "ALTER SEQUENCE public.polled_seq OWNED BY public.polled.id",
                    "ALTER COLLATION public.polled_c OWNER TO pgward_poll_owner")) {
                assertEquals(Verdict.ALLOW, check.checkNow(CheckRequest.of(TableSelection.NONE, null, PATH,
                        "SELECT 1")));
                changes.drainPermits();
                owner(ddl);
                assertTrue(changes.tryAcquire(10, TimeUnit.SECONDS), "not noticed: " + ddl);
                assertEquals(0, check.cachedVerdicts(), ddl);
            }
        }
    }

    @Test
    void aRiskyDomainRefusesTheStatementsThatNameIt() throws Exception {
        try (CatalogCheck check = newCheck(Duration.ZERO)) {
            owner("CREATE DOMAIN public.risky_d AS int CHECK (VALUE > 0 AND random() < 2)",
                    "CREATE DOMAIN public.calm_d AS int CHECK (VALUE > 0)");
            try {
                assertEquals(Verdict.ALLOW, check.checkNow(CheckRequest.of(TableSelection.NONE, null, PATH,
                        "SELECT 1")));
                Verdict.Refuse r = assertInstanceOf(Verdict.Refuse.class, check.checkNow(
                        CheckRequest.of(TableSelection.NONE, null, PATH, "SELECT 1::risky_d")));
                assertEquals("pgward refused this query: this database has domains whose CHECK could run other "
                        + "code or change data while a query is checked: public.risky_d.", r.message());
                assertEquals(CatalogRefusals.RISKY_DOMAIN, r.rule());
            } finally {
                owner("DROP DOMAIN public.risky_d");
            }
            check.invalidate();
            assertEquals(Verdict.ALLOW, check.checkNow(CheckRequest.of(TableSelection.NONE, null, PATH,
                    "SELECT 1::public.calm_d")));
        }
    }

    @Test
    void aRoleWithoutTempCannotBeChecked() throws Exception {
        owner("DO $$ BEGIN CREATE ROLE pgward_notemp; EXCEPTION WHEN duplicate_object THEN NULL; END $$",
                "GRANT SELECT ON public.events TO pgward_notemp",
                "REVOKE TEMPORARY ON DATABASE " + db.name() + " FROM PUBLIC");
        try (CatalogCheck check = newCheck(Duration.ZERO)) {
            Verdict.Refuse r = assertInstanceOf(Verdict.Refuse.class, check.checkNow(
                    CheckRequest.of(events(), "pgward_notemp", PATH, "SELECT kind FROM public.events")));
            assertEquals("pgward refused this query: it could not be checked against the table selection: this "
                    + "database login has no TEMP privilege on the database", r.message());
            assertEquals(SqlStates.INSUFFICIENT_PRIVILEGE, r.sqlState());
            r = assertInstanceOf(Verdict.Refuse.class, check.checkNow(
                    CheckRequest.of(TableSelection.NONE, "pgward_notemp", PATH, "SELECT 1")));
            assertEquals("pgward refused this query: it could not be checked: this database login has no TEMP "
                    + "privilege on the database", r.message());
        } finally {
            owner("GRANT TEMPORARY ON DATABASE " + db.name() + " TO PUBLIC");
        }
    }

    @Test
    void aRoleWithoutUsageOnSqlCannotBeChecked() throws Exception {
        owner("DO $$ BEGIN CREATE ROLE pgward_nosql; EXCEPTION WHEN duplicate_object THEN NULL; END $$",
                "GRANT SELECT ON public.events TO pgward_nosql",
                "REVOKE USAGE ON LANGUAGE sql FROM PUBLIC");
        try (CatalogCheck check = newCheck(Duration.ZERO)) {
            Verdict.Refuse r = assertInstanceOf(Verdict.Refuse.class, check.checkNow(
                    CheckRequest.of(events(), "pgward_nosql", PATH, "SELECT kind FROM public.events")));
            assertEquals("pgward refused this query: it could not be checked against the table selection: this "
                    + "database login has no USAGE privilege on the language sql", r.message());
            assertEquals(SqlStates.INSUFFICIENT_PRIVILEGE, r.sqlState());
            // A privilege error of the statement's own is PostgreSQL's answer, as before.
            owner("GRANT USAGE ON LANGUAGE sql TO pgward_nosql",
                    "CREATE SCHEMA IF NOT EXISTS pgward_closed");
            r = assertInstanceOf(Verdict.Refuse.class, check.checkNow(
                    CheckRequest.of(TableSelection.NONE, "pgward_nosql", PATH, "SELECT * FROM pgward_closed.t")));
            assertEquals("permission denied for schema pgward_closed", r.message());
        } finally {
            owner("GRANT USAGE ON LANGUAGE sql TO PUBLIC", "REVOKE USAGE ON LANGUAGE sql FROM pgward_nosql");
        }
    }
}
