package io.pgward.guard.policy;

import io.pgward.guard.catalog.CatalogVerdict;

/** The refusals of the pipeline itself, as opposed to those of a layer. */
public final class PipelineRefusals {

    /** PostgreSQL's insufficient_privilege: what the guard's rules refuse. */
    public static final String INSUFFICIENT_PRIVILEGE = "42501";
    /** PostgreSQL's internal_error: the guard could not decide, so it refuses (fail closed). */
    public static final String INTERNAL_ERROR = "XX000";

    private PipelineRefusals() {
    }

    static CatalogVerdict.Refuse searchPathUnknown() {
        return new CatalogVerdict.Refuse("search-path", INTERNAL_ERROR, "pgward refused this statement: the "
                + "session's search_path is not known, so the statement cannot be checked", 0);
    }

    static CatalogVerdict.Refuse catalogUnavailable(String why) {
        return new CatalogVerdict.Refuse("catalog-unavailable", INTERNAL_ERROR, "pgward refused this statement: the "
                + "catalog check is not available (" + why + ")", 0);
    }

    /** A query that follows a change of search_path in the same text resolves names with a path nobody has seen. */
    public static CatalogVerdict.Refuse readsAfterSearchPathChange() {
        return new CatalogVerdict.Refuse("search-path", INSUFFICIENT_PRIVILEGE, "pgward refused this statement: a "
                + "query that follows a change of search_path in the same message cannot be checked; send it on its "
                + "own", 0);
    }

    /** The fast-path call names a function by OID only; nothing shows what it does. */
    public static CatalogVerdict.Refuse functionCall(String login) {
        return new CatalogVerdict.Refuse("function-call", INSUFFICIENT_PRIVILEGE, "pgward refused this statement: "
                + "fast-path function calls are not allowed for the read-only login \"" + login + "\"", 0);
    }
}
