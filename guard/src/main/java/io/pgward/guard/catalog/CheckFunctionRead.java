package io.pgward.guard.catalog;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * What a check reads of its function, in one statement: the function's stored body and what it depends on, and the
 * rows of the relations, column types and view definitions it depends on, which the rules read next. One statement
 * rather than one per kind: each statement of a round trip has a fixed cost of tens of microseconds in PostgreSQL,
 * and the function's dependencies are found once instead of once per kind.
 *
 * <p>Each row is of one kind, named in its last column; the columns before it are that kind's, as text (the rows of
 * a UNION share their types), then NULLs. A relation or type row has the columns of
 * {@link CatalogReader#RELATION_COLUMNS} or {@link CatalogReader#TYPE_COLUMNS}, which pgjdbc reads from text as from
 * their own types.
 *
 * @param body the function's stored body, null when larger than {@link CheckTransaction#MAX_TREE_CHARS}
 * @param dependencies each object the body depends on, as (catalog OID, object OID); empty when the body is null
 */
record CheckFunctionRead(String body, List<long[]> dependencies) {

    private static final char FUNCTION = 'f';
    private static final char RELATION = 'r';
    private static final char TYPE = 't';
    private static final char VIEW = 'v';

    /** The columns of the widest kind, and the kind's column after them. */
    private static final int WIDTH = Math.max(CatalogReader.RELATION_COLUMNS.size(),
            CatalogReader.TYPE_COLUMNS.size());
    private static final int KIND_COLUMN = WIDTH + 1;

    /** Selects the check function p. */
    private static final String FUNCTION_ROW = "p.proname OPERATOR(pg_catalog.=) '" + CheckTransaction.CHECK_FUNCTION
            + "' AND p.pronamespace OPERATOR(pg_catalog.=) pg_catalog.pg_my_temp_schema()";

    /** The relations that the views among check_relations read: the rules walk those definitions next. */
    private static final String VIEWS_READ = "SELECT vd.refobjid FROM pg_catalog.pg_depend vd "
            + "JOIN pg_catalog.pg_rewrite vr ON vr.oid = vd.objid "
            + "WHERE vd.classid = 'pg_catalog.pg_rewrite'::pg_catalog.regclass "
            + "AND vd.refclassid = 'pg_catalog.pg_class'::pg_catalog.regclass "
            + "AND vr.rulename OPERATOR(pg_catalog.=) '_RETURN' "
            + "AND vr.ev_class IN (SELECT r.refobjid FROM check_relations r)";

    /**
     * The query, run with the safe search_path. Types: with the types of the columns of the relations the function
     * depends on, since a join's tree lists every column of the joined relations (its alias variables), so the walk
     * meets their types. Built-in types are left to BuiltInRows, which has them after the first check of a
     * generation: most columns are of built-in types, and each row read costs PostgreSQL tens of microseconds.
     */
    static final String QUERY = "WITH check_function AS MATERIALIZED (SELECT p.oid, p.prosqlbody "
            + "FROM pg_catalog.pg_proc p WHERE " + FUNCTION_ROW + "), "
            + "check_depends AS MATERIALIZED (SELECT d.refclassid, d.refobjid FROM pg_catalog.pg_depend d "
            + "WHERE d.classid = 'pg_catalog.pg_proc'::pg_catalog.regclass "
            + "AND d.objid = (SELECT f.oid FROM check_function f)), "
            + "check_relations AS MATERIALIZED (SELECT d.refobjid FROM check_depends d "
            + "WHERE d.refclassid = 'pg_catalog.pg_class'::pg_catalog.regclass) "
            + rows(FUNCTION, List.of("CASE WHEN pg_catalog.octet_length(f.prosqlbody::pg_catalog.text) <= "
                    + CheckTransaction.MAX_TREE_CHARS + " THEN f.prosqlbody END",
                    "pg_catalog.array_to_string(ARRAY(SELECT d.refclassid::pg_catalog.text || ':' || "
                    + "d.refobjid::pg_catalog.text FROM check_depends d), ' ')"), " FROM check_function f")
            + " UNION ALL " + rows(RELATION, CatalogReader.RELATION_COLUMNS, CatalogReader.RELATION_FROM
                    + " WHERE c.oid IN (SELECT r.refobjid FROM check_relations r UNION " + VIEWS_READ + ")")
            + " UNION ALL " + rows(TYPE, CatalogReader.TYPE_COLUMNS, CatalogReader.TYPE_FROM
                    + " WHERE t.oid OPERATOR(pg_catalog.>=) " + BuiltInRows.FIRST_NORMAL_OID + " AND t.oid IN ("
                    + "SELECT d.refobjid FROM check_depends d "
                    + "WHERE d.refclassid = 'pg_catalog.pg_type'::pg_catalog.regclass UNION "
                    + "SELECT a.atttypid FROM pg_catalog.pg_attribute a "
                    + "WHERE a.attrelid IN (SELECT r.refobjid FROM check_relations r) "
                    + "AND a.attnum > 0 AND NOT a.attisdropped)")
            + " UNION ALL " + rows(VIEW, List.of("w.ev_class", "w.ev_action"), " FROM pg_catalog.pg_rewrite w "
                    + "WHERE w.ev_class IN (SELECT r.refobjid FROM check_relations r) "
                    + "AND w.rulename OPERATOR(pg_catalog.=) '_RETURN'");

    /** The SELECT of one kind's rows: its columns as text, NULLs up to {@link #WIDTH}, then the kind. */
    private static String rows(char kind, List<String> columns, String from) {
        return Stream.of(columns.stream().map(c -> "(" + c + ")::pg_catalog.text"),
                        Collections.nCopies(WIDTH - columns.size(), "NULL::pg_catalog.text").stream(),
                        Stream.of("'" + kind + "'::pg_catalog.text"))
                .flatMap(s -> s).collect(Collectors.joining(", ", "SELECT ", from));
    }

    /** Reads the rows of {@link #QUERY} and keeps the catalog rows among them in {@code catalog}. */
    static CheckFunctionRead read(ResultSet rs, CatalogReader catalog) throws SQLException {
        boolean found = false;
        String body = null;
        List<long[]> dependencies = new ArrayList<>();
        while (rs.next()) {
            switch (rs.getString(KIND_COLUMN).charAt(0)) {
                case FUNCTION -> {
                    found = true;
                    body = rs.getString(1);
                    dependencies = dependencies(rs.getString(2));
                }
                case RELATION -> catalog.rememberRelation(rs);
                case TYPE -> catalog.rememberType(rs);
                case VIEW -> catalog.rememberViewDefinition(rs);
                default -> throw new SQLException("a row of an unknown kind: " + rs.getString(KIND_COLUMN));
            }
        }
        if (!found) {
            throw new SQLException("the check function is missing");
        }
        return new CheckFunctionRead(body, body == null ? List.of() : dependencies);
    }

    /** "catalog:object" pairs, separated by spaces. */
    private static List<long[]> dependencies(String pairs) {
        List<long[]> out = new ArrayList<>();
        for (String pair : pairs.split(" ")) {
            if (!pair.isEmpty()) {
                String[] parts = pair.split(":");
                out.add(new long[] {Long.parseLong(parts[0]), Long.parseLong(parts[1])});
            }
        }
        return out;
    }
}
