package io.pgward.wire.auth;

import static io.pgward.wire.auth.ScramTestClient.authenticate;
import static io.pgward.wire.auth.ScramTestClient.pgjdbcLike;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.pgward.scram.ScramVerifier;
import io.pgward.testkit.PostgresTest;
import io.pgward.testkit.TestDatabase;
import io.pgward.wire.protocol.SqlState;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** pgward's SCRAM and md5 code against what a real PostgreSQL stores and expects. */
@PostgresTest
class ScramWithPostgresVerifierIT {

    private static final String PASSWORD = "p@ss w0rd";
    private static final byte[] MOCK_SECRET = ScramServerExchange.newMockSecret();
    private static final AtomicInteger SEQUENCE = new AtomicInteger();
    private static final List<String> ROLES = new ArrayList<>();

    @BeforeAll
    static void needsARoleThatCanReadPasswords(TestDatabase database) throws SQLException {
        try (Connection connection = database.connect(); Statement statement = connection.createStatement();
             ResultSet rs = statement.executeQuery("SELECT rolsuper FROM pg_roles WHERE rolname = current_user")) {
            rs.next();
            assumeTrue(rs.getBoolean(1), "reading pg_authid needs a superuser");
        }
    }

    @AfterAll
    static void dropRoles(TestDatabase database) throws SQLException {
        try (Connection connection = database.connect(); Statement statement = connection.createStatement()) {
            for (String role : ROLES) {
                statement.execute("DROP ROLE IF EXISTS " + role);
            }
        }
    }

    @Test
    void authenticatesTheRightPasswordAgainstTheVerifierPostgresStored(TestDatabase database) throws Exception {
        String role = createRole(database, "scram-sha-256", PASSWORD);
        String stored = rolpassword(database, role);
        ScramVerifier verifier = ScramVerifier.parse(stored);
        assertEquals(stored, verifier.encoded());

        assertDoesNotThrow(
                () -> authenticate(pgjdbcLike(PASSWORD), new ScramServerExchange(role, verifier, MOCK_SECRET)));
        assertThrows(AuthenticationFailed.class,
                () -> authenticate(pgjdbcLike("p@ss w0rd!"), new ScramServerExchange(role, verifier, MOCK_SECRET)));
    }

    @ParameterizedTest
    @ValueSource(strings = {PASSWORD, "pässwörd", "\uFF30I\u00ADX\u2168", "pass\u0080word"})
    void derivesTheVerifierPostgresStoresFromTheSamePasswordAndSalt(String password, TestDatabase database)
            throws Exception {
        assumeTrue(isUtf8(database), "non-ASCII passwords reach PostgreSQL's SASLprep unchanged only in UTF8");
        String role = createRole(database, "scram-sha-256", password);
        ScramVerifier postgres = ScramVerifier.parse(rolpassword(database, role));

        assertEquals(postgres, ScramVerifier.fromPassword(password, postgres.salt(), postgres.iterations()));
    }

    /**
     * PostgreSQL stores a verifier given as the password as it is, and checks logins against it with its own SCRAM
     * code: so a login proves that the verifiers pgward writes (login passwords, MCP token hashes) are its own.
     */
    @Test
    void postgresAuthenticatesAgainstTheVerifiersPgwardMakes(TestDatabase database) throws Exception {
        String token = "pgw_4kQq2x0Zr8yTn1mVh6bWc3sLd9pEa5uJ7gFi0oKxYz";
        for (ScramVerifier verifier : List.of(ScramVerifier.fromPassword(PASSWORD),
                ScramVerifier.fromUnpreparedSecret(token))) {
            String secret = verifier.matchesUnpreparedSecret(token) ? token : PASSWORD;
            String role = createRole(database, "scram-sha-256", verifier.encoded());
            assertEquals(verifier.encoded(), rolpassword(database, role), "stored as given, not hashed again");

            RawBackendLogin login = RawBackendLogin.login(database, role, secret);
            assumeTrue(login.requestCodes().contains(10), "this server does not ask TCP logins for SCRAM");
            assertNull(login.sqlState(), "login should succeed");
            assertEquals(SqlState.INVALID_PASSWORD, RawBackendLogin.login(database, role, secret + "!").sqlState());
        }
    }

    @Test
    void storesTheSameMd5FormAsPostgres(TestDatabase database) throws Exception {
        String role = createRole(database, "md5", PASSWORD);
        assertEquals(rolpassword(database, role), Md5Authentication.storedForm(role, PASSWORD));
    }

    @Test
    void logsInToPostgresWithScramAsABackendClient(TestDatabase database) throws Exception {
        String role = createRole(database, "scram-sha-256", PASSWORD);

        RawBackendLogin login = RawBackendLogin.login(database, role, PASSWORD);
        assumeTrue(login.requestCodes().contains(10), "this server does not ask TCP logins for SCRAM");
        assertNull(login.sqlState(), "login should succeed");
        assertEquals(List.of(10, 11, 12, 0), login.requestCodes());

        RawBackendLogin wrong = RawBackendLogin.login(database, role, "p@ss w0rd!");
        assertEquals(SqlState.INVALID_PASSWORD, wrong.sqlState());
        assertEquals(List.of(10, 11), wrong.requestCodes());
    }

    private static String createRole(TestDatabase database, String encryption, String password) throws SQLException {
        String role = ("r" + SEQUENCE.incrementAndGet() + "_" + database.name());
        role = role.substring(0, Math.min(63, role.length()));
        try (Connection connection = database.connect(); Statement statement = connection.createStatement()) {
            statement.execute("SET password_encryption = '" + encryption + "'");
            statement.execute("CREATE ROLE " + role + " LOGIN PASSWORD '" + password.replace("'", "''") + "'");
        }
        ROLES.add(role);
        return role;
    }

    private static String rolpassword(TestDatabase database, String role) throws SQLException {
        try (Connection connection = database.connect();
             PreparedStatement query = connection.prepareStatement(
                     "SELECT rolpassword FROM pg_authid WHERE rolname = ?")) {
            query.setString(1, role);
            try (ResultSet rs = query.executeQuery()) {
                rs.next();
                return rs.getString(1);
            }
        }
    }

    private static boolean isUtf8(TestDatabase database) throws SQLException {
        try (Connection connection = database.connect(); Statement statement = connection.createStatement();
             ResultSet rs = statement.executeQuery("SHOW server_encoding")) {
            rs.next();
            return "UTF8".equals(rs.getString(1));
        }
    }
}
