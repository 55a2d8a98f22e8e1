package io.pgward.wire.arango;

import io.pgward.guard.Verdict;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The session settings PostgreSQL drivers send on their own right after connecting, answered on an ArangoDB
 * database as PostgreSQL answers them ({@code SET}) instead of being sent to ArangoDB as AQL, where they are a
 * syntax error: pgjdbc sends {@code SET application_name = 'PostgreSQL JDBC Driver'} and
 * {@code SET extra_float_digits = 3} unless told the server is 9.0 or newer. Only settings that change nothing
 * pgward serves are accepted; AQL has no SET statement, so no AQL text is taken for one.
 */
final class ClientSettings {

    private static final Pattern HARMLESS = Pattern.compile(
            "\\s*SET\\s+(SESSION\\s+)?(application_name|extra_float_digits)\\s*(=|\\s+TO\\s+)\\s*"
                    + "('[^'\\\\]{0,63}'|-?[0-9]{1,2})\\s*;?\\s*",
            Pattern.CASE_INSENSITIVE);

    private ClientSettings() {
    }

    /** The answer to {@code sql} when it is such a setting; empty for anything else. */
    static Optional<Verdict.Answer> answer(String sql) {
        if (sql.length() > 200 || !HARMLESS.matcher(sql).matches()) {
            return Optional.empty();
        }
        return Optional.of(new Verdict.Answer(List.of(), List.of(), "SET", List.of()));
    }
}
