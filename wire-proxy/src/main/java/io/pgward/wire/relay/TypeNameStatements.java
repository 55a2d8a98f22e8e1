package io.pgward.wire.relay;

import io.pgward.guard.Verdict;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Which of the session's prepared statements take a type name bound to a regtype parameter
 * ({@link io.pgward.guard.Verdict.Rewrite#typeNameParameters}), so that each Bind of one has its values resolved
 * first. A Bind names its statement only by name, and the server alone knows which statement a name holds now; this
 * follows the messages that change that (Parse, Close, a simple Query, which drops the unnamed statement, DEALLOCATE
 * and DISCARD) as if each ran, and where that may be wrong says so: the Bind is then refused whatever its values,
 * since answering for one statement with another's rule could tell a hidden type's name from an absent one.
 *
 * <p>Within one request (the messages up to a Sync) the assumption holds for every message that runs: after an
 * error the server skips the rest of the request. A name changed in a request that failed is {@link Lookup#UNCERTAIN}
 * until a later request sets it again; a name changed in an earlier request that is still in flight is uncertain
 * until that request's ReadyForQuery arrives.
 */
final class TypeNameStatements {

    /** What a Bind's statement takes, as far as the session knows. */
    sealed interface Lookup {
        /** No parameter of it takes a type name (or it does not exist). */
        Lookup NONE = new None();
        /** The session cannot tell which statement the name holds. */
        Lookup UNCERTAIN = new Uncertain();
    }

    record None() implements Lookup {
    }

    record Uncertain() implements Lookup {
    }

    /** The parameters, by number, whose bound values are resolved before the Bind runs. */
    record Parameters(List<Verdict.TypeNameParameter> parameters) implements Lookup {
    }

    /**
     * A statement whose {@code pgward.*} calls take the values bound to {@code parameters}
     * ({@link Verdict.Rewrite#callParameters}): each Bind computes them and binds the statement pgward writes.
     *
     * @param sql the client's text
     * @param parameterTypes the types its Parse declared
     */
    record Calls(List<Integer> parameters, String sql, int[] parameterTypes) implements Lookup {
    }

    private record Entry(List<Verdict.TypeNameParameter> parameters, Calls calls, long request, boolean uncertain) {

        Entry(List<Verdict.TypeNameParameter> parameters, long request, boolean uncertain) {
            this(parameters, null, request, uncertain);
        }
    }

    private final Map<String, Entry> entries = new HashMap<>();
    /**
     * The names that ever held a statement with type-name parameters: only these can hold one now, so only their
     * Binds are ever uncertain; every other statement's Bind goes on as it always did.
     */
    private final Set<String> typed = new HashSet<>();
    private long retiredThrough;

    /** A Parse of {@code name} was sent in the client request numbered {@code request}. */
    void parsed(String name, String sql, List<Verdict.TypeNameParameter> parameters, long request) {
        parsed(name, sql, parameters, null, request);
    }

    /** As {@link #parsed(String, String, List, long)}, of a statement whose pgward calls take {@code calls}. */
    void parsed(String name, String sql, List<Verdict.TypeNameParameter> parameters, Calls calls, long request) {
        entries.put(name, new Entry(List.copyOf(parameters), calls, request, false));
        if (!parameters.isEmpty() || calls != null) {
            typed.add(name);
        }
        dropsNamedStatements(sql);
    }

    /** A Close of the statement {@code name}: afterwards the name holds nothing. */
    void closed(String name, long request) {
        entries.put(name, new Entry(List.of(), request, false));
    }

    /** A simple Query drops the unnamed statement, and may DEALLOCATE or DISCARD named ones. */
    void queried(String sql, long request) {
        entries.put("", new Entry(List.of(), request, false));
        dropsNamedStatements(sql);
    }

    /**
     * DEALLOCATE and DISCARD remove named statements when they run, which pgward does not follow: any text that
     * mentions either makes every named statement uncertain.
     */
    private void dropsNamedStatements(String sql) {
        String lower = sql.toLowerCase(Locale.ROOT);
        if (lower.contains("deallocate") || lower.contains("discard")) {
            entries.replaceAll((name, entry) -> name.isEmpty() ? entry
                    : new Entry(entry.parameters(), entry.calls(), entry.request(), true));
        }
    }

    /** The client request numbered {@code request} got its ReadyForQuery; {@code errored}: the server failed it. */
    void retired(long request, boolean errored) {
        retiredThrough = Math.max(retiredThrough, request);
        if (errored) {
            entries.replaceAll((name, entry) -> entry.request() == request
                    ? new Entry(entry.parameters(), entry.calls(), entry.request(), true) : entry);
        }
    }

    /** What a Bind of {@code name}, sent in the open request numbered {@code openRequest}, binds. */
    Lookup lookup(String name, long openRequest) {
        Entry entry = entries.get(name);
        if (entry == null || !typed.contains(name)) {
            return Lookup.NONE;
        }
        if (entry.uncertain() || entry.request() != openRequest && entry.request() > retiredThrough) {
            return Lookup.UNCERTAIN;
        }
        if (entry.calls() != null) {
            return entry.calls();
        }
        return entry.parameters().isEmpty() ? Lookup.NONE : new Parameters(entry.parameters());
    }
}
