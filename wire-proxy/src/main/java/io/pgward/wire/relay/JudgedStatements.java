package io.pgward.wire.relay;

import io.pgward.guard.Verdict;
import io.pgward.guard.policy.GuardPipeline;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What each of the session's prepared statements was judged with, so that a Bind or a Describe of it is judged again
 * where PostgreSQL would analyse it again differently. PostgreSQL keeps a prepared statement's parse tree and
 * analyses it again before it runs or is described when the session's search_path is not the one it was analysed
 * with, or when a schema change invalidated its plan: its names then resolve anew, possibly to relations, functions
 * or types the guard never judged it with. So a statement judged with another search_path, or before the login's
 * verdicts were last dropped ({@code epoch}), is judged again with the session's path before the message goes on.
 *
 * <p>A Bind names its statement only by name, and only the server knows which statement a name holds. This keeps,
 * for each name, every statement it may hold: a Parse adds its statement, and only a request that ends without an
 * error proves what the name holds (a Parse of a name that already holds a statement fails, so a Parse in a request
 * without an error made the name; a Close in one emptied it). The unnamed statement is no exception: a Parse skipped
 * after an error leaves it as it was.
 */
final class JudgedStatements {

    /**
     * A statement as the guard allowed it.
     *
     * @param verdict the Parse's verdict ({@link Verdict.Allow} or {@link Verdict.Rewrite}); null for a statement
     *                pgward prepared in place of an answer of its own, which is never judged again
     * @param copy it is a COPY, whose names PostgreSQL resolves only when its portal runs ({@link CopyPortals})
     */
    record Judged(String sql, int[] parameterTypes, Verdict verdict, String searchPath, long epoch, boolean copy) {

        /**
         * Whether PostgreSQL runs it as it was judged: the same search_path, no verdict dropped since. pgward's own
         * statement in place of an answer holds constants only, and always does.
         */
        boolean holds(String path, long epochNow) {
            return verdict == null || epoch == epochNow && epochNow != GuardPipeline.UNKNOWN_EPOCH
                    && searchPath != null && searchPath.equals(path);
        }

        Judged with(String path, long epochNow) {
            return new Judged(sql, parameterTypes, verdict, path, epochNow, copy);
        }

        /** Running it may change the session's search_path. */
        boolean changesSearchPath() {
            return verdict instanceof Verdict.Allow allow && allow.changesSearchPath();
        }
    }

    /**
     * @param possible every statement the name may hold now
     * @param pending what the name holds if the request numbered {@code request} ends without an error
     */
    private record Entry(List<Judged> possible, List<Judged> pending, long request) {
    }

    private final Map<String, Entry> entries = new HashMap<>();

    /** A Parse of {@code name} that the guard allowed was sent in the client request numbered {@code request}. */
    void parsed(String name, Judged judged, long request) {
        List<Judged> possible = new ArrayList<>(possible(name));
        possible.add(judged);
        entries.put(name, new Entry(List.copyOf(possible), List.of(judged), request));
    }

    /** A Close of the statement {@code name} was sent in the client request numbered {@code request}. */
    void closed(String name, long request) {
        Entry entry = entries.get(name);
        if (entry != null) {
            entries.put(name, new Entry(entry.possible(), List.of(), request));
        }
    }

    /** The client request numbered {@code request} got its ReadyForQuery; {@code errored}: the server failed it. */
    void retired(long request, boolean errored) {
        if (errored) {
            return;
        }
        entries.replaceAll((name, entry) -> entry.request() == request
                ? new Entry(entry.pending(), entry.pending(), request) : entry);
        entries.values().removeIf(entry -> entry.possible().isEmpty());
    }

    /** Every statement {@code name} may hold; empty when it holds none the guard allowed. */
    List<Judged> possible(String name) {
        Entry entry = entries.get(name);
        return entry == null ? List.of() : entry.possible();
    }

    /** Whether running a statement {@code name} may hold may change the session's search_path. */
    boolean mayChangeSearchPath(String name) {
        return possible(name).stream().anyMatch(Judged::changesSearchPath);
    }

    /** {@code before}, which {@code name} may hold, was judged again and allowed as {@code now}. */
    void judgedAgain(String name, Judged before, Judged now) {
        Entry entry = entries.get(name);
        if (entry != null) {
            entries.put(name, new Entry(replaced(entry.possible(), before, now), replaced(entry.pending(), before, now),
                    entry.request()));
        }
    }

    private static List<Judged> replaced(List<Judged> statements, Judged before, Judged now) {
        return statements.stream().map(statement -> statement == before ? now : statement).toList();
    }
}
