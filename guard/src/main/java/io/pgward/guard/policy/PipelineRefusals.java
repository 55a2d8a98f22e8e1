package io.pgward.guard.policy;

import io.pgward.guard.SqlStates;
import io.pgward.guard.Verdict;

/** The refusals of the pipeline itself, as opposed to those of a layer. */
public final class PipelineRefusals {

    private PipelineRefusals() {
    }

    static Verdict.Refuse searchPathUnknown() {
        return new Verdict.Refuse(SqlStates.INTERNAL_ERROR, Verdict.Refuse.PREFIX
                + "the session's search_path is not known, so the statement cannot be checked", 0, "search-path");
    }

    static Verdict.Refuse catalogUnavailable(String why) {
        return new Verdict.Refuse(SqlStates.INTERNAL_ERROR, Verdict.Refuse.PREFIX
                + "the catalog check is not available (" + why + ")", 0, "catalog-unavailable");
    }

    /** A query that follows a change of search_path in the same text resolves names with a path nobody has seen. */
    public static Verdict.Refuse readsAfterSearchPathChange() {
        return new Verdict.Refuse(SqlStates.INSUFFICIENT_PRIVILEGE, Verdict.Refuse.PREFIX
                + "a query that follows a change of search_path in the same message cannot be checked; "
                + "send it on its own", 0, "search-path");
    }

    /** The fast-path call names a function by OID only; nothing shows what it does. */
    public static Verdict.Refuse functionCall(String login) {
        return new Verdict.Refuse(SqlStates.INSUFFICIENT_PRIVILEGE, Verdict.Refuse.PREFIX
                + "fast-path function calls are not allowed for the read-only login \"" + login + "\"", 0,
                "function-call");
    }

    /**
     * A statement whose regtype parameters may run only if every name bound to them is resolved first
     * ({@link Verdict.Allow#typeNameParameters}), on a path that does not follow its Binds (a text that changes
     * search_path, a statement pgward runs itself).
     */
    static Verdict.Refuse typeNamesNotFollowed() {
        return new Verdict.Refuse(SqlStates.INSUFFICIENT_PRIVILEGE, Verdict.Refuse.PREFIX
                + "a regtype parameter is allowed only in a query sent on its own, without a change of search_path",
                0, io.pgward.guard.catalog.CatalogRefusals.TYPE_NAME_PARAMETER);
    }
}
