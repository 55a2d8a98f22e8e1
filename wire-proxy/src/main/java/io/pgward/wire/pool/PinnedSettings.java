package io.pgward.wire.pool;

import io.pgward.guard.classify.StartupSettingRules;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The settings a read-only login's policy owns in its backend session. pgward starts the session with them
 * (startup parameters beat role, database and server settings, and become the session's RESET values), checks once
 * that the new connection really has them before anyone uses it ({@link #CHECK_QUERY}, after the ParameterStatus
 * reports), and ends any session whose server later reports one of them changed: the server's reports are the
 * truth, not what pgward asked for.
 *
 * <ul>
 *   <li>{@code client_encoding = UTF8}: pgward reads every statement as UTF-8; in client-only encodings (SJIS,
 *       BIG5, GBK, GB18030, UHC, JOHAB) a backslash or quote byte can be the second half of a character, so the
 *       server would split the text elsewhere.</li>
 *   <li>{@code standard_conforming_strings = on}: off changes what a backslash means in {@code '...'}.</li>
 *   <li>{@code default_transaction_read_only = on} (layer L4), and so {@code transaction_read_only} on.</li>
 *   <li>{@code statement_timeout}: the login's timeout, or the lower one the client asked for.</li>
 *   <li>{@code role = none}: the session runs as the configured backend role, not a role it switched to.</li>
 *   <li>{@code client_min_messages}, only for a login with a table selection: notice, or the higher level the
 *       client asked for; checked to be one a selection may choose (info, notice, warning, error). LOG and DEBUG
 *       messages are the server log's and can show what the selection hides (auto_explain logs a selected view's
 *       plan at LOG, with the hidden tables of its definition), and the guard refusing {@code SET} below notice is
 *       not enough when the backend role, the database or postgresql.conf already sets it lower. A login without a
 *       selection may read everything its role can and may {@code SET} any level, so its sessions keep the server's
 *       level as before; its targets differ from a selection login's in these pins, so the pool never hands one's
 *       connection to the other.</li>
 * </ul>
 *
 * @param statementTimeoutMillis the timeout in milliseconds, null when the login has none (then it is not pinned)
 * @param clientMinMessages the level a selection login's session starts at; null without a selection (then it is
 *                          not pinned)
 */
public record PinnedSettings(Long statementTimeoutMillis, String clientMinMessages) {

    /** The level a selection login's session starts at unless its client asks for a higher one. */
    public static final String SELECTION_MESSAGE_LEVEL = "notice";

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
            + "pg_catalog.current_setting('role'), "
            + "pg_catalog.current_setting('client_min_messages')";

    /** The columns of {@link #CHECK_QUERY}, in order. */
    private static final List<String> CHECKED = List.of("client_encoding", "standard_conforming_strings",
            "default_transaction_read_only", "transaction_read_only", "statement_timeout", "role",
            "client_min_messages");

    /** The checked settings that have one value whatever the login. */
    private static final Map<String, String> FIXED = Map.of("client_encoding", "UTF8",
            "standard_conforming_strings", "on", "default_transaction_read_only", "on", "transaction_read_only", "on",
            "role", "none");

    public PinnedSettings {
        if (clientMinMessages != null && !StartupSettingRules.isSelectionMessageLevel(clientMinMessages)) {
            throw new IllegalArgumentException("client_min_messages must be info, notice, warning or error, was "
                    + clientMinMessages);
        }
    }

    /** The startup parameters that set them, with pgward's canonical names and values. */
    public Map<String, String> startupParameters() {
        Map<String, String> parameters = new LinkedHashMap<>();
        parameters.put("client_encoding", "UTF8");
        parameters.put("standard_conforming_strings", "on");
        parameters.put("default_transaction_read_only", "on");
        if (statementTimeoutMillis != null) {
            parameters.put("statement_timeout", Long.toString(statementTimeoutMillis));
        }
        if (clientMinMessages != null) {
            parameters.put("client_min_messages", clientMinMessages);
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
        for (int i = 0; i < CHECKED.size(); i++) {
            String violation = checkViolation(CHECKED.get(i), row.get(i));
            if (violation != null) {
                return violation;
            }
        }
        return null;
    }

    private String checkViolation(String name, String value) {
        return switch (name) {
            case "statement_timeout" -> statementTimeoutMillis == null
                    || Long.toString(statementTimeoutMillis).equals(value) ? null
                    : name + " is " + value + " ms (pgward needs " + statementTimeoutMillis + " ms)";
            // Any level that keeps LOG and DEBUG out will do: which of them is the client's business.
            case "client_min_messages" -> clientMinMessages == null
                    || StartupSettingRules.isSelectionMessageLevel(value) ? null
                    : name + " is " + value + " (pgward needs " + SELECTION_MESSAGE_LEVEL + " or above)";
            default -> FIXED.get(name).equals(value) ? null
                    : name + " is " + value + " (pgward needs " + FIXED.get(name) + ")";
        };
    }
}
