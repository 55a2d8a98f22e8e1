package io.pgward.guard.catalog;

import io.pgward.testkit.TestDatabase;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/** TEST ONLY: statements run directly as the test database's owner, not through a check. */
final class AsOwner {

    private AsOwner() {
    }

    static void run(TestDatabase db, String... statements) throws SQLException {
        try (Connection c = db.connect(); Statement s = c.createStatement()) {
            for (String sql : statements) {
                s.execute(sql);
            }
        }
    }

    /** How far {@code sequence} has counted: how many times a function that advances it has run, ever. */
    static long counted(TestDatabase db, String sequence) throws SQLException {
        try (Connection c = db.connect(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM " + sequence)) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
