package io.pgward.nl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgward.testkit.PostgresTest;
import io.pgward.testkit.SampleData;
import io.pgward.testkit.TestDatabase;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

@PostgresTest(sampleData = SampleData.SMALL)
class SchemaCatalogTest {

    private final TestDatabase db;

    SchemaCatalogTest(TestDatabase db) {
        this.db = db;
    }

    @Test
    void refreshSeesDdlMadeAfterTheFirstReflection() throws Exception {
        NlAssistantTest.execute(db, "CREATE ROLE nl_refresh NOLOGIN", "CREATE SCHEMA nl_refresh",
                "GRANT USAGE ON SCHEMA nl_refresh TO nl_refresh",
                "CREATE TABLE nl_refresh.a (id integer PRIMARY KEY)",
                "GRANT SELECT ON nl_refresh.a TO nl_refresh");
        Instant at = Instant.parse("2026-12-02T12:00:00Z");
        SchemaCatalog catalog = SchemaCatalog.builder(db::connect).role("nl_refresh")
                .clock(Clock.fixed(at, ZoneOffset.UTC)).build();
        SchemaSnapshot before = catalog.snapshot();
        assertEquals(1, before.relations().size());

        NlAssistantTest.execute(db, "ALTER TABLE nl_refresh.a ADD COLUMN label text",
                "CREATE TABLE nl_refresh.b (a_id integer REFERENCES nl_refresh.a)",
                "GRANT SELECT ON nl_refresh.b TO nl_refresh");
        assertSame(before, catalog.snapshot());

        RefreshResult result = catalog.refresh();

        assertEquals(new RefreshResult.Refreshed(at, 2), result);
        SchemaSnapshot after = catalog.snapshot();
        assertEquals(2, after.find("a").orElseThrow().columns().size());
        Relation b = after.find("nl_refresh.b").orElseThrow();
        assertEquals("nl_refresh.a", b.foreignKeys().getFirst().target().qualifiedName());
    }

    @Test
    void failedRefreshKeepsTheCachedSchemaAndReportsTheDatabaseMessage() throws Exception {
        NlAssistantTest.execute(db, "CREATE ROLE nl_gone NOLOGIN", "GRANT USAGE ON SCHEMA public TO nl_gone",
                "GRANT SELECT ON customers TO nl_gone");
        SchemaCatalog catalog = SchemaCatalog.builder(db::connect).role("nl_gone").build();
        SchemaSnapshot before = catalog.snapshot();
        assertEquals("public.customers", before.relations().getFirst().qualifiedName());

        NlAssistantTest.execute(db, "REVOKE ALL ON customers FROM nl_gone", "REVOKE ALL ON SCHEMA public FROM nl_gone",
                "DROP ROLE nl_gone");
        RefreshResult result = catalog.refresh();

        RefreshResult.Failed failed = assertInstanceOf(RefreshResult.Failed.class, result);
        assertTrue(failed.message().startsWith("Schema refresh failed: "), failed.message());
        assertTrue(failed.message().contains("nl_gone"), failed.message());
        assertSame(before, catalog.snapshot());
    }

    @Test
    void moreRelationsThanTheLimitSwitchRetrievalOnWhateverTheirSize() throws Exception {
        int count = RetrievalSettings.DEFAULT_RELATION_LIMIT + 1;
        String[] ddl = new String[count + 1];
        ddl[0] = "CREATE SCHEMA nl_many";
        for (int i = 1; i <= count; i++) {
            ddl[i] = "CREATE TABLE nl_many.t" + i + " (id integer PRIMARY KEY)";
        }
        NlAssistantTest.execute(db, ddl);
        SchemaCatalog.Builder builder = SchemaCatalog.builder(db::connect).selection(r -> r.schema().equals("nl_many"));
        assertTrue(SchemaText.render(builder.build().snapshot().relations()).length()
                < NlSettings.DEFAULT_PROMPT_BUDGET_CHARS, "small enough to fit the budget");

        SchemaCatalog.PromptSchema retrieved = builder.build().forQuestion("what is in t3?");
        assertEquals(NlSettings.DEFAULT_TOP_K, retrieved.shown().size());
        assertEquals(count - NlSettings.DEFAULT_TOP_K, retrieved.omitted());

        SchemaCatalog.PromptSchema whole = builder.retrieval(RetrievalSettings.defaults().withRelationLimit(count))
                .build().forQuestion("what is in t3?");
        assertEquals(count, whole.shown().size());
        assertEquals(0, whole.omitted());
    }

    @Test
    void relationsWithoutSelectPrivilegeAreNotReflected() throws Exception {
        NlAssistantTest.execute(db, "CREATE ROLE nl_nothing NOLOGIN");
        SchemaCatalog catalog = SchemaCatalog.builder(db::connect).role("nl_nothing").build();
        assertTrue(catalog.snapshot().relations().isEmpty());
        assertFalse(catalog.snapshot().find("customers").isPresent());
    }
}
