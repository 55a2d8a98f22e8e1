package io.pgward.guard.catalog;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The catalog rows the rules need, read on the check's connection inside its transaction. Every query names
 * pg_catalog objects with their schema, and the check runs them with {@code search_path = pg_catalog, pg_temp},
 * so objects a user created cannot stand in for the catalog's. The reads by OID are {@link PreparedReads}: the
 * connection must have them prepared.
 */
final class CatalogReader {

    /** pg_class, pg_proc, pg_operator, pg_type: the classid values of pg_depend rows (fixed catalog OIDs). */
    static final long PG_CLASS = 1259;
    static final long PG_PROC = 1255;
    static final long PG_OPERATOR = 2617;
    static final long PG_TYPE = 1247;

    record Relation(long oid, String name, char kind, boolean rowSecurity) {
    }

    record Function(long oid, String schema, String name, String qualifiedName, char kind, char volatility,
                    boolean securityDefiner, boolean hasSettings, String language, boolean ownerIsSuperuser,
                    String source, String sqlBody) {
        boolean builtIn() {
            return schema.equals("pg_catalog") || InformationSchemaFunctions.builtIn(this);
        }
    }

    record Operator(long oid, String schema, String qualifiedName, long function) {
        boolean builtIn() {
            return schema.equals("pg_catalog");
        }
    }

    /**
     * @param builtInIo every input, output, receive and send function of the type is in pg_catalog
     * @param element an array's element type, 0 otherwise
     * @param base a domain's base type, 0 otherwise
     * @param relation the relation whose row type this is, 0 otherwise
     * @param kind pg_type.typtype: b base, c composite, d domain, e enum, m multirange, p pseudo, r range
     */
    record Type(long oid, String name, String schema, String typname, boolean builtInIo, long element, long base,
                long relation, char kind) {

        /** An enum whose input is PostgreSQL's own: a value is one of this type's labels, never another object's name. */
        boolean builtInEnum() {
            return kind == 'e' && builtInIo;
        }
    }

    /** A view's or materialized view's stored query. */
    record Definition(long relation, String tree) {
    }

    private final Connection connection;
    private final SharedRows.Generation shared;
    private final BeforeQuery beforeQuery;
    // Rows already read in this transaction: the catalog cannot change under it in a way the check must see.
    private final Map<Long, Relation> relationRows = new HashMap<>();
    private final Map<Long, Function> functionRows = new HashMap<>();
    private final Map<Long, Operator> operatorRows = new HashMap<>();
    private final Map<Long, Type> typeRows = new HashMap<>();
    private final Map<Long, Definition> definitionRows = new HashMap<>();

    /** Runs before each query this reader sends, e.g. to put the safe search_path in place. */
    @FunctionalInterface
    interface BeforeQuery {
        void run() throws SQLException;
    }

    /**
     * Reads rows from {@code shared} when it has them, and adds those it reads;
     * {@code beforeQuery} runs before every query it sends.
     */
    CatalogReader(Connection connection, SharedRows.Generation shared, BeforeQuery beforeQuery) {
        this.connection = connection;
        this.shared = shared;
        this.beforeQuery = beforeQuery;
    }

    /** The relation rows' columns, read by {@link #rememberRelation}, and the relations they are read from (c). */
    static final List<String> RELATION_COLUMNS = List.of("c.oid",
            "pg_catalog.quote_ident(n.nspname) || '.' || pg_catalog.quote_ident(c.relname)", "c.relkind",
            "c.relrowsecurity");
    static final String RELATION_FROM =
            " FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace";
    /** The relation rows' query without its WHERE clause. */
    static final String RELATION_SELECT = "SELECT " + String.join(", ", RELATION_COLUMNS) + RELATION_FROM;
    private static final RowReader<Relation> RELATION = rs -> new Relation(rs.getLong(1), rs.getString(2),
            rs.getString(3).charAt(0), rs.getBoolean(4));

