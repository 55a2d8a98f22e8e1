package io.pgward.guard.catalog;

import java.util.List;
import java.util.Objects;

/**
 * One statement to check, with everything its verdict depends on. The record is also the verdict cache's key:
 * two requests that are equal get the same verdict while the schema does not change.
 *
 * @param selection the login's table selection
 * @param role the backend role the login's statements run as; the check runs as this role
 *             ({@code SET LOCAL ROLE}), or as the control pool's user when null
 * @param searchPath the session's search_path, exactly as PostgreSQL reports it (e.g. {@code "$user", public})
 * @param standardConformingStrings the session's standard_conforming_strings
 * @param sql one statement, as the lexer (L1) split it and L2 allowed it
 * @param parameterTypes the parameter type OIDs a Parse message gave, in order, as the int32 values on the wire
 *                       (read as unsigned); 0 or a missing entry means "not given": PostgreSQL infers it, and so
 *                       does the check. Empty for a simple Query.
 */
public record CheckRequest(TableSelection selection, String role, String searchPath,
                           boolean standardConformingStrings, String sql, List<Integer> parameterTypes) {

    public CheckRequest {
        Objects.requireNonNull(selection, "selection");
        Objects.requireNonNull(searchPath, "searchPath");
        Objects.requireNonNull(sql, "sql");
        parameterTypes = List.copyOf(Objects.requireNonNull(parameterTypes, "parameterTypes"));
    }

    /** A simple-protocol statement: no parameter types. */
    public static CheckRequest of(TableSelection selection, String role, String searchPath, String sql) {
        return new CheckRequest(selection, role, searchPath, true, sql, List.of());
    }

    /** The same request for another statement text (a rewrite of this one). */
    public CheckRequest withSql(String other) {
        return new CheckRequest(selection, role, searchPath, standardConformingStrings, other, parameterTypes);
    }

    long parameterType(int number) {
        return number <= parameterTypes.size() ? Integer.toUnsignedLong(parameterTypes.get(number - 1)) : 0;
    }
}
