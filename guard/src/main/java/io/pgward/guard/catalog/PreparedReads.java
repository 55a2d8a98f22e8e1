package io.pgward.guard.catalog;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Collection;
import java.util.Collections;
import java.util.Set;
import java.util.WeakHashMap;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.postgresql.PGConnection;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The catalog reads of a check, prepared on each control connection with SQL {@code PREPARE}, so that PostgreSQL
 * parses and plans them once per connection instead of once per check: planning these joins of the catalogs took
 * most of a check's round trips.
 *
 * <p>Why not pgjdbc's own server-side statements: pgjdbc drops all of them whenever PostgreSQL reports a new
 * search_path (PostgreSQL 18 and later report it), and every check switches between the session's path and the
 * safe one. Statements prepared with SQL are the server's alone; pgjdbc sends each {@code EXECUTE} as a short
 * text. They survive a ROLLBACK, and they are prepared with the safe path in effect, which is the path every check
 * executes them with, so PostgreSQL keeps their plans (it analyses a statement again under another path).
 *
 * <p>The OID arrays are written into the EXECUTE as literals: they are numbers the check itself produced.
 *
 * <p>The same setup keeps the connection's temporary schema for its life, by committing an object in it. A check's
 * function would otherwise be the first temporary object of its transaction, and the ROLLBACK that undoes the function
 * also undoes the schema's setup for the session; setting it up again makes PostgreSQL drop every cached plan of the
 * connection, these reads' too. The object is a function, which PostgreSQL never finds by an unqualified name, so it
 * cannot change how a checked statement resolves; a statement that names it with pg_temp is judged a call of a user
 * function (and refused as one), where its own session would find no such function. A role taken with SET ROLE still
 * needs the TEMP privilege of its own for the check's function: PostgreSQL gives a role without it no CREATE on the
 * kept schema.
 */
final class PreparedReads {

    private static final Logger log = LoggerFactory.getLogger(PreparedReads.class);

    private PreparedReads() {
    }

    /** One prepared read: its statement name, its parameter list ("" or "(oid[])") and its query. */
    enum Read {
        DOMAIN_CHECKS("", CatalogReader.DOMAIN_CHECKS),
        DOMAIN_CHECKS_UNCHANGED("(pg_catalog.text, pg_catalog.text, pg_catalog.text)",
                CatalogReader.DOMAIN_CHECKS_UNCHANGED),
        CHECK_FUNCTION("", CheckFunctionRead.QUERY),
        CHECK_ROWS("(pg_catalog.oid[], pg_catalog.oid[])", CheckFunctionRead.ROWS),
        RELATIONS(Read.OIDS, CatalogReader.RELATION_SELECT + Read.BY_OIDS.formatted("c")),
        TYPES(Read.OIDS, CatalogReader.TYPE_SELECT + Read.BY_OIDS.formatted("t")),
        FUNCTIONS(Read.OIDS, CatalogReader.FUNCTION_SELECT + Read.BY_OIDS.formatted("p")),
        OPERATORS(Read.OIDS, CatalogReader.OPERATOR_SELECT + Read.BY_OIDS.formatted("o")),
        VIEW_DEFINITIONS(Read.OIDS, """
                SELECT r.ev_class, r.ev_action::pg_catalog.text FROM pg_catalog.pg_rewrite r
                WHERE r.ev_class = ANY ($1) AND r.rulename OPERATOR(pg_catalog.=) '_RETURN'
                ORDER BY r.ev_class"""),
        POLICY_EXPRESSIONS(Read.OIDS, """
                SELECT p.polrelid, p.polqual::pg_catalog.text, p.polwithcheck::pg_catalog.text
                FROM pg_catalog.pg_policy p WHERE p.polrelid = ANY ($1)
                ORDER BY p.oid""");

        private static final String OIDS = "(pg_catalog.oid[])";
        private static final Pattern DIGEST = Pattern.compile("[0-9a-f]{64}|");
        private static final String BY_OIDS = " WHERE %s.oid = ANY ($1)";

        private final String parameters;
        private final String query;

        Read(String parameters, String query) {
            this.parameters = parameters;
            this.query = query;
        }

        private String statementName() {
            return "pgward_" + name().toLowerCase(java.util.Locale.ROOT);
        }

