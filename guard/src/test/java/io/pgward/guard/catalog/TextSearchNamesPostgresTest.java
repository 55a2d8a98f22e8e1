package io.pgward.guard.catalog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.pgward.guard.Verdict;
import io.pgward.testkit.PostgresTest;
import io.pgward.testkit.TestDatabase;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.postgresql.util.PSQLException;

/**
 * Text search configurations and dictionaries named by a text search function's argument, with the guard corpus's
 * selection on a real PostgreSQL: the filtered pg_ts_config and pg_ts_dict show the built-in ones only, so one
 * someone made, in a hidden schema or in public, answers as one nothing has. The expected answer is PostgreSQL's own
 * for the same statement with a name nothing has in its place (same length, so the same position), its name put back.
 */
@PostgresTest
class TextSearchNamesPostgresTest {

    private static final String PATH = "\"$user\", public";

    private static TestDatabase db;
    private static CatalogCheck check;
    private static TableSelection selection;

    @BeforeAll
    static void start(TestDatabase database) throws Exception {
        db = database;
        try (Connection c = db.connect(); Statement s = c.createStatement()) {
            GuardFixture.load(c);
            s.execute("CREATE SCHEMA IF NOT EXISTS tshidden");
            s.execute("DROP TEXT SEARCH CONFIGURATION IF EXISTS tshidden.secret_cfg");
            s.execute("CREATE TEXT SEARCH CONFIGURATION tshidden.secret_cfg (COPY = english)");
            s.execute("DROP TEXT SEARCH DICTIONARY IF EXISTS tshidden.secret_dict");
            s.execute("CREATE TEXT SEARCH DICTIONARY tshidden.secret_dict (TEMPLATE = simple)");
            s.execute("DROP TEXT SEARCH CONFIGURATION IF EXISTS public.pub_cfg");
            s.execute("CREATE TEXT SEARCH CONFIGURATION public.pub_cfg (COPY = english)");
            selection = FilteredFixture.filteredSelection(c, GuardFixture.SELECTED);
        }
        check = FilteredFixture.check(db);
    }

    @AfterAll
    static void stop() throws SQLException {
        check.close();
        try (Connection c = db.connect(); Statement s = c.createStatement()) {
            s.execute("DROP SCHEMA tshidden CASCADE");
            s.execute("DROP TEXT SEARCH CONFIGURATION public.pub_cfg");
        }
    }

    private static Verdict verdict(String sql) {
        return check.checkNow(CheckRequest.of(selection, null, PATH, FilteredFixture.rewrite(sql, PATH, selection)));
    }

    @Test
    void builtInConfigurationsAndDictionariesAreUsedAsBefore() {
        for (String sql : new String[] {"SELECT to_tsvector('english', name) FROM public.customers",
                "SELECT to_tsvector('pg_catalog.simple', 'a b')", "SELECT plainto_tsquery('english', 'a b')",
                "SELECT ts_lexize('english_stem', 'running')", "SELECT to_tsvector(' English ', 'a')"}) {
            assertEquals(Verdict.ALLOW, verdict(sql), sql);
        }
    }

    /** {@code hidden} is in the statement; {@code absent}, of the same length, names nothing. */
    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "SELECT to_tsvector('tshidden.secret_cfg', 'a b')            | tshidden.secret_cfg | tsabsent.secret_cfg",
        "SELECT to_tsvector('public.pub_cfg', name) FROM public.customers | public.pub_cfg | public.pub_xyz",
        "SELECT to_tsvector('PUBLIC.Pub_Cfg', 'a')                   | PUBLIC.Pub_Cfg      | PUBLIC.Pub_Xyz",
        "SELECT to_tsvector('pub_cfg', 'a')                          | pub_cfg             | pub_xyz",
        "SELECT websearch_to_tsquery('tshidden.secret_cfg', 'a')     | tshidden.secret_cfg | tsabsent.secret_cfg",
        "SELECT ts_lexize('tshidden.secret_dict', 'a')               | tshidden.secret_dict | tsabsent.secret_dict",
        "SELECT 1 FROM public.orders WHERE to_tsvector('pub_cfg', status) @@ 'x' | pub_cfg | pub_xyz"})
    void oneSomeoneMadeAnswersAsOneNothingHas(String sql, String hidden, String absent) {
        FilteredFixture.assertAnsweredAsAbsent(db, verdict(sql), sql, hidden, absent);
    }

    /**
     * A statement PostgreSQL fails gets its own error, also where a call's argument is a text that is no name at all:
     * before PostgreSQL 16, looking such a text up as a relation's name (to learn whether the error hid one) failed
     * with "invalid name syntax", and the check with it.
     */
    @Test
    void aFailingStatementWithATextThatIsNoNameGetsPostgresqlsOwnError() {
        String sql = "SELECT lower('a b') FROM public.nosuch";
        PSQLException expected = assertThrows(PSQLException.class, () -> FilteredFixture.rows(db, sql));
        Verdict.Refuse r = assertInstanceOf(Verdict.Refuse.class, verdict(sql), sql);
        assertEquals(expected.getSQLState(), r.sqlState(), r.message());
        assertEquals(expected.getServerErrorMessage().getMessage(), r.message());
    }
}
