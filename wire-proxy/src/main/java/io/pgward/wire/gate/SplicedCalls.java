package io.pgward.wire.gate;

import io.pgward.guard.Verdict;
import io.pgward.nl.NlException;
import io.pgward.nl.PgwardCall;
import io.pgward.nl.PgwardCallSites;
import io.pgward.nl.PgwardCallSites.CallSite;
import io.pgward.wire.config.PgwardConfig;
import io.pgward.wire.protocol.SqlState;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * A statement that calls {@code pgward.*} functions anywhere a function may stand (not only the whole-statement forms
 * {@link PgwardFunctions} answers itself): pgward computes each call, writes the statement with the rows in place of
 * the calls ({@link CallSplicer}), and that statement is judged like any other by the login's gate ({@link Judge}:
 * every guard layer for a read-only login) before it runs in place of the client's. A Parse whose calls take bound
 * parameters prepares the statement's shape; each Bind then computes the calls with the bound values
 * ({@link #bound}).
 */
final class SplicedCalls {

    /** How the login's gate judges a statement pgward wrote. */
    @FunctionalInterface
    interface Judge {
        CompletionStage<Verdict> judge(GateRequest written);
    }

    private final PgwardFunctions functions;

    SplicedCalls(PgwardFunctions functions) {
        this.functions = functions;
    }

    /**
     * The verdict for a text that calls pgward functions, or null when it calls none (then it is judged as it is).
     */
    CompletionStage<Verdict> check(GateRequest request, PgwardConfig.Login login, Judge judge) {
        if (!PgwardCallSites.mayCall(request.sql()) || request.kind() == GateRequest.Kind.FUNCTION_CALL) {
            return null;
        }
        List<CallSite> sites;
        try {
            sites = PgwardCallSites.find(request.sql(), request.standardConformingStrings());
            if (sites.isEmpty()) {
                return null;
            }
            List<Integer> parameters = callParameters(sites);
            if (!parameters.isEmpty()) {
                if (request.kind() != GateRequest.Kind.PARSE) {
                    throw new NlException("42P02", "there is no parameter $" + parameters.getFirst());
                }
                for (CallSite site : sites) {
                    // The number of arguments is known now: a wrong one is the Parse's error, not each Bind's.
                    PgwardCallSites.call(site, placeholders(site));
                }
                String shape = CallSplicer.shape(request.sql(), sites);
                return judged(request, shape, List.of(), judge, parameters);
            }
        } catch (NlException e) {
            return PgwardFunctions.refusal(e);
        }
        return computed(request, login, sites, Map.of(), judge);
    }

    /**
     * A Bind of a statement whose calls take parameters ({@link Verdict.Rewrite#callParameters}): {@code prepared}
     * is the client's Parse, with the session's search_path now; {@code values} the text bound to each call
     * parameter.
     */
    CompletionStage<Verdict> bound(GateRequest prepared, PgwardConfig.Login login, Map<Integer, String> values,
                                   Judge judge) {
        List<CallSite> sites;
        try {
            sites = PgwardCallSites.find(prepared.sql(), prepared.standardConformingStrings());
        } catch (NlException e) {
            return PgwardFunctions.refusal(e);
        }
        return computed(prepared, login, sites, values, judge);
    }

    private CompletionStage<Verdict> computed(GateRequest request, PgwardConfig.Login login, List<CallSite> sites,
                                              Map<Integer, String> values, Judge judge) {
        List<CallSplicer.Result> results = new ArrayList<>();
        List<String> notices = new ArrayList<>();
        CompletionStage<Verdict.Refuse> refused = CompletableFuture.completedFuture(null);
        // One call after the other: each question is its own round of the language model, and the first error is
        // the statement's.
        for (CallSite site : sites) {
            refused = refused.thenCompose(before -> {
                if (before != null) {
                    return CompletableFuture.completedFuture(before);
                }
                PgwardCall call;
                try {
                    call = withColumns(PgwardCallSites.call(site, values), site);
                } catch (NlException e) {
                    return CompletableFuture.completedFuture(refusal(e));
                }
                return functions.answer(call, login, request).thenApply(verdict -> switch (verdict) {
                    case Verdict.Answer answer -> {
                        notices.addAll(answer.notices());
                        results.add(new CallSplicer.Rows(answer.columns(), answer.rows()));
                        yield null;
                    }
                    case Verdict.Rewrite rewrite -> {
                        notices.addAll(rewrite.notices());
                        results.add(new CallSplicer.Query(rewrite.sql()));
                        yield null;
                    }
                    case Verdict.Refuse refuse -> refuse.at(0);
                    case Verdict.Allow allow -> new Verdict.Refuse(SqlState.INTERNAL_ERROR, "pgward could not "
                            + "compute pgward." + site.function() + "()", 0, "pgward-function");
                });
            });
        }
        return refused.thenCompose(refusal -> {
            if (refusal != null) {
                return CompletableFuture.completedFuture(refusal);
            }
            try {
                return judged(request, CallSplicer.splice(request.sql(), sites, results), notices, judge, List.of());
            } catch (NlException e) {
                return CompletableFuture.completedFuture(refusal(e));
            }
        });
    }

    /**
     * The written statement as the gate judges it, to run in place of the client's. Its refusal carries no position:
     * a position would point into pgward's text, not the client's.
     */
    private static CompletionStage<Verdict> judged(GateRequest request, String written, List<String> notices,
                                                   Judge judge, List<Integer> callParameters) {
        GateRequest writtenRequest = new GateRequest(request.kind(), written, request.parameterTypes(),
                request.login(), request.database(), request.standardConformingStrings(), request.searchPath());
        CompletionStage<Verdict> verdict;
        try {
            verdict = judge.judge(writtenRequest);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
        return verdict.thenApply(v -> switch (v) {
            case Verdict.Allow allow when allow.changesSearchPath() -> new Verdict.Refuse(
                    SqlState.FEATURE_NOT_SUPPORTED, "a statement that calls pgward functions cannot also change "
                    + "search_path: send the change as a statement of its own", 0, "pgward-function");
            case Verdict.Allow allow -> new Verdict.Rewrite(written, notices, true, allow.typeNameParameters(),
                    callParameters);
            case Verdict.Rewrite rewrite -> new Verdict.Rewrite(rewrite.sql(), concat(notices, rewrite.notices()),
                    true, rewrite.typeNameParameters(), callParameters);
            case Verdict.Refuse refuse -> refuse.at(0);
            case Verdict.Answer answer -> new Verdict.Refuse(SqlState.FEATURE_NOT_SUPPORTED, "pgward cannot answer "
                    + "this statement", 0, "pgward-function");
        });
    }

    /**
     * A question whose columns the statement fixes (a column definition list) tells the model those columns, so that
     * the query it writes has them.
     */
    static PgwardCall withColumns(PgwardCall call, CallSite site) {
        if (!(call instanceof PgwardCall.Ask ask) || site.definitions().isEmpty()) {
            return call;
        }
        String columns = String.join(", ", site.definitions().stream()
                .map(d -> d.name() + " " + d.type()).toList());
        return new PgwardCall.Ask(ask.question() + "\n\nThe result must have exactly these columns, in this order: "
                + columns + ".", ask.rowLimit());
    }

    /** A value for each parameter of the call that every argument takes ({@code 1}), to check its arity. */
    private static Map<Integer, String> placeholders(CallSite site) {
        Map<Integer, String> values = new java.util.HashMap<>();
        for (PgwardCallSites.Argument argument : site.arguments()) {
            if (argument instanceof PgwardCallSites.Parameter p) {
                values.put(p.number(), "1");
            }
        }
        return values;
    }

    private static List<Integer> callParameters(List<CallSite> sites) {
        SortedSet<Integer> numbers = new TreeSet<>();
        for (CallSite site : sites) {
            for (PgwardCallSites.Argument argument : site.arguments()) {
                if (argument instanceof PgwardCallSites.Parameter p) {
                    numbers.add(p.number());
                }
            }
        }
        return List.copyOf(numbers);
    }

    private static List<String> concat(List<String> a, List<String> b) {
        List<String> all = new ArrayList<>(a);
        all.addAll(b);
        return all;
    }

    private static Verdict.Refuse refusal(NlException e) {
        return new Verdict.Refuse(e.sqlState(), e.getMessage(), 0, "pgward-function");
    }
}
