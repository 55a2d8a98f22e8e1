package io.pgward.guard.selection;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.pgward.testkit.PostgresTest;
import io.pgward.testkit.TestDatabase;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import org.junit.jupiter.api.Test;

@PostgresTest
class RelationListCapTest {

    @Test
    void listsAtMostTwoThousandRelationsViewsBeforeTables(TestDatabase database) throws SQLException {
        try (Connection connection = database.connect(); Statement statement = connection.createStatement()) {
            statement.execute("""
                    DO $$ BEGIN
                      FOR i IN 0..2004 LOOP
                        EXECUTE format('CREATE TABLE t%s (a int)', lpad(i::text, 4, '0'));
                      END LOOP;
                    END $$;
                    CREATE VIEW zz_last_by_name AS SELECT 1 AS one""");
            LocalRows rows = RelationList.list(connection, null, ResolvedSelection.NONE);
            List<String> names = rows.rows().stream().map(List::getFirst).toList();
            assertEquals(2000, names.size());
            assertEquals("public.zz_last_by_name", names.getFirst());
            assertEquals("public.t0000", names.get(1));
            assertEquals("public.t1998", names.getLast());
        }
    }
}
