package io.pgward.guard.selection;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import io.pgward.guard.SqlStates;
import io.pgward.testkit.PostgresTest;
import io.pgward.testkit.SampleData;
import io.pgward.testkit.TestDatabase;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Describe as the login's backend role: its privileges, and its TEMP privilege for the sample checks. */
@PostgresTest(sampleData = SampleData.SMALL)
class DescribeAsRoleTest {

    private static final String WITH_TEMP = "pgward_describe_with_temp";
    private static final String WITHOUT_TEMP = "pgward_describe_without_temp";
    private static final List<String> STATUSES = List.of("cancelled", "delivered", "paid", "pending", "refunded",
            "shipped");

    private final TestDatabase database;
    private final RelationDescriber describer = new RelationDescriber(RiskyDomains.CATALOG_DEPENDENCIES);

    DescribeAsRoleTest(TestDatabase database) {
        this.database = database;
    }

    @BeforeAll
    static void roles(TestDatabase database) throws SQLException {
        try (Connection connection = database.connect(); Statement statement = connection.createStatement()) {
            for (String role : List.of(WITH_TEMP, WITHOUT_TEMP)) {
                statement.execute("""
                        DO $$ BEGIN CREATE ROLE %1$s; EXCEPTION WHEN duplicate_object THEN NULL; END $$;
                        GRANT SELECT ON public.orders, public.customers TO %1$s;
                        """.formatted(role));
            }
            statement.execute("REVOKE TEMPORARY ON DATABASE " + database.name() + " FROM PUBLIC");
            statement.execute("GRANT TEMPORARY ON DATABASE " + database.name() + " TO " + WITH_TEMP);
        }
    }

    private Description describe(String role, ResolvedSelection selection, String name) throws SQLException {
        try (Connection connection = database.connect()) {
            DescribeResult outcome = describer.describe(connection, role, selection, name);
            try (Statement statement = connection.createStatement()) {
                statement.execute("SELECT 1");
            }
            return assertInstanceOf(DescribeResult.Described.class, outcome).description();
        }
    }

    private ResolvedSelection select(String... names) throws SQLException {
        try (Connection connection = database.connect()) {
            return SelectionResolver.resolve(connection, SelectedNames.parse("tables", List.of(names)));
        }
    }

    @Test
    void aRoleWithTempGetsValues() throws SQLException {
        assertEquals(Map.of("status", STATUSES), describe(WITH_TEMP, select("public.orders"), "orders").values());
    }

    @Test
    void aRoleWithoutTempGetsNoValues() throws SQLException {
        Description orders = describe(WITHOUT_TEMP, select("public.orders"), "orders");
        assertEquals(Map.of(), orders.values());
        assertEquals(6, orders.columns().size());
    }

    @Test
    void withoutSelectionRelationshipsInvolveOnlyWhatTheRoleCanRead() throws SQLException {
        assertEquals(List.of("public.orders(customer_id) -> public.customers(id)"),
                describe(WITH_TEMP, ResolvedSelection.NONE, "orders").relationships());
    }

    @Test
    void withoutSelectionOnlyReadableRelationsCanBeDescribed() throws SQLException {
        try (Connection connection = database.connect()) {
            assertEquals(DescribeResult.Refused.of(SqlStates.UNDEFINED_TABLE,
                    "order_items is not a table or view this login can read."),
                    describer.describe(connection, WITH_TEMP, ResolvedSelection.NONE, "order_items"));
        }
    }
}
