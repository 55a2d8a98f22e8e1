package io.pgward.guard.policy;

import io.pgward.guard.GuardVerdict;
import io.pgward.guard.SqlStates;

/** The refusals of the pipeline itself, as opposed to those of a layer. */
public final class PipelineRefusals {

    private PipelineRefusals() {
    }

    static GuardVerdict.Refuse searchPathUnknown() {
        return new GuardVerdict.Refuse("search-path", SqlStates.INTERNAL_ERROR, "pgward refused this statement: "
                + "the session's search_path is not known, so the statement cannot be checked", 0);
    }

    static GuardVerdict.Refuse catalogUnavailable(String why) {
        return new GuardVerdict.Refuse("catalog-unavailable", SqlStates.INTERNAL_ERROR, "pgward refused this "
                + "statement: the catalog check is not available (" + why + ")", 0);
    }

    /** A query that follows a change of search_path in the same text resolves names with a path nobody has seen. */
    public static GuardVerdict.Refuse readsAfterSearchPathChange() {
        return new GuardVerdict.Refuse("search-path", SqlStates.INSUFFICIENT_PRIVILEGE, "pgward refused this "
                + "statement: a query that follows a change of search_path in the same message cannot be checked; "
                + "send it on its own", 0);
    }

    /** The fast-path call names a function by OID only; nothing shows what it does. */
    public static GuardVerdict.Refuse functionCall(String login) {
        return new GuardVerdict.Refuse("function-call", SqlStates.INSUFFICIENT_PRIVILEGE, "pgward refused this "
                + "statement: fast-path function calls are not allowed for the read-only login \"" + login + "\"", 0);
    }
}
