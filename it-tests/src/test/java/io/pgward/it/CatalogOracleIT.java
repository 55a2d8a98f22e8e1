package io.pgward.it;

import io.pgward.testkit.PostgresTest;
import io.pgward.testkit.SampleData;
import io.pgward.testkit.TestDatabase;
import io.pgward.wire.config.PgwardConfig;
import java.io.IOException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 13 end to end: BI tools, ORMs and drivers, logged in through pgward as a read-only login with a table
 * selection, must see exactly what they see in a database that holds only the selection (the oracle,
 * {@link OracleDatabase}). Each client runs the same program once directly on the oracle, as the analyst's
 * backend role, and once through pgward's {@code analyst} login on the full demo shop; the outputs are compared
 * item by item after {@link OracleNormalisation}.
 *
 * <p>Most items differ while the filtered catalog is being built: those are listed, with their reason, in
 * {@link KnownDifferences}'s file, and the test fails on any difference not listed there and on any listed one
 * that is gone. Whatever the list says, a hidden object's name, column, value or role in pgward's output (rows
 * or error text) fails the test ({@link CatalogLeaks}). {@code target/catalog-oracle-report.md} has the
 * client × item table of the run.
 */
@PostgresTest(sampleData = SampleData.SMALL)
class CatalogOracleIT {

    private static OracleDatabase oracleDatabase;
    private static ProxyFixture proxy;
    private static Target oracle;
    private static Target pgward;
    private static KnownDifferences known;
    private static OracleComparison comparison;

    @BeforeAll
    static void start(TestDatabase database) throws Exception {
        oracleDatabase = OracleDatabase.create(database);
        proxy = ProxyFixture.start(database, ProxyFixture.STANDARD_GATES, null, PgwardConfig.TlsMode.DISABLE, 8,
                oracleDatabase.analystLogin());
        oracle = oracleDatabase.target();
        pgward = new Target("pgward", "127.0.0.1", proxy.port(), database.name(), "analyst", ProxyFixture.PASSWORD);
        known = KnownDifferences.load(database.serverMajor());
        comparison = new OracleComparison(known, new OracleNormalisation(database.name(), oracleDatabase.name(),
                databaseOid(database, database.name()), databaseOid(database, oracleDatabase.name())),
                targetDirectory().resolve("catalog-oracle"));
    }

    @AfterAll
    static void stop() throws Exception {
        try {
            if (proxy != null) {
                proxy.close();
            }
            if (comparison != null) {
                comparison.writeReport(targetDirectory().resolve("catalog-oracle-report.md"));
                if (KnownDifferences.rewriting()) {
                    known.write();
                }
            }
        } finally {
            if (oracleDatabase != null) {
                oracleDatabase.drop();
            }
        }
    }

    @Test
    void psqlDescribeCommands() throws Exception {
        Map<String, String> commands = new LinkedHashMap<>();
        PsqlItems.commands().forEach(command -> commands.put(command, command));
        comparison.check("psql", commands, PsqlItems.run(oracle), PsqlItems.run(pgward));
    }

    @Test
    void pgjdbcDatabaseAndResultSetMetadata() throws Exception {
        compare("pgjdbc", JdbcMetadataItems.run(oracle), JdbcMetadataItems.run(pgward));
    }

    @Test
    void sqlalchemyInspectorAndAutoload() throws Exception {
        compare("sqlalchemy", OracleScriptItems.python(oracle, "sqlalchemy", "sqlalchemy", "python3-sqlalchemy"),
                OracleScriptItems.python(pgward, "sqlalchemy", "sqlalchemy", "python3-sqlalchemy"));
    }

    @Test
    void psycopgTypeInfo() throws Exception {
        compare("psycopg", OracleScriptItems.python(oracle, "psycopg", "psycopg", "python3-psycopg"),
                OracleScriptItems.python(pgward, "psycopg", "psycopg", "python3-psycopg"));
    }

    @Test
    void asyncpgEnumsAndComposites() throws Exception {
        compare("asyncpg", OracleScriptItems.python(oracle, "asyncpg", "asyncpg", "python3-asyncpg"),
                OracleScriptItems.python(pgward, "asyncpg", "asyncpg", "python3-asyncpg"));
    }

    @Test
    void postgresJsAndNodePostgres() throws Exception {
        compare("node", OracleScriptItems.node(oracle), OracleScriptItems.node(pgward));
    }

    @Test
    void drizzleKitPull(@TempDir Path out) throws Exception {
        compare("drizzle-kit", OracleScriptItems.drizzle(oracle, out.resolve("oracle")),
                OracleScriptItems.drizzle(pgward, out.resolve("pgward")));
    }

    @Test
    void toolCatalogCorpus() throws Exception {
        comparison.check("corpus", CorpusItems.corpus(), CorpusItems.run(oracle), CorpusItems.run(pgward));
    }

    @Test
    void hostileCatalogProbes() throws Exception {
        comparison.check("probes", CorpusItems.probes(), CorpusItems.probes(oracle), CorpusItems.probes(pgward));
    }

    private static void compare(String client, Map<String, String> onOracle, Map<String, String> throughPgward)
            throws IOException {
        comparison.check(client, onOracle, throughPgward);
    }

    private static Path targetDirectory() {
        return Path.of(System.getProperty("basedir", ".")).toAbsolutePath().resolve("target");
    }

    private static long databaseOid(TestDatabase database, String name) throws SQLException {
        try (Connection c = database.connect();
             PreparedStatement ps = c.prepareStatement("SELECT oid FROM pg_database WHERE datname = ?")) {
            ps.setString(1, name);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }
}
