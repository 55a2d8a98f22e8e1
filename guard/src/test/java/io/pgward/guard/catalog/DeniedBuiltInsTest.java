package io.pgward.guard.catalog;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class DeniedBuiltInsTest {

    @ParameterizedTest
    @ValueSource(strings = {"query_to_xml", "query_to_xmlschema", "query_to_xml_and_xmlschema", "table_to_xml",
            "cursor_to_xmlschema", "schema_to_xml_and_xmlschema", "database_to_xml", "ts_stat", "ts_rewrite",
            "currtid2", "loread", "set_config", "pg_sequence_last_value", "pg_input_is_valid", "pg_input_error_info",
            "obj_description", "col_description", "shobj_description", "pg_relation_size", "pg_total_relation_size",
            "pg_table_size", "pg_indexes_size", "pg_database_size", "pg_tablespace_size", "pg_tablespace_location",
            "pg_relation_filenode", "pg_relation_filepath", "pg_filenode_relation", "pg_partition_tree",
            "pg_partition_ancestors", "pg_partition_root", "pg_relation_is_updatable", "pg_column_is_updatable",
            "pg_describe_object", "pg_identify_object", "pg_identify_object_as_address", "pg_terminate_backend",
            "pg_cancel_backend", "lo_get", "pg_read_file", "pg_ls_dir", "pg_stat_file", "pg_stat_get_live_tuples",
            "pg_get_viewdef", "dblink_exec", "has_table_privilege", "to_regclass", "pg_table_is_visible"})
    void deniesTheReferenceList(String name) {
        assertTrue(DeniedBuiltIns.denied(name), name);
    }

    /** The functions behind the system views, which a selection refuses as relations (system_views.sql). */
    @ParameterizedTest
    @ValueSource(strings = {"pg_lock_status", "pg_cursor", "pg_prepared_statement", "pg_prepared_xact",
            "pg_show_all_settings", "pg_show_all_file_settings", "pg_hba_file_rules", "pg_ident_file_mappings",
            "pg_config", "pg_available_extensions", "pg_available_extension_versions", "pg_timezone_names",
            "pg_timezone_abbrevs", "pg_timezone_abbrevs_zone", "pg_timezone_abbrevs_abbrevs",
            "pg_show_replication_origin_status", "pg_mcv_list_items", "pg_sequence_parameters",
            "pg_stat_get_activity", "pg_stat_get_wal_senders", "pg_stat_get_progress_info", "pg_stat_get_io",
            "pg_get_backend_memory_contexts", "pg_get_shmem_allocations", "pg_get_replication_slots",
            "pg_get_wait_events", "pg_get_aios", "pg_get_publication_tables"})
    void deniesTheFunctionsBehindTheSystemViews(String name) {
        assertTrue(DeniedBuiltIns.denied(name), name);
    }

    /** Other sessions by process id: pg_locks and pg_stat_activity show the own backend only. */
    @ParameterizedTest
    @ValueSource(strings = {"pg_blocking_pids", "pg_safe_snapshot_blocking_pids",
            "pg_isolation_test_session_is_blocked"})
    void deniesWhatTellsOfOtherSessions(String name) {
        assertTrue(DeniedBuiltIns.denied(name), name);
    }

    @ParameterizedTest
    @ValueSource(strings = {"now", "count", "pg_backend_pid", "xmlelement", "ts_headline", "to_tsvector", "pg_sleep", "lower",
            "pg_stat_reset", "set_masklen", "row_to_json", "is_visible"})
    void allowsTheRest(String name) {
        assertFalse(DeniedBuiltIns.denied(name), name);
    }
}
