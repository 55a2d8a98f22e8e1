package io.pgward.guard.catalog;

import java.util.List;
import java.util.Set;

/**
 * The built-in functions refused while a table selection is set: they reach data outside the statement's
 * relations (by SQL text, by OID or by name) or change how names resolve. The list is the table-selection
 * reference's, matched on the name of a function in pg_catalog. It differs on purpose from L2's
 * {@code denied-functions.txt}, which refuses side effects by name for every read-only login.
 */
final class DeniedBuiltIns {

    /** Whole families: the name itself and every longer name that starts with it (…schema, …_and_xmlschema). */
    private static final List<String> FAMILIES = List.of("query_to_xml", "table_to_xml", "cursor_to_xml",
            "schema_to_xml", "database_to_xml");
    /**
     * Beside the reference's names, the functions that tell of other sessions by process id (which blocks which), as
     * pg_locks and pg_stat_activity show the own backend only.
     */
    private static final Set<String> NAMES = Set.of("ts_stat", "ts_rewrite", "currtid2", "loread", "set_config",
            "pg_sequence_last_value", "pg_input_is_valid", "pg_input_error_info", "obj_description",
            "col_description", "shobj_description", "pg_relation_size", "pg_total_relation_size", "pg_table_size",
            "pg_indexes_size", "pg_database_size", "pg_tablespace_size", "pg_tablespace_location",
            "pg_relation_filenode", "pg_relation_filepath", "pg_filenode_relation", "pg_partition_tree",
            "pg_partition_ancestors", "pg_partition_root", "pg_relation_is_updatable", "pg_column_is_updatable",
            "pg_describe_object", "pg_identify_object", "pg_identify_object_as_address", "pg_terminate_backend",
            "pg_cancel_backend", "pg_stat_file", "pg_blocking_pids", "pg_safe_snapshot_blocking_pids",
            "pg_isolation_test_session_is_blocked");
    /**
     * Beside the reference's names, functions that look up an object they are given by name or OID and answer
     * differently for a hidden one than for one nothing has. pg_has_role and row_security_active are gated
     * ({@link GatedFunctions}); the others tell of what no selection shows: other databases
     * (pg_tablespace_databases, pg_database_collation_actual_version), a relation's statistics entry
     * (pg_stat_have_stats), user functions (the language validators), role names by OID (makeaclitem, whose aclitem
     * prints them), other sessions' temporary schemas (pg_is_other_temp_schema), collations
     * (pg_collation_actual_version), installable extensions (pg_extension_update_paths, as
     * pg_available_extension_versions), a relation's partitioning (satisfies_hash_partition) and the server's
     * address (inet_server_addr, inet_server_port, refused for every read-only login at L2 as SHOW port is) and
     * pgward's own (inet_client_addr, inet_client_port, which pg_stat_activity shows as NULL). Also role names by
     * OID and a role's existence by name (acldefault's aclitems print their roles' names, aclitemin looks names up),
     * type names by OID (oidvectortypes prints a hidden table's row type, where format_type answers as for an absent
     * type), and the input functions that take the type to read their text as by OID: {@code array_in('{16469}',
     * 2205, -1)} is a regclass array, printed with hidden relations' names, beyond what the type rules see (the
     * result's type is anyarray or record).
     */
    private static final Set<String> LOOKUPS = Set.of("pg_has_role", "row_security_active", "pg_tablespace_databases",
            "pg_database_collation_actual_version", "pg_stat_have_stats", "fmgr_c_validator",
            "fmgr_internal_validator", "fmgr_sql_validator", "plpgsql_validator", "makeaclitem",
            "pg_is_other_temp_schema", "pg_collation_actual_version", "pg_extension_update_paths",
            "satisfies_hash_partition", "inet_server_addr", "inet_server_port", "inet_client_addr",
            "inet_client_port", "acldefault", "aclitemin", "array_in", "record_in", "domain_in", "enum_in",
            "range_in", "multirange_in", "oidvectortypes");
    /**
     * The functions the system views are built on (system_views.sql of PostgreSQL 14 to 18). With a selection, a
     * catalog or statistics view outside it is refused like any other relation; its function must be refused too,
     * or {@code SELECT * FROM pg_lock_status()} would show what {@code pg_locks} may not. The pg_stat_get_ and
     * pg_get_ families (pg_stat_activity, the pg_stat and pg_statio views, pg_replication_slots,
     * pg_backend_memory_contexts, pg_shmem_allocations, pg_wait_events, pg_aios, pg_publication_tables) are
     * denied by prefix below.
     */
    private static final Set<String> VIEW_FUNCTIONS = Set.of(
            "pg_lock_status",                   // pg_locks
            "pg_cursor",                        // pg_cursors
            "pg_prepared_statement",            // pg_prepared_statements
            "pg_prepared_xact",                 // pg_prepared_xacts
            "pg_show_all_settings",             // pg_settings
            "pg_show_all_file_settings",        // pg_file_settings
            "pg_hba_file_rules",                // pg_hba_file_rules
            "pg_ident_file_mappings",           // pg_ident_file_mappings (15+)
            "pg_config",                        // pg_config
            "pg_available_extensions",          // pg_available_extensions
            "pg_available_extension_versions",  // pg_available_extension_versions
            "pg_timezone_names",                // pg_timezone_names
            "pg_timezone_abbrevs",              // pg_timezone_abbrevs (14 to 17)
            "pg_timezone_abbrevs_zone",         // pg_timezone_abbrevs (18)
            "pg_timezone_abbrevs_abbrevs",      // pg_timezone_abbrevs (18)
            "pg_show_replication_origin_status", // pg_replication_origin_status
            "pg_mcv_list_items",                // pg_stats_ext
            "pg_sequence_parameters");          // pg_sequences and information_schema.sequences read the same
    /**
     * pg_control_system, _checkpoint, _init and _recovery show the cluster's identity and state (its system
     * identifier, WAL file names, the next transaction id), which no selection shows and no tool reads.
     */
    private static final List<String> PREFIXES = List.of("lo_", "pg_read_", "pg_ls_", "pg_stat_get_", "pg_get_",
            "dblink", "has_", "to_reg", "pg_control_");
    private static final String SUFFIX = "_is_visible";

    private DeniedBuiltIns() {
    }

    static boolean denied(String name) {
        return NAMES.contains(name) || LOOKUPS.contains(name) || VIEW_FUNCTIONS.contains(name) || FAMILIES.stream().anyMatch(name::startsWith)
                || PREFIXES.stream().anyMatch(name::startsWith) || name.endsWith(SUFFIX);
    }
}
