package io.pgward.guard.selection;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;

/**
 * Finds domains whose CHECK could run other code or change data while a statement is checked. When any exists,
 * describe samples no values: a sample statement must pass the same risky-domain check as a query.
 *
 * <p>The catalog check supplies the full rule; {@link #CATALOG_DEPENDENCIES} is the default.
 */
@FunctionalInterface
public interface RiskyDomains {

    /**
     * The risky domains of the database {@code connection} is on, as names for a message; empty when none.
     * Runs inside the describe transaction, as the login's role.
     */
    List<String> find(Connection connection) throws SQLException;

    /**
     * Domains with a CHECK constraint that calls a function outside pg_catalog or a volatile one, or uses an
     * operator outside pg_catalog or one whose function is volatile, read from the constraint's stored expression.
     */
    RiskyDomains CATALOG_DEPENDENCIES = CatalogRiskyDomains::find;
}
