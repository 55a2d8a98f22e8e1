package io.pgward.nl;

/**
 * How {@code pgward.ask} limits the rows of a generated query: {@code SELECT * FROM (<query>) AS pgward_nl LIMIT n}.
 * Wrapping rather than editing the query's own LIMIT works for every query shape (UNION, VALUES, a LIMIT of its
 * own that is larger or a parameter-free expression) and cannot change what the query means, only how many of
 * its rows come back. PostgreSQL keeps the subquery's ORDER BY order for this plain outer SELECT. The newline
 * before the closing parenthesis keeps a trailing {@code --} comment inside the query from swallowing it.
 */
public final class RowLimit {

    private RowLimit() {
    }

    public static String apply(String query, int limit) {
        return "SELECT * FROM (\n" + query + "\n) AS pgward_nl LIMIT " + limit;
    }

    /**
     * The limit for a call: the requested one, or the default; never more than the maximum or the login's row cap.
     *
     * @param requested null when the call named none
     * @throws NlException when the requested limit is not positive
     */
    public static int resolve(Integer requested, NlSettings settings, long loginRowCap) throws NlException {
        long max = Math.min(settings.maxRowLimit(), loginRowCap);
        if (requested == null) {
            return (int) Math.min(settings.defaultRowLimit(), max);
        }
        if (requested < 1) {
            throw new NlException(NlException.INVALID_PARAMETER,
                    "row_limit must be between 1 and " + max + ", was " + requested);
        }
        return (int) Math.min(requested, max);
    }
}
