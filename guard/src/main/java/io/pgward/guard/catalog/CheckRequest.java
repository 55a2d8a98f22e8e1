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
 * @param sql one statement, as the lexer (L1) split it; L2 allowed it, or judges it at the same time for a text of
 *            one query ({@code GuardPipeline.checkAhead}), and its refusal then comes first
 * @param parameterTypes the parameter type OIDs a Parse message gave, in order, as the int32 values on the wire
 *                       (read as unsigned); 0 or a missing entry means "not given": PostgreSQL infers it, and so
 *                       does the check. Empty for a simple Query.
 * @param simpleQuery the statement came in a simple Query, which carries no parameter values: PostgreSQL analyses
 *                    it with no parameters at all, so any {@code $n} in it is an error (42P02, "there is no parameter
 *                    $n"), where a Parse would have the type of each inferred. The verdict depends on it only for a
 *                    statement that uses a {@code $n}.
 */
public record CheckRequest(TableSelection selection, String role, String searchPath,
                           boolean standardConformingStrings, String sql, List<Integer> parameterTypes,
                           boolean simpleQuery) {

    public CheckRequest {
        Objects.requireNonNull(selection, "selection");
        Objects.requireNonNull(searchPath, "searchPath");
        Objects.requireNonNull(sql, "sql");
        parameterTypes = List.copyOf(Objects.requireNonNull(parameterTypes, "parameterTypes"));
        if (simpleQuery && !parameterTypes.isEmpty()) {
            throw new IllegalArgumentException("a simple Query has no parameter types");
        }
    }

    /** A statement of a Parse message, with the parameter types it gave. */
    public CheckRequest(TableSelection selection, String role, String searchPath, boolean standardConformingStrings,
                        String sql, List<Integer> parameterTypes) {
        this(selection, role, searchPath, standardConformingStrings, sql, parameterTypes, false);
    }

    /**
     * A statement with no parameter types given, as from a Parse that gives none: any {@code $n} in it has its type
     * inferred. (Not a simple Query: see {@link #simpleQuery()}.)
     */
    public static CheckRequest of(TableSelection selection, String role, String searchPath, String sql) {
        return new CheckRequest(selection, role, searchPath, true, sql, List.of(), false);
    }

    /** The same request for another statement text (a rewrite of this one). */
    public CheckRequest withSql(String other) {
        return new CheckRequest(selection, role, searchPath, standardConformingStrings, other, parameterTypes,
                simpleQuery);
    }

    long parameterType(int number) {
        return number <= parameterTypes.size() ? Integer.toUnsignedLong(parameterTypes.get(number - 1)) : 0;
    }
}
