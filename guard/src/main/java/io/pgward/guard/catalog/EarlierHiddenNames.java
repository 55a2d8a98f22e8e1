package io.pgward.guard.catalog;

import io.pgward.guard.Verdict;
import io.pgward.guard.lexer.Token;
import io.pgward.guard.selection.VisibleCatalog;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.util.List;
import java.util.Optional;

/**
 * PostgreSQL stopped analysing a statement at an error, at a position: a reg* literal written before it (or an
 * earlier element of the array literal there) that names a hidden object was found on the full database, where a
 * database without the object stops at that literal. Answered as PostgreSQL fails there, {@code SELECT
 * 'hr.x'::regclass, 'nosuch'::regclass} tells nothing about {@code hr.x}. Literals are taken in text order, which is
 * PostgreSQL's order of analysis within one select list or condition.
 */
final class EarlierHiddenNames {

    private EarlierHiddenNames() {
    }

    /**
     * The error for the first reg* literal at or before {@code error}'s position that names what the login does not
     * see, or empty when the first name nothing has comes before any such (then PostgreSQL's error is that name's).
     */
    static Optional<Verdict.Refuse> before(Verdict.Refuse error, List<Token> tokens, GatedUses.NameResolver names,
                                           VisibleCatalog visible, int serverMajor) throws SQLException {
        for (NameLiterals.Literal literal : NameLiterals.of(tokens)) {
            if (literal.position() > error.position()) {
                break;
            }
            ObjectKind kind = literal.regTyped() ? ObjectKind.ofRegTypeName(literal.regType()) : null;
            if (kind == null || kind.resolver() == null) {
                continue;
            }
            for (String name : GatedUses.names(literal.value())) {
                byte[] bytes = name.getBytes(StandardCharsets.UTF_8);
                if (CheckTransaction.failsOnlyWhenFound(kind, bytes)) {
                    return Optional.empty();
                }
                long oid = names.resolve(kind, bytes);
                String schema = QualifiedName.schema(kind, name);
                long namespace = schema == null ? -1 : names.resolve(ObjectKind.NAMESPACE,
                        schema.getBytes(StandardCharsets.UTF_8));
                boolean hiddenSchema = namespace > 0 && !ObjectKind.NAMESPACE.visible(visible, namespace);
                if (hiddenSchema && (kind == ObjectKind.TYPE || serverMajor <= 15 && kind != ObjectKind.OPERATOR)) {
                    return Optional.of(CatalogRefusals.absentObject(ObjectKind.NAMESPACE.sqlState(),
                            ObjectKind.NAMESPACE.absentByName(schema, 0), literal.position()));
                }
                if (oid == 0) {
                    return Optional.empty();
                }
                if (!kind.visible(visible, oid)) {
                    return Optional.of(CatalogRefusals.absentObject(kind.sqlState(), kind.absentByName(name, oid),
                            literal.position()));
                }
            }
        }
        return Optional.empty();
    }
}
