package io.pgward.guard.selection;

import io.pgward.guard.selection.VisibleCatalog.Catalog;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.EnumMap;
import java.util.Map;

/**
 * Reads the {@link VisibleCatalog} of a resolved selection in one catalog query, as whatever role the connection
 * is (the login's backend role on the control pool). Started from {@code bench/catalog/filtered/visible_sets.sql};
 * the rules, each following the design's section 3.1 and 3.4:
 *
 * <ul>
 *   <li><b>Relations</b>: the selection; the sequences and TOAST tables that depend on it (pg_depend, class on
 *       class, deptype {@code a} for serial, {@code i} for identity and TOAST; only relkinds {@code S} and
 *       {@code t}, so partitions, which depend on their parent with {@code a}, are not pulled in); the indexes of all
 *       of these; and the relation of every visible standalone composite type (relkind {@code c}), whose columns
 *       drivers read from pg_attribute. The relation behind another table's row type used as a column type stays
 *       hidden: the type is visible, the table is not.</li>
 *   <li><b>Types</b>: the row types of the visible relations and the types of the selected relations' columns, closed
 *       over array element and array type, domain base type, range subtype and multirange (both ways) and the
 *       attribute types of composites. The closure stops at built-ins, whose closure is built in.</li>
 *   <li><b>Schemas</b>: pg_catalog and information_schema by name, and the schemas of visible relations, user types
 *       and user collations; never pg_toast (section 3.4), though a visible table's TOAST table is listed.</li>
 *   <li><b>Constraints</b>: those on visible relations whose referenced relation, if any, is visible (a foreign key to
 *       a hidden relation is not shown), and those of visible domains. PostgreSQL 18's NOT NULL rows of tables and
 *       17's of domains follow from {@code conrelid} and {@code contypid} without a version test.</li>
 *   <li><b>Defaults, rules, triggers</b>: those of visible relations; a trigger only when its function is built in
 *       and its constraint, if any, is visible (a user trigger function is hidden, section 3.4), and its WHEN
 *       condition depends on no user object but visible relations and types (its definition would print a user
 *       function's name).</li>
 *   <li><b>Collations</b>: user collations of visible relations' columns, visible types and ranges.</li>
 *   <li><b>Rule actions and policy expressions</b> shown: those of visible relations whose recorded
 *       dependencies (pg_depend, which lists every relation a stored tree reads, in subqueries too) are all visible
 *       relations. The others name hidden relations and their columns. A policy expression that depends on any
 *       other user object (a user function, whose name its deparsed text prints) is withheld too, unless it is a
 *       visible type.</li>
 *   <li><b>Roles</b>: the owners of visible relations, user types, schemas and collations and of the current
 *       database (the one row of pg_database a login sees), and the current role.</li>
 * </ul>
 *
 * <p>The query names no column that differs between PostgreSQL 14 and 18 ({@code pg_range.rngmultitypid} came in
 * 14), so one text serves every supported version; the value records the version for the filters built on it.
 */
final class VisibleSets {

