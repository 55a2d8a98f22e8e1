package io.pgward.wire.admin;

import io.pgward.wire.local.LocalDatabaseException;
import io.pgward.wire.protocol.SqlState;
import java.util.Locale;

/**
 * One admin console command, read as PgBouncer reads its console's: words separated by blanks, in any case, with
 * an optional trailing semicolon; one command per query.
 */
sealed interface AdminCommand {

    record Show(String what) implements AdminCommand {
    }

    record Reload() implements AdminCommand {
    }

    record Pause() implements AdminCommand {
    }

    record Resume() implements AdminCommand {
    }

    record Kill(long client) implements AdminCommand {
    }

    /**
     * A session setting a driver sends on its own ({@code SET application_name = ...}, as pgjdbc does): nothing on
     * the console depends on one, so it is answered and ignored, as PostgreSQL's SET would be answered.
     */
    record Set() implements AdminCommand {
    }

    String HINT = "SHOW HELP lists the commands.";

    /** @throws LocalDatabaseException 42601 for anything else */
    static AdminCommand parse(String sql) {
        String text = sql.strip();
        while (text.endsWith(";")) {
            text = text.substring(0, text.length() - 1).stripTrailing();
        }
        if (text.contains(";")) {
            throw invalid("the admin console runs one command per query");
        }
        String[] words = text.isEmpty() ? new String[0] : text.split("\\s+");
        String first = words.length == 0 ? "" : words[0].toUpperCase(Locale.ROOT);
        return switch (first) {
            case "SHOW" -> {
                if (words.length != 2) {
                    throw invalid("SHOW takes one word: SHOW CLIENTS, SERVERS, POOLS, STATS, LOGINS or HELP");
                }
                yield new Show(words[1].toUpperCase(Locale.ROOT));
            }
            case "SET" -> new Set();
            case "RELOAD" -> alone(words, new Reload());
            case "PAUSE" -> alone(words, new Pause());
            case "RESUME" -> alone(words, new Resume());
            case "KILL" -> {
                if (words.length != 2) {
                    throw invalid("KILL takes the id of one client, as SHOW CLIENTS lists it");
                }
                yield new Kill(clientId(words[1]));
            }
            default -> throw invalid("invalid command \"" + (text.length() > 80 ? text.substring(0, 80) + "..."
                    : text) + "\"");
        };
    }

    private static AdminCommand alone(String[] words, AdminCommand command) {
        if (words.length != 1) {
            throw invalid(words[0].toUpperCase(Locale.ROOT) + " takes no arguments");
        }
        return command;
    }

    /** {@code 12}, or {@code c12} as log lines name the connection. */
    private static long clientId(String word) {
        String digits = word.startsWith("c") || word.startsWith("C") ? word.substring(1) : word;
        try {
            return Long.parseLong(digits);
        } catch (NumberFormatException e) {
            throw invalid("KILL takes the id of one client, as SHOW CLIENTS lists it, not \"" + word + "\"");
        }
    }

    private static LocalDatabaseException invalid(String message) {
        return new LocalDatabaseException(SqlState.SYNTAX_ERROR, message, null, HINT, "refuse", "admin-command");
    }
}
