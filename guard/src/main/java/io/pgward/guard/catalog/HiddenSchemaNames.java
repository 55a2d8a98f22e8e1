package io.pgward.guard.catalog;

import io.pgward.guard.SqlStates;
import io.pgward.guard.Verdict;
import io.pgward.guard.lexer.Token;
import io.pgward.guard.selection.VisibleCatalog;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.Optional;

/**
 * PostgreSQL's error for a reg* literal of a name nothing has, when the name is qualified with a schema the login
 * does not see. The server has the hidden schema, so it answers for the object ({@code relation "hr.nosuch" does
 * not exist}); a database without the schema answers for the schema ({@code schema "hr" does not exist}, 3F000) on
 * PostgreSQL 14 and 15 for every reg* input but regoperator's, and on every version for regtype's. Told apart, the
 * two would show that the schema exists.
 */
final class HiddenSchemaNames {

    private HiddenSchemaNames() {
    }

    /**
     * The refusal a database without the hidden schema would give in place of {@code error}, PostgreSQL's own error
     * for the statement at a literal; empty when it gives the same.
     */
    static Optional<Verdict.Refuse> replacing(Connection connection, Verdict.Refuse error, List<Token> tokens,
                                             VisibleCatalog visible) throws SQLException {
        ObjectKind kind = kind(error);
        if (error.position() == 0 || kind == null
                || kind != ObjectKind.TYPE && connection.getMetaData().getDatabaseMajorVersion() > 15) {
            return Optional.empty();
        }
        for (NameLiterals.Literal literal : NameLiterals.of(tokens)) {
            if (literal.position() != error.position()) {
                continue;
            }
            for (String name : GatedUses.names(literal.value())) {
                String schema = QualifiedName.schema(kind, name);
                if (schema != null && hidden(connection, schema, visible)) {
                    return Optional.of(CatalogRefusals.absentObject(ObjectKind.NAMESPACE.sqlState(),
                            ObjectKind.NAMESPACE.absentByName(schema, 0), error.position()));
                }
            }
        }
        return Optional.empty();
    }

    /** The kind of object PostgreSQL's "does not exist" error is about, by its SQLSTATE and wording. */
    private static ObjectKind kind(Verdict.Refuse error) {
        String message = error.message();
        return switch (error.sqlState()) {
            case SqlStates.UNDEFINED_TABLE -> message.startsWith("relation \"") ? ObjectKind.RELATION : null;
            case "42704" -> message.startsWith("type \"") ? ObjectKind.TYPE
                    : message.startsWith("collation \"") ? ObjectKind.COLLATION : null;
            case "42883" -> message.startsWith("function \"") ? message.contains("(") ? ObjectKind.FUNCTION
                    : ObjectKind.FUNCTION_NAME : null;
            default -> null;
        };
    }

    private static boolean hidden(Connection connection, String schema, VisibleCatalog visible)
            throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement(
                "SELECT pg_catalog.to_regnamespace(?)::pg_catalog.oid")) {
            ps.setString(1, schema);
            try (ResultSet rs = ps.executeQuery()) {
                long oid = rs.next() ? rs.getLong(1) : 0;
                return oid != 0 && !ObjectKind.NAMESPACE.visible(visible, oid);
            }
        }
    }
}
