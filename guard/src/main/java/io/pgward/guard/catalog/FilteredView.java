package io.pgward.guard.catalog;

import java.util.List;
import java.util.Set;

/**
 * The system views and information_schema views a login with a table selection reads filtered (design sections 3.2
 * and 3.4), and the columns each is filtered on. These views read pg_class and friends inside their own definitions,
 * so replacing the catalogs they read cannot filter them: the view itself is replaced by a filter subquery over the
 * names or OIDs it exposes ({@link ViewFilters}), and L3 accepts the view only inside that subquery
 * ({@link ViewFilterProof}). Every other view stays refused by the relation rule.
 *
 * <p>Key kinds, each a condition on the view's own columns:
 * <ul>
 *   <li>{@link Kind#SETTING}: the setting's name is on {@link VisibleSettings#NAMES}.</li>
 *   <li>{@link Kind#RELATION_OID}: an OID column names a visible user relation (statistics of built-in catalogs
 *       are not shown: their counters follow every login's DDL).</li>
 *   <li>{@link Kind#RELATION}: a (schema, name) pair of columns names a visible user relation.</li>
 *   <li>{@link Kind#SCHEMA}: a schema-name column names a visible schema.</li>
 *   <li>{@link Kind#CONSTRAINT}: a (schema, name) pair names a visible constraint that no hidden one shares.</li>
 *   <li>{@link Kind#TYPE}: a (schema, name) pair names a visible user type or a built-in domain
 *       (information_schema's).</li>
 *   <li>{@link Kind#BUILT_IN_SCHEMA}: a schema-name column names pg_catalog or information_schema (the routines a
 *       login sees are the built-in ones).</li>
 *   <li>{@link Kind#POLICY}: a (schema, table, policy) triple names a policy of a visible table whose expressions
 *       read visible objects only and whose roles are visible ({@code VisibleNames#policies}).</li>
 *   <li>{@link Kind#OWN_BACKEND}: a process-id column is {@code pg_backend_pid()}, evaluated where the statement runs:
 *       the login's own backend, never another session's (design 3.4).</li>
 *   <li>{@link Kind#RELATION_OID_OR_NULL}: an OID column is NULL or names a visible user relation (pg_locks: the
 *       own session locks relations it never named, such as the tables under a selected view).</li>
 *   <li>{@link Kind#NULL}: a column is NULL (pg_locks' {@code objid}: object locks name objects by OID alone).</li>
 *   <li>{@link Kind#NO_ROWS}: a name column equals nothing (server infrastructure such as replication slots).</li>
 * </ul>
 * A view with no key is served whole: only built-in data, the same for every login (time zones).
 * Columns that would show what the keys cannot vouch for are served as NULL ({@link #masked}): a view's definition
 * (it may read a hidden relation), a setting's source file and line, pgward's own address and certificate toward the
 * server. The own-backend key is a call, not the process id as a constant, so one cached rewrite serves every session.
 */
