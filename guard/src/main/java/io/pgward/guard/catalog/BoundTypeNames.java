package io.pgward.guard.catalog;

import io.pgward.guard.SqlStates;
import io.pgward.guard.Verdict;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Map;
import java.util.Optional;

/**
 * The values a Bind gives to a statement's regtype parameters ({@link Verdict.Allow#typeNameParameters}), resolved
 * before the Bind reaches the server. PostgreSQL reads each text value with regtypein while it binds: a name nothing
 * has fails there ({@code type "x" does not exist}, 42704), while a hidden type's name binds, and only the filtered
 * pg_type then keeps no row. So a name that resolves to a type the login does not see gets that very error from
 * pgward, and the Bind does not run; PostgreSQL answers every other value itself. Binary values and NULLs are OIDs or
 * nothing and look nothing up, nor do {@code -} and OIDs in digits.
 *
 * <p>A name is resolved as regtypein resolves it ({@link TypeNameText}): by its schema when qualified, with USAGE on
 * it (without, PostgreSQL fails on the schema whatever the type); along the session's search_path otherwise; not at
 * all when it begins with a keyword that the grammar turns into a built-in type or rejects. Its array bounds and
 * modifiers are PostgreSQL's to judge once the name is visible: it looks a name up before it reads either.
 */
public final class BoundTypeNames {

    private static final String LOOKUP = "SELECT CASE "
            + "WHEN NOT ?::pg_catalog.bool AND EXISTS (SELECT FROM pg_catalog.pg_get_keywords() k "
            + "WHERE k.word OPERATOR(pg_catalog.=) ?::pg_catalog.text "
            + "AND k.catcode OPERATOR(pg_catalog.=) ANY ('{C,R}'::pg_catalog.\"char\"[])) THEN NULL "
            + "WHEN ?::pg_catalog.text IS NULL THEN (SELECT t.oid FROM pg_catalog.unnest("
            + "pg_catalog.current_schemas(true)) WITH ORDINALITY AS s(name, i) "
            + "JOIN pg_catalog.pg_namespace n ON n.nspname OPERATOR(pg_catalog.=) s.name "
            + "JOIN pg_catalog.pg_type t ON t.typnamespace OPERATOR(pg_catalog.=) n.oid "
            + "AND t.typname OPERATOR(pg_catalog.=) ?::pg_catalog.name ORDER BY s.i LIMIT 1) "
            + "ELSE (SELECT t.oid FROM pg_catalog.pg_namespace n JOIN pg_catalog.pg_type t "
            + "ON t.typnamespace OPERATOR(pg_catalog.=) n.oid "
            + "WHERE n.nspname OPERATOR(pg_catalog.=) ?::pg_catalog.name "
            + "AND t.typname OPERATOR(pg_catalog.=) ?::pg_catalog.name "
            + "AND pg_catalog.has_schema_privilege(n.oid, 'USAGE')) END";

    private BoundTypeNames() {
    }

    /**
     * The answer for the first value that names a hidden type, or that pgward does not read; empty when the Bind
     * may go on. Runs in a transaction of its own on {@code connection} (autocommit), which it rolls back.
     *
     * @param values the text values bound to the statement's regtype parameters, by parameter number (null: SQL
     *               NULL or a binary value)
     */
    public static Optional<Verdict.Refuse> check(Connection connection, TableSelection selection, String searchPath,
                                                 Map<Integer, String> values) throws SQLException {
        boolean opened = false;
        try {
            for (Map.Entry<Integer, String> value : values.entrySet()) {
                if (value.getValue() == null) {
                    continue;
                }
                TypeNameText read = TypeNameText.read(value.getValue());
                if (read instanceof TypeNameText.Unreadable) {
                    return Optional.of(unreadable(value.getKey()));
                }
                if (!(read instanceof TypeNameText.Name name)) {
                    continue;
                }
                if (!opened) {
                    connection.setAutoCommit(false);
                    opened = true;
                    try (PreparedStatement ps = connection.prepareStatement(
                            "SELECT pg_catalog.set_config('search_path', ?, true)")) {
                        ps.setString(1, searchPath);
                        ps.executeQuery().close();
                    }
                }
                if (name.schema() != null && hiddenSchema(connection, selection, name.schema())) {
                    // PostgreSQL looks the schema up first: a hidden schema answers as an absent one, whatever
                    // the type.
                    return Optional.of(CatalogRefusals.absentObject(ObjectKind.NAMESPACE.sqlState(),
                            ObjectKind.NAMESPACE.absentByName("\"" + name.schema().replace("\"", "\"\"") + "\"",
                                    0), 0));
                }
                long oid = lookup(connection, name);
                if (oid != 0 && !ObjectKind.TYPE.visible(selection.filters().visible(), oid)) {
                    return Optional.of(CatalogRefusals.absentObject(ObjectKind.TYPE.sqlState(),
                            ObjectKind.TYPE.absentByName(name.display(), oid), 0));
                }
            }
            return Optional.empty();
        } finally {
            if (opened) {
                connection.rollback();
                connection.setAutoCommit(true);
            }
        }
    }

    /** Whether a schema of that name exists and the login does not see it. */
    private static boolean hiddenSchema(Connection connection, TableSelection selection, String schema)
            throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement("SELECT n.oid FROM pg_catalog.pg_namespace n "
                + "WHERE n.nspname OPERATOR(pg_catalog.=) ?::pg_catalog.name")) {
            ps.setString(1, schema);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() && !ObjectKind.NAMESPACE.visible(selection.filters().visible(), rs.getLong(1));
            }
        }
    }

    /** The type's OID, or 0 when PostgreSQL would find none (and answer for the value itself). */
    private static long lookup(Connection connection, TypeNameText.Name name) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement(LOOKUP)) {
            ps.setBoolean(1, name.firstQuoted());
            ps.setString(2, name.parts().get(0));
            ps.setString(3, name.schema());
            ps.setString(4, name.type());
            ps.setString(5, name.schema());
            ps.setString(6, name.type());
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getLong(1) : 0;
            }
        }
    }

    private static Verdict.Refuse unreadable(int parameter) {
        return new Verdict.Refuse(SqlStates.INSUFFICIENT_PRIVILEGE, Verdict.Refuse.PREFIX + "the value bound to $"
                + parameter + " as a type name must be a type's OID or its plain name (an identifier, qualified at most by "
                + "its schema, with integer modifiers and [] at most) while a table selection is set.", 0,
                CatalogRefusals.TYPE_NAME_PARAMETER);
    }
}
