package io.pgward.wire.relay;

import io.pgward.guard.Verdict;
import io.pgward.wire.gate.StatementGate;
import io.pgward.wire.protocol.SqlState;
import java.util.List;

/**
 * Decides whether a Bind or Describe of a prepared statement may go on as it is, now that PostgreSQL may analyse the
 * statement again ({@link JudgedStatements}): at once when every statement the name may hold was judged with the
 * session's search_path at the current verdict epoch; after the statement is judged again and given the same
 * verdict; otherwise never (a refusal takes the message's place).
 */
final class Reanalysis {

    /** What must happen before the message goes on. */
    sealed interface Need {
    }

    /** Nothing: the statement runs as it was judged. */
    record GoOn() implements Need {
    }

    /** The message is refused. */
    record Refused(Verdict.Refuse refusal) implements Need {
    }

    /** The statement {@code before} must be judged again with {@code path}; the epoch was read before asking. */
    record JudgeAgain(JudgedStatements.Judged before, String path, long epoch) implements Need {
    }

    private static final Need GO_ON = new GoOn();

    private final JudgedStatements statements;
    private final SearchPath searchPath;
    private final StatementGate gate;
    private final String database;

    Reanalysis(JudgedStatements statements, SearchPath searchPath, StatementGate gate, String database) {
        this.statements = statements;
        this.searchPath = searchPath;
        this.gate = gate;
        this.database = database;
    }

    /** Before a Bind or a statement Describe of {@code name}, in the open client request numbered {@code request}. */
    Need before(String name, long request) {
        if (!searchPath.wanted()) {
            return GO_ON;
        }
        List<JudgedStatements.Judged> possible = statements.possibleWithin(name, request);
        if (possible.isEmpty()) {
            return GO_ON;
        }
        if (searchPath.mayHaveChangedInOpenRequest()) {
            return refused("prepared statement \"" + name + "\" would be analysed again with a search_path changed "
                    + "earlier in the same request, which pgward cannot check; send a Sync first");
        }
        String path = searchPath.current();
        long epoch = gate.verdictEpoch(database);
        List<JudgedStatements.Judged> stale = possible.stream().filter(judged -> !judged.holds(path, epoch)).toList();
        if (stale.isEmpty()) {
            return GO_ON;
        }
        if (path == null || stale.size() > 1) {
            return refused("pgward cannot check prepared statement \"" + name + "\" again for the search_path or "
                    + "schema it would now be analysed with (it may hold one of several statements); prepare it "
                    + "again");
        }
        return new JudgeAgain(stale.getFirst(), path, epoch);
    }

    /**
     * The verdict of judging {@code again.before()} again: null when the statement the server holds may go on (and is
     * from now on taken as judged with the path and epoch of {@code again}), else the refusal in its place.
     */
    Verdict.Refuse after(String name, JudgeAgain again, Verdict verdict) {
        if (verdict instanceof Verdict.Refuse refusal) {
            return refusal.at(0);
        }
        if (!sameStatement(again.before().verdict(), verdict)) {
            return refusedWith("prepared statement \"" + name + "\" would now be analysed differently than when it "
                    + "was prepared (search_path or schema changed); prepare it again");
        }
        statements.judgedAgain(name, again.before(), again.before().with(again.path(), again.epoch()));
        return null;
    }

    /** Whether the server's statement, prepared for {@code before}, is what {@code now} would have it prepare. */
    private static boolean sameStatement(Verdict before, Verdict now) {
        return switch (before) {
            case Verdict.Allow a -> now instanceof Verdict.Allow n
                    && a.typeNameParameters().equals(n.typeNameParameters());
            case Verdict.Rewrite r -> now instanceof Verdict.Rewrite n && r.sql().equals(n.sql())
                    && r.keepsParameters() == n.keepsParameters()
                    && r.typeNameParameters().equals(n.typeNameParameters())
                    && r.callParameters().equals(n.callParameters());
            default -> false;
        };
    }

    private static Need refused(String message) {
        return new Refused(refusedWith(message));
    }

    private static Verdict.Refuse refusedWith(String message) {
        return new Verdict.Refuse(SqlState.INSUFFICIENT_PRIVILEGE, Verdict.Refuse.PREFIX + message, 0,
                "prepared-statement");
    }
}
