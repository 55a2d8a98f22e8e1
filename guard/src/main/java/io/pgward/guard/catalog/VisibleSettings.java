package io.pgward.guard.catalog;

import java.util.Set;

/**
 * The settings a login with a table selection sees in pg_settings (design section 3.4): what drivers and tools read
 * to talk to the server (pgjdbc's max_index_keys and standard_conforming_strings, psql's {@code \dconfig} of these,
 * DBeaver's and Metabase's version and encoding probes), and nothing that locates files or hosts
 * (data_directory, config_file, hba_file, ident_file, log_directory, port, listen_addresses,
 * unix_socket_directories, ...), names other roles, or describes the server's configuration beyond the session.
 * Names are as pg_settings spells them (case matters); a name a server version lacks matches nothing.
 */
final class VisibleSettings {

    static final Set<String> NAMES = Set.of(
            "server_version", "server_version_num", "server_encoding", "client_encoding", "DateStyle",
            "IntervalStyle", "TimeZone", "timezone_abbreviations", "integer_datetimes", "standard_conforming_strings",
            "escape_string_warning", "backslash_quote", "search_path", "transaction_read_only",
            "default_transaction_read_only", "transaction_isolation", "default_transaction_isolation",
            "transaction_deferrable", "default_transaction_deferrable", "max_identifier_length", "max_index_keys",
            "max_function_args", "block_size", "lc_collate", "lc_ctype", "lc_messages", "lc_monetary", "lc_numeric",
            "lc_time", "extra_float_digits", "application_name", "is_superuser", "bytea_output",
            "client_min_messages", "statement_timeout", "lock_timeout", "idle_in_transaction_session_timeout",
            "default_text_search_config", "array_nulls", "xmlbinary", "xmloption", "quote_all_identifiers",
            "row_security", "in_hot_standby");

    private VisibleSettings() {
    }
}
