package io.pgward.guard.selection;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/** The default {@link RiskyDomains}: reads pg_depend for the functions and operators of domain CHECKs. */
final class CatalogRiskyDomains {

    private static final String SQL = """
            SELECT DISTINCT pg_catalog.format_type(k.contypid, NULL)
            FROM pg_catalog.pg_constraint k
            JOIN pg_catalog.pg_depend d ON d.classid = 'pg_catalog.pg_constraint'::pg_catalog.regclass
                                       AND d.objid = k.oid
            LEFT JOIN pg_catalog.pg_proc p ON d.refclassid = 'pg_catalog.pg_proc'::pg_catalog.regclass
                                          AND p.oid = d.refobjid
            LEFT JOIN pg_catalog.pg_operator o ON d.refclassid = 'pg_catalog.pg_operator'::pg_catalog.regclass
                                              AND o.oid = d.refobjid
            LEFT JOIN pg_catalog.pg_proc op ON op.oid = o.oprcode
            WHERE k.contype = 'c' AND k.contypid <> 0
              AND (p.pronamespace <> 'pg_catalog'::pg_catalog.regnamespace OR p.provolatile = 'v'
                   OR o.oprnamespace <> 'pg_catalog'::pg_catalog.regnamespace OR op.provolatile = 'v')
            ORDER BY 1""";

    private CatalogRiskyDomains() {
    }

    static List<String> find(Connection connection) throws SQLException {
        List<String> domains = new ArrayList<>();
        try (PreparedStatement statement = connection.prepareStatement(SQL);
             ResultSet rows = statement.executeQuery()) {
            while (rows.next()) {
                domains.add(rows.getString(1));
            }
        }
        return domains;
    }
}