enum FilteredView {
    PG_SETTINGS("pg_catalog", "pg_settings", Set.of("sourcefile", "sourceline"), Key.setting("name")),
    PG_STATS("pg_catalog", "pg_stats", Set.of(), Key.relation("schemaname", "tablename")),
    PG_STAT_ALL_TABLES("pg_catalog", "pg_stat_all_tables", Set.of(), Key.relationOid("relid")),
    PG_STAT_USER_TABLES("pg_catalog", "pg_stat_user_tables", Set.of(), Key.relationOid("relid")),
    PG_STAT_XACT_USER_TABLES("pg_catalog", "pg_stat_xact_user_tables", Set.of(), Key.relationOid("relid")),
    PG_STATIO_ALL_TABLES("pg_catalog", "pg_statio_all_tables", Set.of(), Key.relationOid("relid")),
    PG_STATIO_USER_TABLES("pg_catalog", "pg_statio_user_tables", Set.of(), Key.relationOid("relid")),
    PG_STAT_ALL_INDEXES("pg_catalog", "pg_stat_all_indexes", Set.of(), Key.relationOid("indexrelid")),
    PG_STAT_USER_INDEXES("pg_catalog", "pg_stat_user_indexes", Set.of(), Key.relationOid("indexrelid")),
    PG_STATIO_ALL_INDEXES("pg_catalog", "pg_statio_all_indexes", Set.of(), Key.relationOid("indexrelid")),
    PG_STATIO_USER_INDEXES("pg_catalog", "pg_statio_user_indexes", Set.of(), Key.relationOid("indexrelid")),
    PG_TABLES("pg_catalog", "pg_tables", Set.of(), Key.relation("schemaname", "tablename")),
    PG_VIEWS("pg_catalog", "pg_views", Set.of("definition"), Key.relation("schemaname", "viewname")),
    PG_MATVIEWS("pg_catalog", "pg_matviews", Set.of("definition"), Key.relation("schemaname", "matviewname")),
    /** The indexes of a visible table are visible (VisibleSets): the table's name is the key. */
    PG_INDEXES("pg_catalog", "pg_indexes", Set.of(), Key.relation("schemaname", "tablename")),
    PG_SEQUENCES("pg_catalog", "pg_sequences", Set.of(), Key.relation("schemaname", "sequencename")),
    IS_TABLES("information_schema", "tables", Set.of(), Key.relation("table_schema", "table_name")),
    IS_COLUMNS("information_schema", "columns", Set.of(), Key.relation("table_schema", "table_name")),
    IS_VIEWS("information_schema", "views", Set.of("view_definition"), Key.relation("table_schema", "table_name")),
    IS_SCHEMATA("information_schema", "schemata", Set.of(), Key.schema("schema_name")),
    IS_TABLE_CONSTRAINTS("information_schema", "table_constraints", Set.of(),
            Key.relation("table_schema", "table_name"), Key.constraint("constraint_schema", "constraint_name")),
    IS_KEY_COLUMN_USAGE("information_schema", "key_column_usage", Set.of(),
            Key.relation("table_schema", "table_name"), Key.constraint("constraint_schema", "constraint_name")),
    IS_CONSTRAINT_COLUMN_USAGE("information_schema", "constraint_column_usage", Set.of(),
            Key.relation("table_schema", "table_name"), Key.constraint("constraint_schema", "constraint_name")),
    IS_CONSTRAINT_TABLE_USAGE("information_schema", "constraint_table_usage", Set.of(),
            Key.relation("table_schema", "table_name"), Key.constraint("constraint_schema", "constraint_name")),
    IS_REFERENTIAL_CONSTRAINTS("information_schema", "referential_constraints", Set.of(),
            Key.constraint("constraint_schema", "constraint_name"),
            Key.constraint("unique_constraint_schema", "unique_constraint_name")),
    IS_CHECK_CONSTRAINTS("information_schema", "check_constraints", Set.of(),
            Key.constraint("constraint_schema", "constraint_name")),
    IS_SEQUENCES("information_schema", "sequences", Set.of(), Key.relation("sequence_schema", "sequence_name")),
    IS_VIEW_TABLE_USAGE("information_schema", "view_table_usage", Set.of(),
            Key.relation("view_schema", "view_name"), Key.relation("table_schema", "table_name")),
    IS_VIEW_COLUMN_USAGE("information_schema", "view_column_usage", Set.of(),
            Key.relation("view_schema", "view_name"), Key.relation("table_schema", "table_name")),
    IS_DOMAINS("information_schema", "domains", Set.of(), Key.type("domain_schema", "domain_name")),
    IS_DOMAIN_CONSTRAINTS("information_schema", "domain_constraints", Set.of(),
            Key.type("domain_schema", "domain_name"), Key.constraint("constraint_schema", "constraint_name")),
    IS_COLUMN_DOMAIN_USAGE("information_schema", "column_domain_usage", Set.of(),
            Key.type("domain_schema", "domain_name"), Key.relation("table_schema", "table_name")),
    /** User functions are hidden (design 3.4): the built-in ones only. */
    IS_ROUTINES("information_schema", "routines", Set.of(), Key.builtInSchema("specific_schema"),
            Key.builtInSchema("routine_schema")),
    IS_PARAMETERS("information_schema", "parameters", Set.of(), Key.builtInSchema("specific_schema")),
    /**
     * Its roles and deparsed expressions are shown as they are: the key admits only policies whose roles are visible
     * and whose expressions read visible relations and types alone (pg_policy's filter shows the same trees).
     */
    PG_POLICIES("pg_catalog", "pg_policies", Set.of(), Key.policy("schemaname", "tablename", "policyname")),
    /**
     * The own session's row. Its client address is pgward's toward the server, which locates the proxy, not the
     * login: NULL, as are the host settings.
     */
    PG_STAT_ACTIVITY("pg_catalog", "pg_stat_activity", Set.of("client_addr", "client_hostname", "client_port"),
            Key.ownBackend("pid")),
    /** The own session's row; the certificate fields describe pgward's connection to the server: NULL. */
    PG_STAT_SSL("pg_catalog", "pg_stat_ssl", Set.of("client_dn", "client_serial", "issuer_dn"),
            Key.ownBackend("pid")),
    /** The own session's row; the principal is pgward's toward the server, not the login's: NULL. */
    PG_STAT_GSSAPI("pg_catalog", "pg_stat_gssapi", Set.of("principal"), Key.ownBackend("pid")),
    /**
     * The progress views: the own session's row only. A backend reports progress of the command it runs, so the only
     * row a read-only login can ever see is its own COPY's (a COPY of a query reading the view, relid 0); other
     * sessions' VACUUM, CREATE INDEX or CLUSTER would show which hidden tables they touch and when.
     */
    PG_STAT_PROGRESS_ANALYZE("pg_catalog", "pg_stat_progress_analyze", Set.of(), Key.ownBackend("pid")),
    PG_STAT_PROGRESS_BASEBACKUP("pg_catalog", "pg_stat_progress_basebackup", Set.of(), Key.ownBackend("pid")),
    PG_STAT_PROGRESS_CLUSTER("pg_catalog", "pg_stat_progress_cluster", Set.of(), Key.ownBackend("pid")),
    PG_STAT_PROGRESS_COPY("pg_catalog", "pg_stat_progress_copy", Set.of(), Key.ownBackend("pid")),
    PG_STAT_PROGRESS_CREATE_INDEX("pg_catalog", "pg_stat_progress_create_index", Set.of(), Key.ownBackend("pid")),
    PG_STAT_PROGRESS_VACUUM("pg_catalog", "pg_stat_progress_vacuum", Set.of(), Key.ownBackend("pid")),
    /**
     * The own session's locks on nothing or on visible user relations: a lock on a hidden table read through a
     * selected view, on a built-in catalog (whose locks follow what the statement touched) or on an object by OID
     * (classid/objid) is not shown. Advisory locks are denied to a read-only login anyway.
     */
    PG_LOCKS("pg_catalog", "pg_locks", Set.of(), Key.ownBackend("pid"), Key.relationOidOrNull("relation"),
            Key.isNull("objid")),
    /** Server infrastructure: no slot is shown. */
    PG_REPLICATION_SLOTS("pg_catalog", "pg_replication_slots", Set.of(), Key.noRows("slot_name")),
    /** Built-in data read from the server's time zone files, the same for every login. */
    PG_TIMEZONE_NAMES("pg_catalog", "pg_timezone_names", Set.of()),
    PG_TIMEZONE_ABBREVS("pg_catalog", "pg_timezone_abbrevs", Set.of());

