package io.pgward.guard.classify;

import io.pgward.guard.Verdict;
import java.util.Locale;

/**
 * The rules for settings a read-only login gives when it connects (startup packet keys and {@code options}).
 * They are the SET rules of {@link SessionCommands}, not a second list: a setting may be given at startup exactly
 * when {@code SET name = 'value'} would be allowed in the session.
 */
public final class StartupSettingRules {

    private StartupSettingRules() {
    }

    /**
     * Judges one setting.
     *
     * @param name as the client spelled it; compared as PostgreSQL compares setting names (ASCII case-insensitive)
     * @return {@link Verdict#ALLOW} or a {@link Verdict.Refuse} naming the equivalent SET
     */
    public static Verdict judge(String name, String value, ReadOnlyPolicy policy) {
        StringBuilder key = new StringBuilder(name.length());
        for (char c : name.toCharArray()) {
            key.append(c >= 'A' && c <= 'Z' ? Character.toLowerCase(c) : c);
        }
        return SessionCommands.startupSetting(key.toString(), value, policy);
    }

    /** A time setting's value in milliseconds as PostgreSQL stores it; null when it is not a plain time. */
    public static Long milliseconds(String value) {
        return SettingValues.parseMilliseconds(value);
    }

    /**
     * Whether a {@code client_min_messages} level keeps the server log's LOG and DEBUG messages from a login with a
     * table selection: exactly the levels {@code SET client_min_messages} allows it (info, notice, warning, error,
     * in any case).
     */
    public static boolean isSelectionMessageLevel(String level) {
        return level != null && SessionCommands.SELECTION_MESSAGE_LEVELS.contains(level.toLowerCase(Locale.ROOT));
    }

    /** Whether a client_encoding value names UTF8 (PostgreSQL's {@code clean_encoding_name}: UTF-8, utf8, Unicode, ...). */
    public static boolean isUtf8(String encoding) {
        String key = SettingValues.encodingKey(encoding);
        return key.equals("utf8") || key.equals("unicode");
    }
}
