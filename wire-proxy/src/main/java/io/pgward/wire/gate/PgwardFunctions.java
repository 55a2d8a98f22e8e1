package io.pgward.wire.gate;

import io.pgward.guard.Verdict;
import io.pgward.guard.policy.GuardPipeline;
import io.pgward.guard.policy.LoginGuard;
import io.pgward.guard.selection.DescribeResult;
import io.pgward.guard.selection.LocalRows;
import io.pgward.guard.selection.RelationDescriber;
import io.pgward.guard.selection.RelationList;
import io.pgward.guard.selection.RiskyDomains;
import io.pgward.nl.NlException;
import io.pgward.nl.PgwardCall;
import io.pgward.nl.PgwardCallParser;
import io.pgward.nl.PgwardCallSites;
import io.pgward.wire.config.PgwardConfig;
import io.pgward.wire.protocol.SqlState;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * The {@code pgward.*} functions a login can call, answered by pgward itself: {@code relations()} and
 * {@code describe('name')} from the catalog as the login's role, and the natural-language ones (see
 * {@link NlFunctions}). Their answers are ordinary result sets in both protocols: the whole-statement forms
 * ({@code SELECT * FROM pgward.f(...)}) answered here, every other place a SELECT calls a function through
 * {@link SplicedCalls}.
 */
final class PgwardFunctions {

    private static final RelationDescriber DESCRIBER = new RelationDescriber(RiskyDomains.CATALOG_DEPENDENCIES);

    private final GuardPipeline pipeline;
    private final NlFunctions nl;
    private final SplicedCalls calls = new SplicedCalls(this);
    private final ExecutorService executor = Executors.newThreadPerTaskExecutor(
            Thread.ofVirtual().name("pgward-functions-", 0).factory());

    PgwardFunctions(GuardPipeline pipeline, NlFunctions nl) {
        this.pipeline = pipeline;
        this.nl = nl;
    }

    /** The call this text makes, if it is one of ours; a cheap test first, as nearly every text is not. */
    static Optional<PgwardCall> recognize(GateRequest request) throws NlException {
        return recognize(request.sql(), request.standardConformingStrings());
    }

    private static Optional<PgwardCall> recognize(String sql, boolean standardConformingStrings) throws NlException {
        if (!containsIgnoringCase(sql, "pgward") && !sql.contains("nl:")) {
            return Optional.empty();
        }
        return PgwardCallParser.recognize(sql, standardConformingStrings);
    }

    /**
     * Whether {@code sql} calls pgward functions, as a whole statement or anywhere a function may stand; true when it
     * cannot be read for them (the caller then takes the text pgward wrote, which is judged like any other).
     */
    static boolean calledIn(String sql, boolean standardConformingStrings) {
        try {
            return recognize(sql, standardConformingStrings).isPresent()
                    || PgwardCallSites.mayCall(sql) && !PgwardCallSites.find(sql, standardConformingStrings).isEmpty();
        } catch (NlException e) {
            return true;
        }
    }

    /**
     * Whether {@code text} holds {@code lowerCaseWord} in any case, as {@code text.toLowerCase(Locale.ROOT)} would,
     * without copying a text that every statement of every read-only session passes through. The word is ASCII, and
     * no character outside ASCII lowers to one of its letters.
     */
    static boolean containsIgnoringCase(String text, String lowerCaseWord) {
        int last = text.length() - lowerCaseWord.length();
        char first = lowerCaseWord.charAt(0);
        char firstUpper = Character.toUpperCase(first);
        for (int i = 0; i <= last; i++) {
            char c = text.charAt(i);
            if ((c == first || c == firstUpper)
                    && text.regionMatches(true, i, lowerCaseWord, 0, lowerCaseWord.length())) {
                return true;
            }
        }
        return false;
    }

    /** Calls of these functions anywhere in a statement. */
    SplicedCalls calls() {
        return calls;
    }

    /**
     * The verdict for a text that calls pgward functions, or null when it calls none: a whole-statement call is
     * answered here, calls anywhere else are computed into the statement, which {@code judge} then judges.
     */
    CompletionStage<Verdict> check(GateRequest request, PgwardConfig.Login login, SplicedCalls.Judge judge) {
        try {
            Optional<PgwardCall> call = recognize(request);
            if (call.isPresent()) {
                return answer(call.get(), login, request);
            }
        } catch (NlException e) {
            return refusal(e);
        }
        return calls.check(request, login, judge);
    }

    CompletionStage<Verdict> answer(PgwardCall call, PgwardConfig.Login login, GateRequest request) {
        return switch (call) {
            case PgwardCall.Relations r -> withCatalog(login, request, (loginGuard, connection) ->
                    answer(RelationList.list(connection, null, loginGuard.resolved())));
            case PgwardCall.Describe d -> withCatalog(login, request, (loginGuard, connection) ->
                    switch (DESCRIBER.describe(connection, null, loginGuard.resolved(), d.relation())) {
                        case DescribeResult.Described described -> answer(described.description().toRows());
                        case DescribeResult.Refused refused -> refused.refusal();
                    });
            default -> pipeline.withLogin(ControlConnections.policy(login), request.database(),
                    loginGuard -> nl.answer(call, login, request, loginGuard));
        };
    }

    private interface CatalogWork {
        Verdict run(LoginGuard loginGuard, Connection connection) throws SQLException;
    }

    /** Runs catalog reads as the login's role on its control pool, off the event loop. */
    private CompletionStage<Verdict> withCatalog(PgwardConfig.Login login, GateRequest request, CatalogWork work) {
        return pipeline.withLogin(ControlConnections.policy(login), request.database(),
                loginGuard -> CompletableFuture.supplyAsync(() -> {
                    try (Connection connection = loginGuard.control().getConnection()) {
                        return work.run(loginGuard, connection);
                    } catch (SQLException e) {
                        return new Verdict.Refuse(e.getSQLState() == null ? SqlState.INTERNAL_ERROR
                                : e.getSQLState(), e.getMessage(), 0, "pgward-function");
                    }
                }, executor));
    }

    private static Verdict answer(LocalRows rows) {
        return new Verdict.Answer(rows.columns(), rows.rows(), "SELECT " + rows.rows().size(), List.of());
    }

    static CompletionStage<Verdict> refusal(NlException e) {
        return CompletableFuture.completedFuture(new Verdict.Refuse(e.sqlState(), e.getMessage(), 0,
                "pgward-function"));
    }
}