    enum Kind {
        SETTING, RELATION_OID, RELATION, SCHEMA, CONSTRAINT, TYPE, BUILT_IN_SCHEMA, POLICY, OWN_BACKEND,
        RELATION_OID_OR_NULL, NULL, NO_ROWS
    }

    /**
     * One key.
     *
     * @param schemaColumn the schema column of a (schema, name) pair or a policy's triple; null for the other kinds
     * @param tableColumn the table column of a policy's triple; null for the other kinds
     * @param column the filtered column (the name column of a pair, the policy's name)
     */
    record Key(Kind kind, String schemaColumn, String tableColumn, String column) {
        Key(Kind kind, String schemaColumn, String column) {
            this(kind, schemaColumn, null, column);
        }

        static Key policy(String schemaColumn, String tableColumn, String column) {
            return new Key(Kind.POLICY, schemaColumn, tableColumn, column);
        }

        static Key setting(String column) {
            return new Key(Kind.SETTING, null, column);
        }

        static Key relationOid(String column) {
            return new Key(Kind.RELATION_OID, null, column);
        }

        static Key relation(String schemaColumn, String column) {
            return new Key(Kind.RELATION, schemaColumn, column);
        }

        static Key schema(String column) {
            return new Key(Kind.SCHEMA, null, column);
        }

        static Key constraint(String schemaColumn, String column) {
            return new Key(Kind.CONSTRAINT, schemaColumn, column);
        }

        static Key type(String schemaColumn, String column) {
            return new Key(Kind.TYPE, schemaColumn, column);
        }

        static Key builtInSchema(String column) {
            return new Key(Kind.BUILT_IN_SCHEMA, null, column);
        }

        static Key ownBackend(String column) {
            return new Key(Kind.OWN_BACKEND, null, column);
        }

        static Key relationOidOrNull(String column) {
            return new Key(Kind.RELATION_OID_OR_NULL, null, column);
        }

        static Key isNull(String column) {
            return new Key(Kind.NULL, null, column);
        }

        static Key noRows(String column) {
            return new Key(Kind.NO_ROWS, null, column);
        }
    }

    private final String schema;
    private final String relation;
    private final Set<String> masked;
    private final List<Key> keys;

    FilteredView(String schema, String relation, Set<String> masked, Key... keys) {
        this.schema = schema;
        this.relation = relation;
        this.masked = masked;
        this.keys = List.of(keys);
    }

    String schema() {
        return schema;
    }

    String relation() {
        return relation;
    }

    /** Columns served as NULL of their type. */
    Set<String> masked() {
        return masked;
    }

    List<Key> keys() {
        return keys;
    }
}