    static final String SQL = """
            WITH RECURSIVE
            sel AS (SELECT c.oid FROM pg_catalog.pg_class c WHERE c.oid = ANY (?::pg_catalog.oid[])),
            tab AS (
                SELECT oid FROM sel
                UNION SELECT d.objid FROM pg_catalog.pg_depend d
                      JOIN pg_catalog.pg_class c ON c.oid = d.objid AND c.relkind IN ('S', 't')
                      WHERE d.refclassid = 'pg_catalog.pg_class'::pg_catalog.regclass
                        AND d.refobjid IN (SELECT oid FROM sel)
                        AND d.classid = 'pg_catalog.pg_class'::pg_catalog.regclass AND d.deptype IN ('a', 'i')
                UNION SELECT c.reltoastrelid FROM pg_catalog.pg_class c
                      WHERE c.oid IN (SELECT oid FROM sel) AND c.reltoastrelid <> 0
            ),
            rel AS (
                SELECT oid FROM tab
                UNION SELECT i.indexrelid FROM pg_catalog.pg_index i WHERE i.indrelid IN (SELECT oid FROM tab)
            ),
            typ AS (
                SELECT c.reltype AS oid FROM pg_catalog.pg_class c WHERE c.oid IN (SELECT oid FROM rel) AND c.reltype <> 0
                UNION SELECT a.atttypid FROM pg_catalog.pg_attribute a
                      WHERE a.attrelid IN (SELECT oid FROM sel) AND a.attnum > 0 AND NOT a.attisdropped
                UNION SELECT v.x FROM typ JOIN pg_catalog.pg_type t ON t.oid = typ.oid AND typ.oid >= 16384
                      CROSS JOIN LATERAL (
                          SELECT t.typelem UNION ALL SELECT t.typarray UNION ALL SELECT t.typbasetype
                          UNION ALL SELECT r.rngsubtype FROM pg_catalog.pg_range r WHERE r.rngtypid = t.oid
                          UNION ALL SELECT r.rngmultitypid FROM pg_catalog.pg_range r WHERE r.rngtypid = t.oid
                          UNION ALL SELECT r.rngtypid FROM pg_catalog.pg_range r WHERE r.rngmultitypid = t.oid
                          UNION ALL SELECT a.atttypid FROM pg_catalog.pg_attribute a
                                    WHERE t.typtype = 'c' AND a.attrelid = t.typrelid AND a.attnum > 0
                                      AND NOT a.attisdropped) v(x)
                      WHERE v.x <> 0
            ),
            utyp AS (SELECT oid FROM typ WHERE oid >= 16384),
            allrel AS (
                SELECT oid FROM rel
                UNION SELECT t.typrelid FROM pg_catalog.pg_type t JOIN pg_catalog.pg_class c ON c.oid = t.typrelid
                      WHERE t.oid IN (SELECT oid FROM utyp) AND c.relkind = 'c'
            ),
            coll AS (
                SELECT a.attcollation AS oid FROM pg_catalog.pg_attribute a
                      WHERE a.attrelid IN (SELECT oid FROM allrel) AND a.attcollation >= 16384
                UNION SELECT t.typcollation FROM pg_catalog.pg_type t
                      WHERE t.oid IN (SELECT oid FROM utyp) AND t.typcollation >= 16384
                UNION SELECT r.rngcollation FROM pg_catalog.pg_range r
                      WHERE r.rngtypid IN (SELECT oid FROM utyp) AND r.rngcollation >= 16384
            ),
            nsp AS (
                SELECT oid FROM (
                    SELECT n.oid FROM pg_catalog.pg_namespace n WHERE n.nspname IN ('pg_catalog', 'information_schema')
                    UNION SELECT c.relnamespace FROM pg_catalog.pg_class c WHERE c.oid IN (SELECT oid FROM allrel)
                    UNION SELECT t.typnamespace FROM pg_catalog.pg_type t WHERE t.oid IN (SELECT oid FROM utyp)
                    UNION SELECT l.collnamespace FROM pg_catalog.pg_collation l WHERE l.oid IN (SELECT oid FROM coll)
                ) n WHERE oid <> 'pg_toast'::pg_catalog.regnamespace
            ),
            con AS (
                SELECT k.oid FROM pg_catalog.pg_constraint k
                WHERE (k.conrelid IN (SELECT oid FROM rel) AND (k.confrelid = 0 OR k.confrelid IN (SELECT oid FROM rel)))
                   OR k.contypid IN (SELECT oid FROM utyp)
            ),
            me AS (SELECT r.oid FROM pg_catalog.pg_roles r WHERE r.rolname = CURRENT_USER)
            SELECT pg_catalog.current_setting('server_version_num')::pg_catalog.int4,
                   (SELECT oid::pg_catalog.int8 FROM me),
                   ARRAY(SELECT oid::pg_catalog.int8 FROM allrel WHERE oid >= 16384),
                   ARRAY(SELECT oid::pg_catalog.int8 FROM nsp),
                   ARRAY(SELECT oid::pg_catalog.int8 FROM utyp),
                   ARRAY(SELECT oid::pg_catalog.int8 FROM con),
                   ARRAY(SELECT d.oid::pg_catalog.int8 FROM pg_catalog.pg_attrdef d
                         WHERE d.adrelid IN (SELECT oid FROM allrel)),
                   ARRAY(SELECT r.oid::pg_catalog.int8 FROM pg_catalog.pg_rewrite r
                         WHERE r.ev_class IN (SELECT oid FROM allrel)),
                   ARRAY(SELECT g.oid::pg_catalog.int8 FROM pg_catalog.pg_trigger g
                         WHERE g.tgrelid IN (SELECT oid FROM allrel) AND g.tgfoid < 16384
                           AND (g.tgconstraint = 0 OR g.tgconstraint IN (SELECT oid FROM con))
                           AND NOT EXISTS (
                               SELECT FROM pg_catalog.pg_depend d
                               WHERE d.classid = 'pg_catalog.pg_trigger'::pg_catalog.regclass AND d.objid = g.oid
                                 AND d.refobjid >= 16384
                                 AND NOT (d.refclassid = 'pg_catalog.pg_class'::pg_catalog.regclass
                                          AND d.refobjid IN (SELECT oid FROM allrel))
                                 AND NOT (d.refclassid = 'pg_catalog.pg_type'::pg_catalog.regclass
                                          AND d.refobjid IN (SELECT oid FROM utyp))
                                 AND NOT (d.refclassid = 'pg_catalog.pg_constraint'::pg_catalog.regclass
                                          AND d.refobjid IN (SELECT oid FROM con)))),
                   ARRAY(SELECT oid::pg_catalog.int8 FROM coll),
                   ARRAY(SELECT c.relowner::pg_catalog.int8 FROM pg_catalog.pg_class c
                             WHERE c.oid IN (SELECT oid FROM allrel)
                         UNION SELECT t.typowner::pg_catalog.int8 FROM pg_catalog.pg_type t
                             WHERE t.oid IN (SELECT oid FROM utyp)
                         UNION SELECT n.nspowner::pg_catalog.int8 FROM pg_catalog.pg_namespace n
                             WHERE n.oid IN (SELECT oid FROM nsp)
                         UNION SELECT l.collowner::pg_catalog.int8 FROM pg_catalog.pg_collation l
                             WHERE l.oid IN (SELECT oid FROM coll)
                         UNION SELECT d.datdba::pg_catalog.int8 FROM pg_catalog.pg_database d
                             WHERE d.datname = pg_catalog.current_database()
                         UNION SELECT oid::pg_catalog.int8 FROM me),
                   ARRAY(SELECT r.oid::pg_catalog.int8 FROM pg_catalog.pg_rewrite r
                         WHERE r.ev_class IN (SELECT oid FROM allrel) AND NOT EXISTS (
                             SELECT FROM pg_catalog.pg_depend d
                             WHERE d.classid = 'pg_catalog.pg_rewrite'::pg_catalog.regclass AND d.objid = r.oid
                               AND d.refclassid = 'pg_catalog.pg_class'::pg_catalog.regclass
                               AND d.refobjid >= 16384 AND d.refobjid NOT IN (SELECT oid FROM allrel))),
                   ARRAY(SELECT p.oid::pg_catalog.int8 FROM pg_catalog.pg_policy p
                         WHERE p.polrelid IN (SELECT oid FROM allrel) AND NOT EXISTS (
                             SELECT FROM pg_catalog.pg_depend d
                             WHERE d.classid = 'pg_catalog.pg_policy'::pg_catalog.regclass AND d.objid = p.oid
                               AND d.refobjid >= 16384
                               AND NOT (d.refclassid = 'pg_catalog.pg_class'::pg_catalog.regclass
                                        AND d.refobjid IN (SELECT oid FROM allrel))
                               AND NOT (d.refclassid = 'pg_catalog.pg_type'::pg_catalog.regclass
                                        AND d.refobjid IN (SELECT oid FROM utyp))))""";

    private VisibleSets() {
    }

    /** Reads the sets of {@code selected} (pg_class OIDs); an OID that no longer exists is ignored. */
    static VisibleCatalog read(Connection connection, OidSet selected) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(SQL)) {
            statement.setString(1, selected.arrayLiteral());
            try (ResultSet row = statement.executeQuery()) {
                row.next();
                int serverVersionNum = row.getInt(1);
                long sessionRole = row.getLong(2);
                Map<Catalog, OidSet> sets = new EnumMap<>(Catalog.class);
                int column = 3;
                for (Catalog catalog : Catalog.values()) {
                    sets.put(catalog, oids(row.getArray(column++)));
                }
                return VisibleCatalog.of(serverVersionNum, sessionRole, sets);
            }
        }
    }

    private static OidSet oids(Array array) throws SQLException {
        try {
            Long[] values = (Long[]) array.getArray();
            long[] oids = new long[values.length];
            for (int i = 0; i < values.length; i++) {
                oids[i] = values[i];
            }
            return OidSet.of(oids);
        } finally {
            array.free();
        }
    }
}
