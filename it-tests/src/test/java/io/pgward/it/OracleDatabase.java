package io.pgward.it;

import io.pgward.testkit.TestDatabase;
import io.pgward.wire.config.PgwardConfig;
import io.pgward.wire.config.Secret;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.function.UnaryOperator;

/**
 * The demo's shop as the analyst should see it: a second database on the same PostgreSQL holding only the
 * selected relations, so that any client's view of it is, by definition, the view the analyst's table
 * selection must give through pgward.
 *
 * <p>How it is built: the test database (the demo's sample shop) gets the demo's roles and grants
 * ({@code pgward_analyst}, the analyst's backend role, reads everything through {@code pg_read_all_data};
 * {@code pgward_app} may also write and create in {@code public}); it is then copied with {@code CREATE
 * DATABASE ... TEMPLATE}, and the copy loses the hidden objects ({@code public.payment_tokens} and the schema
 * {@code hr}) as the superuser. The copy keeps every other object's OID, its rows and its statistics, so OIDs,
 * sizes and row-dependent values need no normalisation; what remains is exactly the selection's DDL with the
 * demo's owners and grants. Beyond the demo, {@code hr} also holds namesakes of selected objects (a table
 * {@code hr.orders}, an enum {@code hr.order_status}), so that every lookup by name meets a hidden one. A restore of {@code pg_dump --schema-only} of the selected relations would give the
 * same catalog with new OIDs and no rows, and needs a pg_dump of the server's major version, which the client
 * package (psql 15) does not have for newer servers.
 *
 * <p>Roles are cluster-wide: the oracle database sees the same roles as the test database, which is why the
 * leak check treats role names strictly ({@link CatalogLeaks}).
 */
final class OracleDatabase {

    static final String ANALYST_ROLE = "pgward_analyst";
    static final String APP_ROLE = "pgward_app";
    static final String ROLE_PASSWORD = "oracle role pass";

    /** The analyst login's selection: the demo's ({@code DemoSetup.ANALYST_TABLES}). */
    static final List<String> SELECTION = List.of("public.orders", "public.customers", "public.products",
            "public.order_items", "public.v_sales", "public.mv_region_revenue");

    private final TestDatabase database;
    private final String name;

    private OracleDatabase(TestDatabase database, String name) {
        this.database = database;
        this.name = name;
    }

    /**
     * Adds the demo's roles to database, then creates the oracle beside it. Nothing may be connected to
     * database while it is copied.
     */
    static OracleDatabase create(TestDatabase database) throws SQLException {
        try (Connection c = database.connect(); Statement s = c.createStatement()) {
            for (String role : List.of(ANALYST_ROLE, APP_ROLE)) {
                s.execute("DO $$ BEGIN CREATE ROLE " + role + " LOGIN; EXCEPTION WHEN duplicate_object THEN NULL; "
                        + "END $$");
                s.execute("ALTER ROLE " + role + " LOGIN PASSWORD '" + ROLE_PASSWORD + "'");
            }
            s.execute("GRANT pg_read_all_data TO " + ANALYST_ROLE);
            s.execute("GRANT pg_read_all_data, pg_write_all_data TO " + APP_ROLE);
            s.execute("GRANT CREATE ON SCHEMA public TO " + APP_ROLE);
            // Hidden namesakes of selected objects, so that every lookup by name meets one.
            s.execute("CREATE TYPE hr.order_status AS ENUM ('pending', 'SENSITIVE')");
            s.execute("CREATE TABLE hr.orders (id integer PRIMARY KEY, department text NOT NULL, "
                    + "status hr.order_status NOT NULL DEFAULT 'SENSITIVE')");
            s.execute("COMMENT ON TABLE hr.orders IS 'SENSITIVE: a hidden namesake of public.orders'");
        }
        // The same length as the test database's name, so that psql's column widths do not depend on which
        // of the two a listing shows.
        String name = "o" + database.name().substring(1);
        try (Connection c = connectAsOwner(database, "postgres"); Statement s = c.createStatement()) {
            s.execute("CREATE DATABASE " + name + " TEMPLATE " + database.name());
        }
        OracleDatabase oracle = new OracleDatabase(database, name);
        try (Connection c = connectAsOwner(database, name); Statement s = c.createStatement()) {
            s.execute("DROP TABLE public.payment_tokens");
            s.execute("DROP SCHEMA hr CASCADE");
        }
        return oracle;
    }

    String name() {
        return name;
    }

    /** The oracle as the analyst's backend role sees it, directly on PostgreSQL. */
    Target target() {
        return new Target("oracle", database.host(), database.port(), name, ANALYST_ROLE, ROLE_PASSWORD);
    }

    /** The configuration change that maps the analyst login to the backend role and gives it the selection. */
    UnaryOperator<PgwardConfig> analystLogin() {
        return config -> {
            Map<String, PgwardConfig.Login> logins = new LinkedHashMap<>(config.logins());
            PgwardConfig.Login analyst = logins.get("analyst");
            logins.put("analyst", new PgwardConfig.Login(analyst.name(), analyst.auth(), analyst.password(),
                    analyst.scramVerifier(), ANALYST_ROLE, new Secret(ROLE_PASSWORD),
                    analyst.policy().withTables(SELECTION)));
            return config.withLogins(logins);
        };
    }

    void drop() throws SQLException {
        try (Connection c = connectAsOwner(database, "postgres"); Statement s = c.createStatement()) {
            s.execute("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
        }
    }

    /** The copy cannot be made from a connection to its template: the superuser, on another database. */
    private static Connection connectAsOwner(TestDatabase database, String databaseName) throws SQLException {
        Properties props = new Properties();
        props.setProperty("user", database.user());
        props.setProperty("password", database.password());
        return DriverManager.getConnection("jdbc:postgresql://" + database.host() + ":" + database.port() + "/"
                + databaseName, props);
    }
}
