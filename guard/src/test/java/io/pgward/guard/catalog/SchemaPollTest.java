package io.pgward.guard.catalog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.zaxxer.hikari.HikariDataSource;
import io.pgward.guard.SqlStates;
import io.pgward.guard.Verdict;
import io.pgward.testkit.PostgresTest;
import io.pgward.testkit.TestDatabase;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.DriverManager;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** One fingerprint reading a poll for the checks of every role on a database ({@link SchemaPoll}). */
@PostgresTest
class SchemaPollTest {

    private static final String PATH = "\"$user\", public";
    private static final String READER = "pgward_poll_reader";
    private static TestDatabase db;

    @BeforeAll
    static void start(TestDatabase database) throws Exception {
        db = database;
        AsOwner.run(db, "DO $$ BEGIN CREATE ROLE " + READER + " LOGIN PASSWORD 'reader'; "
                        + "EXCEPTION WHEN duplicate_object THEN NULL; END $$",
                "GRANT CONNECT ON DATABASE \"" + db.name() + "\" TO " + READER);
    }

    private static CatalogCheck.Options options() {
        return new CatalogCheck.Options(Duration.ofSeconds(5), 100, Duration.ZERO);
    }

    private static HikariDataSource pool() {
        return CatalogCheck.controlPool(db.jdbcUrl(), db.user(), db.password(), 1);
    }

    /** The catalogs it reads have no row security and are readable by every role: one reading serves them all. */
    @Test
    void everyRoleReadsTheSameFingerprint() throws Exception {
        try (Connection owner = db.connect();
             Connection reader = DriverManager.getConnection(db.jdbcUrl(), READER, "reader")) {
            assertEquals(SchemaFingerprint.read(owner), SchemaFingerprint.read(reader));
        }
    }

    @Test
    void oneReadingServesEveryCheckAndAChangeDropsTheVerdictsOfEach() throws Exception {
        AsOwner.run(db, "CREATE TABLE public.polled(kind text)");
        AtomicInteger secondTaken = new AtomicInteger();
        try (SchemaPoll poll = new SchemaPoll(Duration.ofHours(1));
             HikariDataSource firstReads = pool(); HikariDataSource secondReads = pool();
             CatalogCheck first = new CatalogCheck(pool(), options(), poll, firstReads);
             CatalogCheck second = new CatalogCheck(pool(), options(), poll, counted(secondReads, secondTaken))) {
            CheckRequest request = CheckRequest.of(TableSelection.NONE, null, PATH, "SELECT kind FROM public.polled");
            assertEquals(Verdict.ALLOW, first.checkNow(request));
            assertEquals(Verdict.ALLOW, second.checkNow(request));
            assertEquals(1, secondTaken.get(), "a check reads its first fingerprint itself");
            poll.poll();
            assertEquals(1, secondTaken.get(), "the first check's source served both");
            assertEquals(1, first.cachedVerdicts());
            assertEquals(1, second.cachedVerdicts());

            AsOwner.run(db, "ALTER TABLE public.polled RENAME TO polled_gone");
            poll.poll();
            assertEquals(0, first.cachedVerdicts());
            assertEquals(0, second.cachedVerdicts());
            Verdict.Refuse r = assertInstanceOf(Verdict.Refuse.class, second.checkNow(request));
            assertEquals(SqlStates.UNDEFINED_TABLE, r.sqlState());

            CatalogCheck third = new CatalogCheck(pool(), options(), poll, secondReads);
            assertEquals(3, poll.checks());
            third.close();
            assertEquals(2, poll.checks(), "a closed check left the poll");
        }
    }

    @Test
    void whenOneSourceFailsTheNextReadsAndWhenAllFailEveryCheckForgetsTheSchema() throws Exception {
        AsOwner.run(db, "CREATE TABLE public.polled_kept(kind text)");
        try (SchemaPoll poll = new SchemaPoll(Duration.ofHours(1))) {
            HikariDataSource firstReads = pool();
            HikariDataSource secondReads = pool();
            try (CatalogCheck first = new CatalogCheck(pool(), options(), poll, firstReads);
                 CatalogCheck second = new CatalogCheck(pool(), options(), poll, secondReads)) {
                CheckRequest request = CheckRequest.of(TableSelection.NONE, null, PATH,
                        "SELECT kind FROM public.polled_kept");
                assertEquals(Verdict.ALLOW, first.checkNow(request));
                assertEquals(Verdict.ALLOW, second.checkNow(request));
                firstReads.close();
                poll.poll();
                assertTrue(first.schemaKnown());
                assertEquals(1, first.cachedVerdicts(), "the second source read the same schema");
                secondReads.close();
                poll.poll();
                assertFalse(first.schemaKnown());
                assertFalse(second.schemaKnown());
                assertEquals(0, first.cachedVerdicts());
                assertEquals(0, second.cachedVerdicts());
                assertEquals(Verdict.ALLOW, second.checkNow(request));
                assertEquals(0, second.cachedVerdicts(), "nothing is kept while the schema is unknown");
            }
        }
    }

    /** {@code source}, counting the connections taken from it. */
    private static DataSource counted(DataSource source, AtomicInteger taken) {
        return (DataSource) Proxy.newProxyInstance(DataSource.class.getClassLoader(),
                new Class<?>[] {DataSource.class}, (proxy, method, arguments) -> {
                    if (method.getName().equals("getConnection")) {
                        taken.incrementAndGet();
                    }
                    try {
                        return method.invoke(source, arguments);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }
}
