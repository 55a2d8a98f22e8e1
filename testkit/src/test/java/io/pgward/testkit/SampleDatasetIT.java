package io.pgward.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The demo-size shop on the test server: the shape and the numbers the demo and later tests rely on. */
@PostgresTest(sampleData = SampleData.DEMO)
class SampleDatasetIT {

    private static Connection connection;

    @BeforeAll
    static void connect(TestDatabase database) throws SQLException {
        connection = database.connect();
    }

    @AfterAll
    static void close() throws SQLException {
        connection.close();
    }

    @Test
    void hasTheDemoSize() throws SQLException {
        assertEquals(10_000, single("SELECT count(*) FROM customers"));
        assertEquals(100_000, single("SELECT count(*) FROM orders"));
        assertEquals(500, single("SELECT count(*) FROM products"));
        long items = single("SELECT count(*) FROM order_items");
        assertTrue(items > 200_000 && items < 300_000, "about 2.5 lines per order: " + items);
        assertEquals(100, single("SELECT count(*) FROM hr.salaries"));
        assertTrue(single("SELECT count(*) FROM payment_tokens") > 5_000);
    }

    @Test
    void keepsItsForeignKeysAndTotalsConsistent() throws SQLException {
        assertEquals(0, single("SELECT count(*) FROM orders o WHERE total <> "
                + "(SELECT sum(quantity * unit_price) FROM order_items i WHERE i.order_id = o.id)"));
        assertEquals(4, single("SELECT count(*) FROM pg_constraint WHERE contype = 'f' "
                + "AND connamespace = 'public'::regnamespace"));
        assertEquals(List.of("pending", "paid", "shipped", "delivered", "cancelled", "refunded"),
                strings("SELECT unnest(enum_range(NULL::order_status))::text"));
    }

    @Test
    void describesItselfWithComments() throws SQLException {
        assertEquals("People and companies who buy from the shop.",
                strings("SELECT obj_description('customers'::regclass, 'pg_class')").get(0));
        assertEquals("Sales region the customer belongs to.",
                strings("SELECT col_description('customers'::regclass, 4)").get(0));
    }

    @Test
    void offersTheViewAndTheMaterializedView() throws SQLException {
        assertEquals(single("SELECT count(*) FROM order_items"), single("SELECT count(*) FROM v_sales"));
        assertEquals(List.of("Asia Pacific", "Europe", "Latin America", "Middle East & Africa", "North America"),
                strings("SELECT DISTINCT region FROM mv_region_revenue ORDER BY 1"));
        assertEquals(single("SELECT count(*) FROM orders WHERE status NOT IN ('cancelled', 'refunded')"),
                single("SELECT sum(orders) FROM mv_region_revenue"));
    }

    @Test
    void leavesIdentitySequencesPastTheLoadedRows() throws SQLException {
        try (Statement statement = connection.createStatement()) {
            connection.setAutoCommit(false);
            ResultSet rs = statement.executeQuery("INSERT INTO customers (name, email, region, country, segment, "
                    + "created_at) VALUES ('New', 'new@example.com', 'Europe', 'France', 'consumer', now()) RETURNING id");
            rs.next();
            assertEquals(10_001, rs.getInt(1));
            connection.rollback();
        } finally {
            connection.setAutoCommit(true);
        }
    }

    private static long single(String sql) throws SQLException {
        try (Statement statement = connection.createStatement(); ResultSet rs = statement.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private static List<String> strings(String sql) throws SQLException {
        List<String> result = new ArrayList<>();
        try (Statement statement = connection.createStatement(); ResultSet rs = statement.executeQuery(sql)) {
            while (rs.next()) {
                result.add(rs.getString(1));
            }
        }
        return result;
    }
}