    /** The type rows' columns, read by {@link #rememberType}, and the types they are read from (t). */
    static final List<String> TYPE_COLUMNS = List.of("t.oid", "pg_catalog.format_type(t.oid, NULL)", "n.nspname",
            "t.typname", """
            NOT EXISTS (SELECT FROM pg_catalog.pg_proc p
                        JOIN pg_catalog.pg_namespace pn ON pn.oid = p.pronamespace
                        WHERE p.oid IN (t.typinput, t.typoutput, t.typreceive, t.typsend)
                          AND pn.nspname OPERATOR(pg_catalog.<>) 'pg_catalog')""",
            "t.typelem", "t.typbasetype", "t.typrelid", "t.typtype");
    static final String TYPE_FROM =
            " FROM pg_catalog.pg_type t JOIN pg_catalog.pg_namespace n ON n.oid = t.typnamespace";
    /** The type rows' query without its WHERE clause. */
    static final String TYPE_SELECT = "SELECT " + String.join(", ", TYPE_COLUMNS) + TYPE_FROM;
    private static final RowReader<Type> TYPE = rs -> new Type(rs.getLong(1), rs.getString(2), rs.getString(3),
            rs.getString(4), rs.getBoolean(5), rs.getLong(6), rs.getLong(7), rs.getLong(8), rs.getString(9).charAt(0));

    Map<Long, Relation> relations(Collection<Long> oids) throws SQLException {
        return lookup(oids, relationRows, shared.relations, PreparedReads.Read.RELATIONS, RELATION);
    }

    /**
     * Keeps the row at the cursor of a read of {@link #RELATION_COLUMNS} the caller ran (as their types or as text),
     * so that it is not read again.
     */
    void rememberRelation(ResultSet rs) throws SQLException {
        keep(rs, relationRows, shared.relations, RELATION);
    }

    /** As {@link #rememberRelation}, for {@link #TYPE_COLUMNS}. */
    void rememberType(ResultSet rs) throws SQLException {
        keep(rs, typeRows, shared.types, TYPE);
    }

    Map<Long, Function> functions(Collection<Long> oids) throws SQLException {
        return lookup(oids, functionRows, shared.functions, PreparedReads.Read.FUNCTIONS, CatalogReader::function);
    }

