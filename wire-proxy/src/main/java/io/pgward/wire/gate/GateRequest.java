package io.pgward.wire.gate;

import java.util.Arrays;
import java.util.List;

/**
 * One statement text for the gate to judge.
 *
 * @param kind how it arrived
 * @param sql the text as the client sent it (for {@link Kind#FUNCTION_CALL}, a description of the call)
 * @param parameterTypes type OIDs from Parse, 0 where unspecified; empty otherwise
 * @param login the pgward login of the session
 * @param database the database of the session
 * @param standardConformingStrings the session's standard_conforming_strings, which decides how the server reads
 *                                  backslashes in '...' strings
 * @param searchPath the session's search_path as the server last showed it, for gates that {@link
 *                   StatementGate#wantsSearchPath() want it}; null otherwise
 */
public record GateRequest(Kind kind, String sql, int[] parameterTypes, String login, String database,
                          boolean standardConformingStrings, String searchPath) {

    public GateRequest(Kind kind, String sql, int[] parameterTypes, String login, String database,
                       boolean standardConformingStrings) {
        this(kind, sql, parameterTypes, login, database, standardConformingStrings, null);
    }

    public enum Kind { SIMPLE_QUERY, PARSE, FUNCTION_CALL }

    /** The parameter types a Parse gave, as the catalog check takes them; empty for any other message. */
    List<Integer> parameterTypeList() {
        return kind == Kind.PARSE ? Arrays.stream(parameterTypes).boxed().toList() : List.of();
    }
}
