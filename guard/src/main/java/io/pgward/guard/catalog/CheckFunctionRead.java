package io.pgward.guard.catalog;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * What a check reads of its function: the function's stored body and what it depends on, in one statement
 * ({@link #QUERY}); and, when the check's {@link SharedRows.Generation} does not have them yet, the rows of the
 * relations, column types and view definitions it depends on, which the rules read next, in one more ({@link #ROWS}).
 * One statement for those rows rather than one per kind: each statement of a round trip has a fixed cost of tens of
 * microseconds in PostgreSQL. Not in the function's statement: reading them took about a third of PostgreSQL's work
 * for the check's round trip (0.35 ms of 1.9 after a pause, bench/results/never-seen-2026-12-05-shared-rows.md), and
 * the new shapes of a BI tool read the same few tables.
 *
 * <p>Each row of {@link #ROWS} is of one kind, named in its last column; the columns before it are that kind's, as
 * text (the rows of a UNION share their types), then NULLs. A relation or type row has the columns of
 * {@link CatalogReader#RELATION_COLUMNS} or {@link CatalogReader#TYPE_COLUMNS}, which pgjdbc reads from text as from
 * their own types.
 *
 * @param body the function's stored body, null when larger than {@link CheckTransaction#MAX_TREE_CHARS}
 * @param dependencies each object the body depends on, as (catalog OID, object OID); empty when the body is null
 */
record CheckFunctionRead(String body, List<long[]> dependencies) {

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

    /** The query, run with the safe search_path: the function's body and its dependencies, in one row. */
    static final String QUERY = "SELECT CASE WHEN pg_catalog.octet_length(p.prosqlbody::pg_catalog.text) <= "
            + CheckTransaction.MAX_TREE_CHARS + " THEN p.prosqlbody::pg_catalog.text END, "
            + "pg_catalog.array_to_string(ARRAY(SELECT d.refclassid::pg_catalog.text || ':' || "
            + "d.refobjid::pg_catalog.text FROM pg_catalog.pg_depend d "
            + "WHERE d.classid = 'pg_catalog.pg_proc'::pg_catalog.regclass AND d.objid = p.oid), ' ') "
            + "FROM pg_catalog.pg_proc p WHERE " + FUNCTION_ROW;

    /** The relations that the views among the relations $1 read: the rules walk those definitions next. */
    private static final String VIEWS_READ = "SELECT vd.refobjid FROM pg_catalog.pg_depend vd "
            + "JOIN pg_catalog.pg_rewrite vr ON vr.oid = vd.objid "
            + "WHERE vd.classid = 'pg_catalog.pg_rewrite'::pg_catalog.regclass "
            + "AND vd.refclassid = 'pg_catalog.pg_class'::pg_catalog.regclass "
            + "AND vr.rulename OPERATOR(pg_catalog.=) '_RETURN' "
            + "AND vr.ev_class = ANY ($1)";

    /**
     * The rows around the relations $1 and the types $2 that a function depends on, run with the safe search_path:
     * the rows of those relations and of the relations their views read, of the types and of the types of the
     * relations' columns (a join's tree lists every column of the joined relations, its alias variables, so the walk
     * meets their types), and the views' definitions. Built-in types are left to the shared rows, which have them
     * after the first check of a generation: most columns are of built-in types, and each row read costs PostgreSQL
     * tens of microseconds.
     */
    static final String ROWS = rows(RELATION, CatalogReader.RELATION_COLUMNS, CatalogReader.RELATION_FROM
                    + " WHERE c.oid = ANY (ARRAY(SELECT pg_catalog.unnest($1) UNION " + VIEWS_READ + "))")
            + " UNION ALL " + rows(TYPE, CatalogReader.TYPE_COLUMNS, CatalogReader.TYPE_FROM
                    + " WHERE t.oid OPERATOR(pg_catalog.>=) " + SharedRows.FIRST_NORMAL_OID + " AND t.oid = ANY (ARRAY("
                    + "SELECT pg_catalog.unnest($2) UNION "
                    + "SELECT a.atttypid FROM pg_catalog.pg_attribute a "
                    + "WHERE a.attrelid = ANY ($1) "
                    + "AND a.attnum > 0 AND NOT a.attisdropped))")
            + " UNION ALL " + rows(VIEW, List.of("w.ev_class", "w.ev_action"), " FROM pg_catalog.pg_rewrite w "
                    + "WHERE w.ev_class = ANY ($1) "
                    + "AND w.rulename OPERATOR(pg_catalog.=) '_RETURN'");

    /** The SELECT of one kind's rows: its columns as text, NULLs up to {@link #WIDTH}, then the kind. */
    private static String rows(char kind, List<String> columns, String from) {
        return Stream.of(columns.stream().map(c -> "(" + c + ")::pg_catalog.text"),
                        Collections.nCopies(WIDTH - columns.size(), "NULL::pg_catalog.text").stream(),
                        Stream.of("'" + kind + "'::pg_catalog.text"))
                .flatMap(s -> s).collect(Collectors.joining(", ", "SELECT ", from));
    }

    /** Reads the row of {@link #QUERY}. */
    static CheckFunctionRead read(ResultSet rs) throws SQLException {
        if (!rs.next()) {
            throw new SQLException("the check function is missing");
        }
        String body = rs.getString(1);
        return new CheckFunctionRead(body, body == null ? List.of() : dependencies(rs.getString(2)));
    }

    /**
     * Has {@code catalog} keep the rows around the relations and types the function depends on (see {@link #ROWS}),
     * reading them unless {@code shared} has them: those that it reads go there too.
     */
    void readRowsAround(SharedRows.Generation shared, CatalogReader catalog) throws SQLException {
        // pg_depend has a row for each column of a relation the function reads: each relation once.
        Set<Long> relations = new LinkedHashSet<>();
        Set<Long> types = new LinkedHashSet<>();
        for (long[] dependency : dependencies) {
            long oid = dependency[1];
            if (dependency[0] == CatalogReader.PG_CLASS && !shared.rowsAround.contains(oid)) {
                relations.add(oid);
            } else if (dependency[0] == CatalogReader.PG_TYPE && !SharedRows.builtIn(oid)
                    && !shared.types.containsKey(oid)) {
                types.add(oid);
            }
        }
        if (relations.isEmpty() && types.isEmpty()) {
            return;
        }
        catalog.read(PreparedReads.Read.rowsAround(relations, types), rs -> {
            switch (rs.getString(KIND_COLUMN).charAt(0)) {
                case RELATION -> catalog.rememberRelation(rs);
                case TYPE -> catalog.rememberType(rs);
                case VIEW -> catalog.rememberViewDefinition(rs);
                default -> throw new SQLException("a row of an unknown kind: " + rs.getString(KIND_COLUMN));
            }
        });
        shared.rowsReadAround(relations);
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
