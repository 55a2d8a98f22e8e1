package io.pgward.demo;

import io.pgward.sampledb.DatasetSize;
import io.pgward.sampledb.LocalPostgres;
import io.pgward.sampledb.SampleDataset;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * The demo's database: an embedded PostgreSQL with the sample shop loaded into the database {@code shop}.
 * Closing it stops PostgreSQL and deletes its data.
 */
final class DemoDatabase implements AutoCloseable {

    public static final String DATABASE = "shop";
    public static final String ANALYST_ROLE = "pgward_analyst";
    public static final String APP_ROLE = "pgward_app";

    private final LocalPostgres postgres;
    private final DatasetSize size;
    private final String serverVersion;

    private DemoDatabase(LocalPostgres postgres, DatasetSize size, String serverVersion) {
        this.postgres = postgres;
        this.size = size;
        this.serverVersion = serverVersion;
    }

    /** Starts PostgreSQL on {@code port} (0 for any free port) and loads the shop at {@code size}. */
    public static DemoDatabase start(int port, DatasetSize size) throws SQLException {
        LocalPostgres postgres = LocalPostgres.start(port);
        try {
            try (Connection admin = postgres.connect("postgres"); Statement statement = admin.createStatement()) {
                statement.execute("CREATE DATABASE " + DATABASE);
            }
            String version;
            try (Connection shop = postgres.connect(DATABASE)) {
                SampleDataset.load(shop, size);
                version = shop.getMetaData().getDatabaseProductVersion();
                createRoles(shop, postgres.password());
            }
            return new DemoDatabase(postgres, size, version);
        } catch (SQLException | RuntimeException e) {
            postgres.close();
            throw e;
        }
    }

    /**
     * The PostgreSQL roles pgward's demo logins use: {@code pgward_analyst} may read everything
     * ({@code pg_read_all_data}), {@code pgward_app} may also write. Their password is the superuser's, which
     * only pgward's configuration holds.
     */
    private static void createRoles(Connection shop, String password) throws SQLException {
        try (Statement statement = shop.createStatement()) {
            String quoted = "'" + password.replace("'", "''") + "'";
            statement.execute("CREATE ROLE " + ANALYST_ROLE + " LOGIN PASSWORD " + quoted);
            statement.execute("GRANT pg_read_all_data TO " + ANALYST_ROLE);
            statement.execute("CREATE ROLE " + APP_ROLE + " LOGIN PASSWORD " + quoted);
            statement.execute("GRANT pg_read_all_data, pg_write_all_data TO " + APP_ROLE);
            statement.execute("GRANT CREATE ON SCHEMA public TO " + APP_ROLE);
        }
    }

    public LocalPostgres postgres() {
        return postgres;
    }

    public DatasetSize size() {
        return size;
    }

    /** e.g. {@code 17.5} */
    public String serverVersion() {
        return serverVersion;
    }

    /** psql's connection string for the shop as the PostgreSQL superuser. */
    public String uri() {
        return postgres.uri(DATABASE);
    }

    @Override
    public void close() {
        postgres.close();
    }
}
