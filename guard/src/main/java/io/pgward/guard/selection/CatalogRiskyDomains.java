package io.pgward.guard.selection;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/** The default {@link RiskyDomains}: reads the functions and operators of domain CHECKs from their stored expressions. */
final class CatalogRiskyDomains {

    /**
     * Built-in functions are pinned and have no pg_depend rows, so the stored expression (conbin) is read instead:
     * {@code :funcid} and {@code :opfuncid} name the functions it calls, {@code :opno} its operators.
     */
    private static final String SQL = """
            SELECT pg_catalog.format_type(k.contypid, NULL)
            FROM pg_catalog.pg_constraint k
            WHERE k.contype = 'c' AND k.contypid <> 0
              AND (EXISTS (SELECT FROM regexp_matches(k.conbin::text, ':(?:funcid|opfuncid) (\\d+)', 'g') AS m
                           JOIN pg_catalog.pg_proc p ON p.oid = m[1]::oid
                           WHERE p.pronamespace <> 'pg_catalog'::pg_catalog.regnamespace OR p.provolatile = 'v')
                   OR EXISTS (SELECT FROM regexp_matches(k.conbin::text, ':opno (\\d+)', 'g') AS m
                              JOIN pg_catalog.pg_operator o ON o.oid = m[1]::oid
                              WHERE o.oprnamespace <> 'pg_catalog'::pg_catalog.regnamespace))
            GROUP BY 1
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
