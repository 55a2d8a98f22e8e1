package io.pgward.arango;

import java.util.List;
import java.util.OptionalLong;

/**
 * How a statement ended, after its rows went to a {@link RowSink}.
 *
 * @param commandTag   for the client's CommandComplete: {@code SELECT n}, or for a raw write that returned no
 *                     rows {@code INSERT 0 n}, {@code UPDATE n} or {@code DELETE n} with n its writes
 * @param rowCount     rows sent to the sink
 * @param affectedRows for raw execution, ArangoDB's {@code writesExecuted}; empty on the read-only path
 * @param warnings     ArangoDB's warnings, {@code "<code>: <message>"}, for NoticeResponses
 */
public record AqlCompletion(String commandTag, long rowCount, OptionalLong affectedRows, List<String> warnings) {

    public AqlCompletion {
        warnings = List.copyOf(warnings);
    }
}
