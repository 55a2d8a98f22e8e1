package io.pgward.guard.selection;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.pgward.guard.SqlStates;
import io.pgward.testkit.PostgresTest;
import io.pgward.testkit.SampleData;
import io.pgward.testkit.TestDatabase;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.postgresql.util.PSQLException;

/** The hints on the errors PostgreSQL itself raises, with a selection resolved from the catalog. */
@PostgresTest(sampleData = SampleData.SMALL)
class ColumnHintsPostgresTest {

    private static ResolvedSelection selection;

    private final TestDatabase database;

    ColumnHintsPostgresTest(TestDatabase database) {
        this.database = database;
    }

    @BeforeAll
    static void resolve(TestDatabase database) throws SQLException {
        try (Connection connection = database.connect(); Statement statement = connection.createStatement()) {
            statement.execute("CREATE TABLE hr.\"Stores\" (\"Id\" int, city text)");
            selection = SelectionResolver.resolve(connection, SelectedNames.parse("tables",
                    List.of("public.orders", "public.customers", "hr.\"Stores\"")));
        }
    }

    /** The message pgward sends: PostgreSQL's primary message with the hints appended. */
    private String error(String sql, String expectedState) throws SQLException {
        try (Connection connection = database.connect(); Statement statement = connection.createStatement()) {
            PSQLException e = assertThrows(PSQLException.class, () -> statement.execute(sql));
            assertEquals(expectedState, e.getSQLState());
            assertEquals(true, ColumnHints.appliesTo(e.getSQLState()));
            return ColumnHints.appendTo(e.getServerErrorMessage().getMessage(), sql, true, selection);
        }
    }

    @Test
    void undefinedColumn() throws SQLException {
        assertEquals("column \"totl\" does not exist. Columns of public.orders: id, customer_id, status, ordered_at,"
                + " shipped_at, total.", error("SELECT totl FROM orders", SqlStates.UNDEFINED_COLUMN));
    }

    @Test
    void ambiguousColumnNamesEveryRelationInListOrder() throws SQLException {
        assertEquals("column reference \"id\" is ambiguous. Columns of public.orders: id, customer_id, status,"
                + " ordered_at, shipped_at, total. Columns of public.customers: id, name, email, region, country,"
                + " segment, created_at.", error("SELECT id FROM customers c JOIN orders o ON o.customer_id = c.id",
                SqlStates.AMBIGUOUS_COLUMN));
    }

    @Test
    void usingColumnOneSideLacks() throws SQLException {
        assertEquals("column \"region\" specified in USING clause does not exist in right table. Columns of"
                        + " public.orders: id, customer_id, status, ordered_at, shipped_at, total. Columns of"
                        + " public.customers: id, name, email, region, country, segment, created_at.",
                error("SELECT * FROM customers JOIN orders USING (region)", SqlStates.UNDEFINED_COLUMN));
    }

    @Test
    void quotedNameKeepsCaseAndLiteralsDoNotCount() throws SQLException {
        assertEquals("column \"id\" does not exist. Columns of hr.\"Stores\": \"Id\", city.",
                error("SELECT id FROM hr.\"Stores\" WHERE city <> 'orders'", SqlStates.UNDEFINED_COLUMN));
        assertEquals("relation \"hr.stores\" does not exist",
                assertThrows(PSQLException.class, () -> {
                    try (Connection connection = database.connect(); Statement statement = connection.createStatement()) {
                        statement.execute("SELECT id FROM hr.stores");
                    }
                }).getServerErrorMessage().getMessage());
        assertEquals("", ColumnHints.hints("SELECT id FROM hr.stores", true, selection));
    }
}
