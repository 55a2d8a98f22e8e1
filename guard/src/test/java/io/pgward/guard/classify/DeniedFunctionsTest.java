package io.pgward.guard.classify;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class DeniedFunctionsTest {

    private static final DeniedFunctions DENIED = DeniedFunctions.load();

    @ParameterizedTest
    @ValueSource(strings = {
        // issue and brief
        "nextval", "setval", "currval", "lastval", "pg_advisory_lock", "pg_advisory_xact_lock_shared",
        "pg_try_advisory_lock", "pg_advisory_unlock_all", "lo_import", "lo_export", "lo_get", "lo_put", "lo_unlink",
        "lo_from_bytea", "loread", "lowrite", "pg_read_file", "pg_read_binary_file", "pg_ls_dir", "pg_ls_waldir",
        "pg_stat_file", "dblink", "dblink_exec", "dblink_connect", "set_config", "pg_terminate_backend",
        "pg_cancel_backend", "pg_reload_conf", "pg_rotate_logfile", "pg_rotate_logfile_old", "txid_current",
        "pg_current_xact_id", "pg_notify", "pg_sleep", "pg_sleep_for", "pg_sleep_until", "pg_logical_emit_message",
        "pg_create_logical_replication_slot", "pg_create_physical_replication_slot", "pg_drop_replication_slot",
        "pg_replication_origin_create", "pg_switch_wal", "pg_promote", "pg_backup_start", "pg_backup_stop",
        "pg_import_system_collations", "query_to_xml", "query_to_xml_and_xmlschema", "query_to_xmlschema",
        "cursor_to_xml", "cursor_to_xmlschema", "table_to_xml", "table_to_xml_and_xmlschema", "schema_to_xml",
        "database_to_xml", "ts_stat", "ts_rewrite", "pg_stat_reset", "pg_stat_reset_shared",
        // the 003 reference
        "currtid2", "pg_sequence_last_value", "pg_input_is_valid", "pg_input_error_info", "obj_description",
        "col_description", "shobj_description", "pg_relation_size", "pg_total_relation_size", "pg_table_size",
        "pg_indexes_size", "pg_database_size", "pg_tablespace_size", "pg_tablespace_location",
        "pg_relation_filenode", "pg_relation_filepath", "pg_filenode_relation", "pg_partition_tree",
        "pg_partition_ancestors", "pg_partition_root", "pg_relation_is_updatable", "pg_column_is_updatable",
        "pg_describe_object", "pg_identify_object", "pg_identify_object_as_address", "pg_stat_get_live_tuples",
        "pg_get_viewdef", "pg_get_expr", "has_table_privilege", "to_regclass", "to_regtype", "pg_table_is_visible",
        "pg_type_is_visible",
    })
    void deniesEveryListedFamily(String name) {
        assertTrue(DENIED.denies(name, ReadOnlyPolicy.CatalogFunctions.DENIED), name);
    }

    @ParameterizedTest
    @ValueSource(strings = {"pg_get_viewdef", "pg_get_expr", "pg_get_userbyid", "has_table_privilege",
        "to_regclass", "pg_table_is_visible", "obj_description", "pg_relation_size", "pg_stat_get_live_tuples",
        "pg_partition_ancestors", "pg_tablespace_location"})
    void leavesTheGatedFunctionsToTheCatalogCheckOfASelection(String name) {
        assertFalse(DENIED.denies(name, ReadOnlyPolicy.CatalogFunctions.GATED), name);
        assertTrue(DENIED.denies(name, ReadOnlyPolicy.CatalogFunctions.DENIED), name);
        assertFalse(DENIED.denies(name, ReadOnlyPolicy.CatalogFunctions.UNRESTRICTED), name);
    }

    @ParameterizedTest
    @ValueSource(strings = {"shobj_description", "pg_relation_filepath", "pg_tablespace_size",
        "pg_describe_object", "pg_database_size", "currtid2"})
    void refusesTheRestOfTheSelectionFamilyOnlyWithASelection(String name) {
        assertTrue(DENIED.denies(name, ReadOnlyPolicy.CatalogFunctions.GATED), name);
        assertTrue(DENIED.denies(name, ReadOnlyPolicy.CatalogFunctions.DENIED), name);
        assertFalse(DENIED.denies(name, ReadOnlyPolicy.CatalogFunctions.UNRESTRICTED), name);
    }

    @ParameterizedTest
    @ValueSource(strings = {"nextval", "txid_current", "pg_read_file", "lo_get", "set_config", "query_to_xml",
        "pg_sleep", "dblink", "pg_sequence_last_value"})
    void refusesTheOtherFamiliesWhateverTheSelection(String name) {
        for (ReadOnlyPolicy.CatalogFunctions mode : ReadOnlyPolicy.CatalogFunctions.values()) {
            assertTrue(DENIED.denies(name, mode), name + " " + mode);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "count", "sum", "now", "version", "current_database", "txid_current_if_assigned",
        "pg_current_xact_id_if_assigned", "pg_current_snapshot", "txid_current_snapshot", "to_tsvector",
        "plainto_tsquery", "to_char", "to_json", "gen_random_uuid", "random", "generate_series", "format",
        "NEXTVAL", "lower", "xpath", "current_setting", "pg_backend_pid", "log", "lpad", "row_to_json",
    })
    void allowsEverythingElse(String name) {
        for (ReadOnlyPolicy.CatalogFunctions mode : ReadOnlyPolicy.CatalogFunctions.values()) {
            assertFalse(DENIED.denies(name, mode), name);
        }
    }

    @Test
    void reportsTheFamily() {
        assertEquals(Optional.of("sequence"), DENIED.familyOf("currval"));
        assertEquals(Optional.of("wal-and-replication"), DENIED.familyOf("pg_create_logical_replication_slot"));
        assertEquals(Optional.of("gated"), DENIED.familyOf("pg_function_is_visible"));
        assertEquals(Optional.of("selection"), DENIED.familyOf("pg_relation_filepath"));
    }

    @Test
    void refusesAMalformedList() {
        assertThrows(IllegalStateException.class, () -> DeniedFunctions.parse(List.of("nextval")));
        assertThrows(IllegalStateException.class, () -> DeniedFunctions.parse(List.of("[x]", "a*b*c")));
        assertThrows(IllegalStateException.class, () -> DeniedFunctions.parse(List.of("[x]", "Upper")));
    }
}
