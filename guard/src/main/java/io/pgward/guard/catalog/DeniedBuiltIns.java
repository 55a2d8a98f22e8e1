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
    private static final Set<String> NAMES = Set.of("ts_stat", "ts_rewrite", "currtid2", "loread", "set_config",
            "pg_sequence_last_value", "pg_input_is_valid", "pg_input_error_info", "obj_description",
            "col_description", "shobj_description", "pg_relation_size", "pg_total_relation_size", "pg_table_size",
            "pg_indexes_size", "pg_database_size", "pg_tablespace_size", "pg_tablespace_location",
            "pg_relation_filenode", "pg_relation_filepath", "pg_filenode_relation", "pg_partition_tree",
            "pg_partition_ancestors", "pg_partition_root", "pg_relation_is_updatable", "pg_column_is_updatable",
            "pg_describe_object", "pg_identify_object", "pg_identify_object_as_address", "pg_terminate_backend",
            "pg_cancel_backend", "pg_stat_file");
    private static final List<String> PREFIXES = List.of("lo_", "pg_read_", "pg_ls_", "pg_stat_get_", "pg_get_",
            "dblink", "has_", "to_reg");
    private static final String SUFFIX = "_is_visible";

    private DeniedBuiltIns() {
    }

    static boolean denied(String name) {
        return NAMES.contains(name) || FAMILIES.stream().anyMatch(name::startsWith)
                || PREFIXES.stream().anyMatch(name::startsWith) || name.endsWith(SUFFIX);
    }
}
