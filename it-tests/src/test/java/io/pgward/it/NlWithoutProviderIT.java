package io.pgward.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgward.nl.NlSettings;
import io.pgward.testkit.PostgresTest;
import io.pgward.testkit.SampleData;
import io.pgward.testkit.TestDatabase;
import io.pgward.wire.config.PgwardConfig;
import io.pgward.wire.protocol.SqlState;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What the natural-language functions answer without a language model: with an {@code nl:} section but no
 * provider, the schema functions work and questions say how to configure one; without the section, every one of
 * them says so.
 */
@PostgresTest(sampleData = SampleData.SMALL)
class NlWithoutProviderIT {

    @Test
    void withASectionButNoProviderSchemaAnswersAndQuestionsSayHowToConfigureOne(TestDatabase db) throws Exception {
        try (ProxyFixture proxy = ProxyFixture.start(db, ProxyFixture.STANDARD_GATES, null,
                PgwardConfig.TlsMode.DISABLE, 4, config -> ProxyFixture.policy("analyst",
                        p -> p.withTables(List.of("public.orders"))).apply(config).withNl(NlSettings.defaults()));
             Connection c = proxy.connect("analyst"); Statement s = c.createStatement()) {
            try (ResultSet rs = s.executeQuery("SELECT * FROM pgward.schema()")) {
                int rows = 0;
                while (rs.next()) {
                    assertEquals("public.orders", rs.getString("relation"));
                    rows++;
                }
                assertEquals(6, rows);
            }
            try (ResultSet rs = s.executeQuery("SELECT pgward.dialect()")) {
                assertTrue(rs.next());
                assertEquals("{\"dialect\": \"postgres\"}", rs.getString(1));
            }
            for (String call : List.of("SELECT * FROM pgward.ask('how many orders')", "/* nl: how many orders */",
                    "SELECT * FROM pgward.sql('how many orders')")) {
                SQLException e = assertThrows(SQLException.class, () -> s.executeQuery(call));
                assertEquals(SqlState.FEATURE_NOT_SUPPORTED, e.getSQLState(), call);
                assertTrue(e.getMessage().contains("set nl.provider in pgward's configuration"), e.getMessage());
            }
        }
    }

    @Test
    void withoutTheSectionEveryFunctionSaysHowToTurnItOn(TestDatabase db) throws Exception {
        try (ProxyFixture proxy = ProxyFixture.start(db); Connection c = proxy.connect("analyst");
             Statement s = c.createStatement()) {
            for (String call : List.of("SELECT * FROM pgward.schema()", "SELECT pgward.dialect()",
                    "SELECT * FROM pgward.ask('how many orders')")) {
                SQLException e = assertThrows(SQLException.class, () -> s.executeQuery(call));
                assertEquals(SqlState.FEATURE_NOT_SUPPORTED, e.getSQLState(), call);
                assertTrue(e.getMessage().contains("add an nl: section"), e.getMessage());
            }
        }
    }
}
