package io.pgward.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.platform.testkit.engine.EngineTestKit;

class PostgresExtensionIT {

    static final List<String> SEEN = new ArrayList<>();

    @Test
    void givesEachClassItsOwnFreshDatabaseAndDropsItAfterwards() throws SQLException {
        SEEN.clear();
        EngineTestKit.engine("junit-jupiter")
                .selectors(selectClass(FirstClass.class), selectClass(SecondClass.class))
                .execute()
                .testEvents()
                .assertStatistics(stats -> stats.started(2).succeeded(2));

        assertEquals(2, SEEN.size());
        assertNotEquals(SEEN.get(0), SEEN.get(1));
        try (Connection admin = PostgresExtension.sharedServer().connectAdmin();
             PreparedStatement exists = admin.prepareStatement("SELECT count(*) FROM pg_database WHERE datname = ?")) {
            for (String name : SEEN) {
                exists.setString(1, name);
                try (ResultSet rs = exists.executeQuery()) {
                    rs.next();
                    assertEquals(0, rs.getInt(1), name + " is dropped after its class");
                }
            }
        }
    }

    /** Both classes write the same table: each must start from an empty database to pass. */
    abstract static class WritesATable {
        @Test
        void startsEmpty(TestDatabase database) throws SQLException {
            SEEN.add(database.name());
            try (Connection connection = database.connect(); Statement statement = connection.createStatement()) {
                assertEquals(database.name(), connection.getCatalog());
                ResultSet tables = statement.executeQuery(
                        "SELECT count(*) FROM pg_class WHERE relnamespace = 'public'::regnamespace");
                tables.next();
                assertEquals(0, tables.getInt(1));
                statement.execute("CREATE TABLE marker (id int)");
                assertFalse(database.password().isEmpty());
            }
        }
    }

    @PostgresTest
    static class FirstClass extends WritesATable {
    }

    @PostgresTest
    static class SecondClass extends WritesATable {
    }
}