        /** The EXECUTE of a read without parameters. */
        String execute() {
            if (!parameters.isEmpty()) {
                throw new IllegalStateException(this + " takes OIDs");
            }
            return "EXECUTE " + statementName();
        }

        /**
         * The EXECUTE of {@link #DOMAIN_CHECKS_UNCHANGED} for a digest DOMAIN_CHECKS gave, taking the session's
         * search_path and standard_conforming_strings ("on" or "off").
         */
        static String domainChecksUnchanged(String digest, String searchPath, String standardConformingStrings) {
            if (!DIGEST.matcher(digest).matches()) {
                throw new IllegalArgumentException("not a digest: " + digest);
            }
            return "EXECUTE " + DOMAIN_CHECKS_UNCHANGED.statementName() + "('" + digest + "', "
                    + literal(searchPath) + ", " + literal(standardConformingStrings) + ")";
        }

        /** The EXECUTE of a read of these OIDs. */
        String execute(Collection<Long> oids) {
            if (!parameters.equals(OIDS)) {
                throw new IllegalStateException(this + " takes no OIDs");
            }
            return "EXECUTE " + statementName() + "(" + array(oids) + ")";
        }

        /** The EXECUTE of {@link #CHECK_ROWS} for these relations and types. */
        static String rowsAround(Collection<Long> relations, Collection<Long> types) {
            return "EXECUTE " + CHECK_ROWS.statementName() + "(" + array(relations) + ", " + array(types) + ")";
        }

        private static String array(Collection<Long> oids) {
            return oids.stream().map(String::valueOf).collect(Collectors.joining(",", "'{", "}'"));
        }
    }

    /**
     * {@code value} as a literal that reads the same under either standard_conforming_strings: E'...' with every
     * quote and backslash doubled. The value must hold no NUL, which no literal can carry.
     */
    static String literal(String value) {
        if (value.indexOf('\0') >= 0) {
            throw new IllegalArgumentException("a NUL in a literal");
        }
        return "E'" + value.replace("\\", "\\\\").replace("'", "''") + "'";
    }

    /** A function in pg_temp that keeps the temporary schema: see the class comment. */
    static final String SCHEMA_KEEPER = "pgward_keeps_temporary_schema";

    /** The schema is not kept yet, and the database login itself may create temporary objects. */
    private static final String KEEPER_WANTED = "SELECT pg_catalog.pg_my_temp_schema() OPERATOR(pg_catalog.=) 0 "
            + "AND pg_catalog.has_database_privilege(SESSION_USER, pg_catalog.current_database(), 'TEMP')";

    /** The physical connections set up; a connection that is gone drops out. */
    private static final Set<Object> PREPARED = Collections.synchronizedSet(
            Collections.newSetFromMap(new WeakHashMap<>()));

    /**
     * Keeps the temporary schema of {@code connection} and prepares every read on it, unless that was done: a few
     * round trips the first time. The connection must be in autocommit mode, outside any transaction.
     */
    static void ensure(Connection connection) throws SQLException {
        Object physical = connection.unwrap(PGConnection.class);
        if (PREPARED.contains(physical)) {
            return;
        }
        keepTemporarySchema(connection);
        StringBuilder sql = new StringBuilder("BEGIN; SELECT pg_catalog.set_config('search_path', '"
                + CheckTransaction.SAFE_PATH + "', true)");
        for (Read read : Read.values()) {
            sql.append("; PREPARE ").append(read.statementName()).append(read.parameters).append(" AS ")
                    .append(read.query);
        }
        sql.append("; COMMIT");
        try (Statement s = connection.createStatement()) {
            s.execute(sql.toString());
        }
        PREPARED.add(physical);
    }

    /** A failure to keep the schema only leaves the plans as short-lived as they were. */
    private static void keepTemporarySchema(Connection connection) throws SQLException {
        try (Statement s = connection.createStatement(); ResultSet rs = s.executeQuery(KEEPER_WANTED)) {
            if (!rs.next() || !rs.getBoolean(1)) {
                return;
            }
        }
        try (Statement s = connection.createStatement()) {
            s.execute("CREATE FUNCTION pg_temp." + SCHEMA_KEEPER + "() RETURNS pg_catalog.void LANGUAGE sql AS ''");
        } catch (SQLException e) {
            log.debug("could not keep the control connection's temporary schema: {}", e.getMessage());
        }
    }
}
