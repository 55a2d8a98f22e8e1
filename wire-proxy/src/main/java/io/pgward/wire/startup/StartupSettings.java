package io.pgward.wire.startup;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The settings a StartupMessage asks for, read exactly as PostgreSQL reads them, so that pgward judges the
 * settings the server would apply and no spelling slips past.
 *
 * <p>The rules followed (PostgreSQL 17: {@code ProcessStartupPacket} in backend_startup.c,
 * {@code process_startup_options} in postinit.c, {@code pg_split_opts}, {@code process_postgres_switches} in
 * postgres.c, {@code ParseLongOption} in guc.c):
 * <ul>
 *   <li>{@code user}, {@code database}, {@code options} and {@code replication} are special only in exactly that
 *       spelling; {@code _pq_.*} keys are protocol options. Every other key is a setting, whose name the server
 *       looks up case-insensitively ({@code Statement_Timeout} is {@code statement_timeout}).</li>
 *   <li>{@code options} is split into words at white space (space, tab, newline, vertical tab, form feed,
 *       carriage return); a backslash makes the next character part of the word, so {@code a\ b} is one word
 *       {@code a b} and a backslash at the very end disappears.</li>
 *   <li>The words are read as the server's command line with getopt and the switches
 *       {@code B:bC:c:D:d:EeFf:h:ijk:lN:nOPp:r:S:sTt:v:W:-:}: {@code -c name=value}, {@code -cname=value} and
 *       {@code --name=value} are settings, switches may be grouped ({@code -Fc name=value}), an argument is the
 *       rest of the word or the next word. In a setting's name every {@code -} is read as {@code _}; the value is
 *       everything after the first {@code =}. Any other switch, a word that is not a switch, or a setting
 *       without {@code =} is reported as {@link #otherSwitches()}: the server either refuses it (FATAL) or
 *       applies something that is not a client setting ({@code -e} sets DateStyle, {@code -f} disables plan
 *       types, ...).</li>
 *   <li>The server applies the settings from {@code options} first, then the packet's keys in packet order;
 *       the last assignment of a setting wins. {@link #settings()} keeps that order.</li>
 * </ul>
 *
 * @param settings every assignment, in the order the server applies them
 * @param otherSwitches what {@code options} holds besides settings, as written there; empty when nothing
 */
record StartupSettings(List<Setting> settings, List<String> otherSwitches) {

    /** Switch letters of the server's command line; a letter followed by ':' takes an argument. */
    private static final String SWITCHES = "B:bC:c:D:d:EeFf:h:ijk:lN:nOPp:r:S:sTt:v:W:-:";

    /** Startup keys that are not settings, matched case-sensitively as the server matches them. */
    private static final List<String> SPECIAL_KEYS = List.of("user", "database", "options", "replication");

    StartupSettings {
        settings = List.copyOf(settings);
        otherSwitches = List.copyOf(otherSwitches);
    }

    /**
     * One assignment.
     *
     * @param name as written (in options with '-' read as '_')
     * @param value the value as the server receives it
     * @param source {@code options} or {@code startup packet}, for messages
     */
    record Setting(String name, String value, String source) {
        /** The name as the server compares it: PostgreSQL folds only ASCII letters ({@code guc_name_compare}). */
        String key() {
            return asciiLowerCase(name);
        }

        @Override
        public String toString() {
            return name + "=" + value;
        }
    }

    /** Reads the packet's pairs in the order they were sent. */
    static StartupSettings read(List<Map.Entry<String, String>> pairs) {
        List<Setting> fromOptions = new ArrayList<>();
        List<Setting> fromPacket = new ArrayList<>();
        List<String> other = new ArrayList<>();
        String options = null;
        for (Map.Entry<String, String> pair : pairs) {
            String name = pair.getKey();
            if (name.equals("options")) {
                options = pair.getValue();  // the server keeps the last one
            } else if (!SPECIAL_KEYS.contains(name) && !name.startsWith("_pq_.")) {
                fromPacket.add(new Setting(name, pair.getValue(), "startup packet"));
            }
        }
        if (options != null) {
            readSwitches(splitOptions(options), fromOptions, other);
        }
        List<Setting> all = new ArrayList<>(fromOptions);
        all.addAll(fromPacket);
        return new StartupSettings(all, other);
    }

    /** {@code pg_split_opts}: words at white space, a backslash takes the next character literally. */
    static List<String> splitOptions(String options) {
        List<String> words = new ArrayList<>();
        int i = 0;
        int n = options.length();
        while (i < n) {
            while (i < n && isSpace(options.charAt(i))) {
                i++;
            }
            if (i == n) {
                break;
            }
            StringBuilder word = new StringBuilder();
            boolean escaped = false;
            while (i < n) {
                char c = options.charAt(i);
                if (isSpace(c) && !escaped) {
                    break;
                }
                if (!escaped && c == '\\') {
                    escaped = true;
                } else {
                    escaped = false;
                    word.append(c);
                }
                i++;
            }
            words.add(word.toString());
        }
        return words;
    }

    /** {@code process_postgres_switches} over the words, as getopt reads them. */
    private static void readSwitches(List<String> words, List<Setting> settings, List<String> other) {
        int at = 0;
        while (at < words.size()) {
            String word = words.get(at++);
            if (word.equals("--")) {
                // getopt's end of switches; the server refuses any word after it
                other.addAll(words.subList(at, words.size()));
                return;
            }
            if (word.length() < 2 || word.charAt(0) != '-') {
                // Not a switch: the server fails the connection ("invalid command-line argument").
                other.add(word);
                continue;
            }
            for (int i = 1; i < word.length(); i++) {
                char flag = word.charAt(i);
                int spec = flag == ':' ? -1 : SWITCHES.indexOf(flag);
                if (spec < 0) {
                    other.add("-" + flag);
                    break;
                }
                boolean takesArgument = spec + 1 < SWITCHES.length() && SWITCHES.charAt(spec + 1) == ':';
                if (!takesArgument) {
                    other.add("-" + flag);
                    continue;
                }
                String argument;
                if (i + 1 < word.length()) {
                    argument = word.substring(i + 1);
                } else if (at < words.size()) {
                    argument = words.get(at++);
                } else {
                    other.add("-" + flag);  // the server: "option requires an argument"
                    break;
                }
                if (flag == 'c' || flag == '-') {
                    int equals = argument.indexOf('=');
                    if (equals < 0) {
                        other.add((flag == 'c' ? "-c " : "--") + argument);  // "requires a value"
                    } else {
                        settings.add(new Setting(argument.substring(0, equals).replace('-', '_'),
                                argument.substring(equals + 1), "options"));
                    }
                } else {
                    other.add("-" + flag + " " + argument);
                }
                break;
            }
        }
    }

    /** C's isspace in the server's (C) locale. */
    private static boolean isSpace(char c) {
        return c == ' ' || c == '\t' || c == '\n' || c == 0x0b || c == '\f' || c == '\r';
    }

    static String asciiLowerCase(String name) {
        StringBuilder lower = new StringBuilder(name.length());
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            lower.append(c >= 'A' && c <= 'Z' ? (char) (c + ('a' - 'A')) : c);
        }
        return lower.toString();
    }
}