    /** Every function, in any schema, with one of these names: what a name in a string body may call. */
    List<Function> functionsNamed(Collection<String> names) throws SQLException {
        List<Function> out = new ArrayList<>();
        if (names.isEmpty()) {
            return out;
        }
        beforeQuery.run();
        try (PreparedStatement ps = connection.prepareStatement(FUNCTION_SELECT
                + " WHERE p.proname = ANY (CAST(? AS pg_catalog.text[]))")) {
            ps.setObject(1, textArray(names), Types.OTHER);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(function(rs));
                }
            }
        }
        return out;
    }

    /** The OIDs of the types, in any schema, named {@code names}. */
    List<Long> typesNamed(Collection<String> names) throws SQLException {
        List<Long> out = new ArrayList<>();
        if (names.isEmpty()) {
            return out;
        }
        beforeQuery.run();
        try (PreparedStatement ps = connection.prepareStatement("SELECT t.oid FROM pg_catalog.pg_type t "
                + "WHERE t.typname OPERATOR(pg_catalog.=) ANY (CAST(? AS pg_catalog.name[]))")) {
            ps.setObject(1, textArray(names), Types.OTHER);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(rs.getLong(1));
                }
            }
        }
        return out;
    }

    /** The stored trees of {@code function}'s parameter defaults, or null when it has none. */
    String argumentDefaults(long function) throws SQLException {
        beforeQuery.run();
        try (PreparedStatement ps = connection.prepareStatement("SELECT p.proargdefaults::pg_catalog.text "
                + "FROM pg_catalog.pg_proc p WHERE p.oid OPERATOR(pg_catalog.=) CAST(? AS pg_catalog.oid)")) {
            ps.setLong(1, function);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getString(1) : null;
            }
        }
    }

    /** The subtypes of the ranges and multiranges among {@code types}. */
    List<Long> rangeSubtypes(Collection<Long> types) throws SQLException {
        List<Long> out = new ArrayList<>();
        if (types.isEmpty()) {
            return out;
        }
        beforeQuery.run();
        try (PreparedStatement ps = connection.prepareStatement("SELECT DISTINCT r.rngsubtype "
                + "FROM pg_catalog.pg_range r WHERE r.rngtypid OPERATOR(pg_catalog.=) ANY (CAST(? AS pg_catalog.oid[])) "
                + "OR r.rngmultitypid OPERATOR(pg_catalog.=) ANY (CAST(? AS pg_catalog.oid[]))")) {
            ps.setObject(1, oidArray(types), Types.OTHER);
            ps.setObject(2, oidArray(types), Types.OTHER);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(rs.getLong(1));
                }
            }
        }
        return out;
    }

    /** The types of the columns of {@code relations}, dropped ones left out. */
    List<Long> columnTypes(Collection<Long> relations) throws SQLException {
        List<Long> out = new ArrayList<>();
        if (relations.isEmpty()) {
            return out;
        }
        beforeQuery.run();
        try (PreparedStatement ps = connection.prepareStatement("SELECT DISTINCT a.atttypid "
                + "FROM pg_catalog.pg_attribute a WHERE a.attrelid OPERATOR(pg_catalog.=) ANY (CAST(? AS "
                + "pg_catalog.oid[])) AND a.attnum OPERATOR(pg_catalog.>) 0 AND NOT a.attisdropped")) {
            ps.setObject(1, oidArray(relations), Types.OTHER);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(rs.getLong(1));
                }
            }
        }
        return out;
    }

    /** The argument, OUT parameter and result types of {@code functions}. */
    List<Long> signatureTypes(Collection<Long> functions) throws SQLException {
        List<Long> out = new ArrayList<>();
        if (functions.isEmpty()) {
            return out;
        }
        beforeQuery.run();
        try (PreparedStatement ps = connection.prepareStatement("""
                SELECT DISTINCT t.type
                FROM pg_catalog.pg_proc p,
                     LATERAL pg_catalog.unnest(pg_catalog.array_append(pg_catalog.array_cat(
                         CAST(p.proargtypes AS pg_catalog.oid[]), p.proallargtypes), p.prorettype)) AS t(type)
                WHERE p.oid OPERATOR(pg_catalog.=) ANY (CAST(? AS pg_catalog.oid[]))""")) {
            ps.setObject(1, oidArray(functions), Types.OTHER);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(rs.getLong(1));
                }
            }
        }
        return out;
    }

    static final String FUNCTION_SELECT = """
            SELECT p.oid, n.nspname, p.proname,
                   pg_catalog.quote_ident(n.nspname) || '.' || pg_catalog.quote_ident(p.proname),
                   p.prokind, p.provolatile, p.prosecdef, p.proconfig IS NOT NULL, l.lanname,
                   coalesce(r.rolsuper, true), p.prosrc, p.prosqlbody::pg_catalog.text
            FROM pg_catalog.pg_proc p
            JOIN pg_catalog.pg_namespace n ON n.oid = p.pronamespace
            JOIN pg_catalog.pg_language l ON l.oid = p.prolang
            LEFT JOIN pg_catalog.pg_roles r ON r.oid = p.proowner""";

    private static Function function(ResultSet rs) throws SQLException {
        return new Function(rs.getLong(1), rs.getString(2), rs.getString(3), rs.getString(4),
                rs.getString(5).charAt(0), rs.getString(6).charAt(0), rs.getBoolean(7), rs.getBoolean(8),
                rs.getString(9), rs.getBoolean(10), rs.getString(11), rs.getString(12));
    }

    Map<Long, Operator> operators(Collection<Long> oids) throws SQLException {
        return lookup(oids, operatorRows, shared.operators, PreparedReads.Read.OPERATORS,
                rs -> new Operator(rs.getLong(1), rs.getString(2), rs.getString(3), rs.getLong(4)));
    }

    static final String OPERATOR_SELECT = """
            SELECT o.oid, n.nspname, pg_catalog.quote_ident(n.nspname) || '.' || o.oprname, o.oprcode::pg_catalog.oid
            FROM pg_catalog.pg_operator o JOIN pg_catalog.pg_namespace n ON n.oid = o.oprnamespace""";

    /** The answer of a query of one boolean and no parameters, sent with the safe search_path. */
    boolean answers(String sql) throws SQLException {
        beforeQuery.run();
        try (PreparedStatement ps = connection.prepareStatement(sql); ResultSet rs = ps.executeQuery()) {
            return rs.next() && rs.getBoolean(1);
        }
    }

    /**
     * The views among {@code relations} whose security_barrier option is on. PostgreSQL itself reads the stored
     * text as a boolean, so every spelling it accepted when the option was set (true, on, yes, 1, t, ...) counts.
     */
    Set<Long> securityBarrierViews(Collection<Long> relations) throws SQLException {
        return oidsWhere(relations, """
                SELECT c.oid FROM pg_catalog.pg_class c WHERE c.oid = ANY (CAST(%s AS pg_catalog.oid[]))
                  AND EXISTS (SELECT FROM pg_catalog.pg_options_to_table(c.reloptions) o
                              WHERE o.option_name OPERATOR(pg_catalog.=) 'security_barrier'
                                AND CAST(o.option_value AS pg_catalog.bool))""");
    }

    /** The functions among {@code functions} marked LEAKPROOF (pg_proc.proleakproof). */
    Set<Long> leakproofFunctions(Collection<Long> functions) throws SQLException {
        return oidsWhere(functions, """
                SELECT p.oid FROM pg_catalog.pg_proc p WHERE p.oid = ANY (CAST(%s AS pg_catalog.oid[]))
                  AND p.proleakproof""");
    }

    /** The OIDs {@code query} returns for {@code oids}, written into it as an array literal (numbers only). */
    private Set<Long> oidsWhere(Collection<Long> oids, String query) throws SQLException {
        Set<Long> out = new HashSet<>();
        if (!oids.isEmpty()) {
            read(query.formatted(oids.stream().map(String::valueOf).collect(Collectors.joining(",", "'{", "}'"))),
                    rs -> out.add(rs.getLong(1)));
        }
        return out;
    }

    /** Whether an operator with one of these names exists outside pg_catalog. */
    boolean operatorOutsideCatalogNamed(Collection<String> names) throws SQLException {
        if (names.isEmpty()) {
            return false;
        }
        beforeQuery.run();
        try (PreparedStatement ps = connection.prepareStatement("""
                SELECT EXISTS (SELECT FROM pg_catalog.pg_operator o
                               JOIN pg_catalog.pg_namespace n ON n.oid = o.oprnamespace
                               WHERE o.oprname = ANY (CAST(? AS pg_catalog.text[]))
                                 AND n.nspname OPERATOR(pg_catalog.<>) 'pg_catalog')""")) {
            ps.setObject(1, textArray(names), Types.OTHER);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() && rs.getBoolean(1);
            }
        }
    }

    Map<Long, Type> types(Collection<Long> oids) throws SQLException {
        return lookup(oids, typeRows, shared.types, PreparedReads.Read.TYPES, TYPE);
    }

    /** The stored queries of the views and materialized views among {@code relations}. */
    List<Definition> viewDefinitions(Collection<Long> relations) throws SQLException {
        List<Definition> out = new ArrayList<>();
        List<Long> missing = new ArrayList<>();
        for (long oid : relations) {
            Definition known = definitionRows.get(oid);
            if (known == null) {
                known = shared.viewDefinitions.get(oid);
            }
            if (known != null) {
                out.add(known);
            } else {
                missing.add(oid);
            }
        }
        query(PreparedReads.Read.VIEW_DEFINITIONS, missing, rs -> out.add(rememberViewDefinition(rs)));
        out.sort(java.util.Comparator.comparingLong(Definition::relation));
        return out;
    }

    /** Keeps the row at the cursor of a read of view definitions (relation, tree), and returns it. */
    Definition rememberViewDefinition(ResultSet rs) throws SQLException {
        Definition definition = new Definition(rs.getLong(1), rs.getString(2));
        definitionRows.put(definition.relation(), definition);
        shared.keepDefinition(definition);
        return definition;
    }

    /** The USING and WITH CHECK expressions of the row-security policies on {@code relations}. */
    List<Definition> policyExpressions(Collection<Long> relations) throws SQLException {
        List<Definition> out = new ArrayList<>();
        query(PreparedReads.Read.POLICY_EXPRESSIONS, relations, rs -> {
                    for (int column = 2; column <= 3; column++) {
                        if (rs.getString(column) != null) {
                            out.add(new Definition(rs.getLong(1), rs.getString(column)));
                        }
                    }
                });
        return out;
    }

    /**
     * Every CHECK constraint of a domain, as the rows d(name, expression, type). Every check reads them, so they are
     * found through pg_constraint's index on contypid: {@code > 0} is a range of it where {@code <> 0} is not, and
     * the same rows, since an OID is unsigned. A table's constraints (contypid 0) are most of pg_constraint, and
     * scanning them took 4 ms a check on a database of 2,000 tables (PostgreSQL 18 adds a row for each NOT NULL).
     */
    private static final String DOMAIN_CHECK_ROWS = """
            WITH d AS (
                SELECT pg_catalog.quote_ident(n.nspname) || '.' || pg_catalog.quote_ident(t.typname) AS name,
                       c.conbin::pg_catalog.text AS expression, t.oid AS type
                FROM pg_catalog.pg_constraint c
                JOIN pg_catalog.pg_type t ON t.oid = c.contypid
                JOIN pg_catalog.pg_namespace n ON n.oid = t.typnamespace
                WHERE c.contypid OPERATOR(pg_catalog.>) 0 AND c.contype OPERATOR(pg_catalog.=) 'c')
            """;

    /**
     * A digest of all of d's rows, '' for none. Each field is digested alone, so that no two different sets of
     * rows give the same text to digest. SHA-256, not MD5, which a server in FIPS mode refuses to compute.
     */
    private static final String DOMAIN_CHECKS_DIGEST = "SELECT COALESCE(" + sha256("pg_catalog.string_agg("
            + sha256("d.name") + " || " + sha256("d.type::pg_catalog.text") + " || " + sha256("d.expression")
            + ", '' ORDER BY d.type, d.expression)") + ", '') FROM d";

    /**
     * Each domain's CHECK expressions: the domain's qualified name, the expression tree and the domain's OID, with the
     * digest of them all in every row (DOMAIN_CHECKS_UNCHANGED's). The caller sends it together with the statements
     * that open the check's transaction, and reads it with {@link #domainChecks}.
     */
    static final String DOMAIN_CHECKS = DOMAIN_CHECK_ROWS + "SELECT d.name, d.expression, d.type, ("
            + DOMAIN_CHECKS_DIGEST + ") FROM d ORDER BY 1";

    /**
     * Fails with division_by_zero unless the domain CHECK expressions are those of the digest $1, as
     * {@link #DOMAIN_CHECKS} gave it, and PostgreSQL then skips what follows up to the Sync; otherwise takes the
     * session's search_path $2 and standard_conforming_strings $3 (LOCAL), which the statements after it are parsed
     * with. The subquery (OFFSET 0 keeps it a subquery) yields its row, and so divides, before the outer select list
     * sets anything, and its column is selected: the planner drops a subquery's output that nothing reads, and the
     * division with it.
     */
    static final String DOMAIN_CHECKS_UNCHANGED = DOMAIN_CHECK_ROWS + "SELECT unchanged.one, "
            + "pg_catalog.set_config('search_path', $2, true), "
            + "pg_catalog.set_config('standard_conforming_strings', $3, true) "
            + "FROM (SELECT 1 OPERATOR(pg_catalog./) ((" + DOMAIN_CHECKS_DIGEST
            + ") OPERATOR(pg_catalog.=) $1)::pg_catalog.int4 AS one OFFSET 0) AS unchanged";

    /** SQL for the SHA-256 digest of the text {@code expression}, in hex. */
    private static String sha256(String expression) {
        return "pg_catalog.encode(pg_catalog.sha256(pg_catalog.convert_to(" + expression + ", 'UTF8')), 'hex')";
    }

    /** One CHECK constraint of a domain: the domain's OID and name, and the constraint's stored expression. */
    record DomainCheck(long type, String name, String check) {
    }

    /** The domain CHECK expressions and the digest of them all ('' for none). */
    record DomainChecks(List<DomainCheck> checks, String digest) {
        /** None read: the check knows them harmless and has PostgreSQL make sure they are the same. */
        static final DomainChecks KNOWN = new DomainChecks(List.of(), null);
    }

    static DomainChecks domainChecks(ResultSet rs) throws SQLException {
        List<DomainCheck> out = new ArrayList<>();
        String digest = "";
        while (rs.next()) {
            out.add(new DomainCheck(rs.getLong(3), rs.getString(1), rs.getString(2)));
            digest = rs.getString(4);
        }
        return new DomainChecks(out, digest);
    }

    @FunctionalInterface
    interface RowHandler {
        void row(ResultSet rs) throws SQLException;
    }

    private static <T> T keep(ResultSet rs, Map<Long, T> memo, Map<Long, T> shared, RowReader<T> reader)
            throws SQLException {
        long oid = rs.getLong(1);
        T row = reader.read(rs);
        memo.put(oid, row);
        SharedRows.Generation.keep(shared, oid, row);
        return row;
    }

    @FunctionalInterface
    private interface RowReader<T> {
        T read(ResultSet rs) throws SQLException;
    }

    /**
     * The rows of {@code oids} that exist, from this transaction's memo, then the shared rows, then one query for
     * the rest. Its first column is the OID.
     */
    private <T> Map<Long, T> lookup(Collection<Long> oids, Map<Long, T> memo, Map<Long, T> shared,
                                    PreparedReads.Read read, RowReader<T> reader) throws SQLException {
        Map<Long, T> out = new HashMap<>();
        List<Long> missing = new ArrayList<>();
        for (long oid : oids) {
            T row = memo.get(oid);
            if (row == null) {
                row = shared.get(oid);
            }
            if (row != null) {
                out.put(oid, row);
            } else {
                missing.add(oid);
            }
        }
        query(read, missing, rs -> out.put(rs.getLong(1), keep(rs, memo, shared, reader)));
        return out;
    }

    private void query(PreparedReads.Read read, Collection<Long> oids, RowHandler handler) throws SQLException {
        if (!oids.isEmpty()) {
            read(read.execute(oids), handler);
        }
    }

    /** Runs {@code sql}, a prepared read's EXECUTE, and hands {@code handler} each of its rows. */
    void read(String sql, RowHandler handler) throws SQLException {
        beforeQuery.run();
        try (Statement s = connection.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            while (rs.next()) {
                handler.row(rs);
            }
        }
    }

    private static String oidArray(Collection<Long> oids) {
        return "{" + oids.stream().map(String::valueOf).collect(java.util.stream.Collectors.joining(",")) + "}";
    }

    private static String textArray(Collection<String> values) {
        return values.stream().map(v -> '"' + v.replace("\\", "\\\\").replace("\"", "\\\"") + '"')
                .collect(Collectors.joining(",", "{", "}"));
    }
}
