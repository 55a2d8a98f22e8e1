package io.pgward.wire.pool;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The settings a read-only login's policy owns in its backend session. pgward starts the session with them
 * (startup parameters beat role, database and server settings), checks once that the new connection really
 * has them before anyone uses it ({@link #CHECK_QUERY}, after the ParameterStatus reports), and ends any session
 * whose server later reports one of them changed: the server's reports are the truth, not what pgward asked for.
 *
 * <ul>
 *   <li>{@code client_encoding = UTF8}: pgward reads every statement as UTF-8; in client-only encodings (SJIS,
 *       BIG5, GBK, GB18030, UHC, JOHAB) a backslash or quote byte can be the second half of a character, so the
 *       server would split the text elsewhere.</li>
 *   <li>{@code standard_conforming_strings = on}: off changes what a backslash means in {@code '...'}.</li>
 *   <li>{@code default_transaction_read_only = on} (layer L4), and so {@code transaction_read_only} on.</li>
 *   <li>{@code statement_timeout}: the login's timeout, or the lower one the client asked for.</li>
 *   <li>{@code role = none}: the session runs as the configured backend role, not a role it switched to.</li>
 * </ul>
 *
 * @param statementTimeoutMillis the timeout in milliseconds, null when the login has none (then it is not pinned)
 */
public record PinnedSettings(Long statementTimeoutMillis) {

    /** The reported (GUC_REPORT) settings and the only value each may have. */
    private static final Map<String, String> REPORTED = Map.of("client_encoding", "UTF8",
            "standard_conforming_strings", "on", "default_transaction_read_only", "on");

    /**
     * What the new session's settings are, in one row. Qualified names and no relation but pg_settings (whose
     * {@code setting} gives statement_timeout in milliseconds), so nothing the role can create changes it.
     */
    static final String CHECK_QUERY = "SELECT pg_catalog.current_setting('client_encoding'), "
            + "pg_catalog.current_setting('standard_conforming_strings'), "
            + "pg_catalog.current_setting('default_transaction_read_only'), "
            + "pg_catalog.current_setting('transaction_read_only'), "
            + "(SELECT s.setting FROM pg_catalog.pg_settings s WHERE s.name = 'statement_timeout'), "
            + "pg_catalog.current_setting('role')";

    private static final List<String> CHECKED = List.of("client_encoding", "standard_conforming_strings",
            "default_transaction_read_only", "transaction_read_only", "statement_timeout", "role");

    /** The startup parameters that set them, with pgward's canonical names and values. */
    public Map<String, String> startupParameters() {
        Map<String, String> parameters = new LinkedHashMap<>();
        parameters.put("client_encoding", "UTF8");
        parameters.put("standard_conforming_strings", "on");
        parameters.put("default_transaction_read_only", "on");
        if (statementTimeoutMillis != null) {
            parameters.put("statement_timeout", Long.toString(statementTimeoutMillis));
        }
        return parameters;
    }

    /**
     * Checks one ParameterStatus report.
     *
     * @return null when it agrees with the pins, otherwise what is wrong, e.g. {@code client_encoding is SJIS}
     */
    public String violation(String name, String value) {
        String wanted = REPORTED.get(name);
        return wanted == null || wanted.equals(value) ? null : name + " is " + value + " (pgward needs " + wanted + ")";
    }

    /** Checks the row of {@link #CHECK_QUERY}; null when every value is the policy's. */
    String checkViolation(List<String> row) {
        if (row == null || row.size() != CHECKED.size()) {
            return "pgward could not read the session's settings";
        }
        List<String> wanted = List.of("UTF8", "on", "on", "on",
                statementTimeoutMillis == null ? "" : Long.toString(statementTimeoutMillis), "none");
        for (int i = 0; i < CHECKED.size(); i++) {
            String name = CHECKED.get(i);
            if (name.equals("statement_timeout") && statementTimeoutMillis == null) {
                continue;
            }
            if (!wanted.get(i).equals(row.get(i))) {
                return name + " is " + (name.equals("statement_timeout") ? row.get(i) + " ms" : row.get(i))
                        + " (pgward needs " + wanted.get(i) + (name.equals("statement_timeout") ? " ms" : "") + ")";
            }
        }
        return null;
    }
}
