package io.pgward.wire.relay;

import io.pgward.guard.Verdict;
import io.pgward.wire.gate.GateRequest;
import io.pgward.wire.pool.BackendConnection;
import io.pgward.wire.pool.BackendPool;
import io.pgward.wire.protocol.FrontendMessage;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * Asks the login's gate about one client statement, with what the server reads it by (standard_conforming_strings,
 * search_path). The gate may decide off the event loop; the {@link Session} takes each verdict on the event loop,
 * in arrival order, which is when it fails closed and is audited.
 */
final class Judge {

    private final Session.Identity who;
    private final Session.Rules rules;
    private final BackendConnection backend;
    private final SearchPath searchPath;
    private final BackendPool pool;

    Judge(Session.Identity who, Session.Rules rules, BackendConnection backend, SearchPath searchPath,
          BackendPool pool) {
        this.who = who;
        this.rules = rules;
        this.backend = backend;
        this.searchPath = searchPath;
        this.pool = pool;
    }

    Judgement ask(FrontendMessage message, GateRequest.Kind kind, String sql, int[] parameterTypes) {
        long started = System.nanoTime();
        String invalid = backend.target().pins() == null ? null : Verdicts.invalidUtf8(message);
        if (invalid != null) {
            // Decoded with replacement characters, the text is not what the server reads: refused, not judged.
            return new Judgement(CompletableFuture.completedFuture(Verdicts.invalidEncoding(invalid)),
                    audited(message, sql), started);
        }
        CompletableFuture<Verdict> verdict;
        try {
            verdict = rules.gate().check(new GateRequest(kind, sql, parameterTypes, who.login(), who.database(),
                    standardConformingStrings(backend), searchPath.current())).toCompletableFuture();
        } catch (RuntimeException e) {
            verdict = CompletableFuture.failedFuture(e);
        }
        return new Judgement(freeDatabases(message, sql, inClientEncoding(verdict)), audited(message, sql), started);
    }

    /**
     * What pgward writes in place of a statement (a rewrite, an answer) is UTF-8 text, which a session whose
     * client_encoding is another would read differently: PostgreSQL decodes the bytes of a Parse or Query in the
     * client's encoding, where in SJIS, BIG5, GBK, GB18030 or UHC a backslash may be the second byte of a
     * character, so even a quoted literal could end elsewhere. A read-only session's encoding is pinned to UTF8;
     * a read-write session in another encoding gets an error instead of pgward's text.
     */
    private CompletableFuture<Verdict> inClientEncoding(CompletableFuture<Verdict> verdict) {
        if (backend.target().pins() != null
                || verdict.isDone() && !verdict.isCompletedExceptionally() && verdict.join() instanceof Verdict.Allow) {
            return verdict;
        }
        return verdict.thenApply(v -> (v instanceof Verdict.Rewrite || v instanceof Verdict.Answer)
                && !"UTF8".equals(backend.parameters().get("client_encoding"))
                ? new Verdict.Refuse("0A000", "pgward answers pgward.* functions only in sessions whose "
                        + "client_encoding is UTF8, not " + backend.parameters().get("client_encoding"), 0,
                        "pgward-function")
                : v);
    }

    /**
     * A read-write login's DROP DATABASE, ALTER DATABASE ... RENAME or CREATE DATABASE ... TEMPLATE is relayed only
     * once pgward's idle connections to the database it names are closed ({@link DatabaseCommands}): the backend
     * pool's and the guard's control connections ({@link io.pgward.wire.gate.StatementGate#freeDatabases}); a
     * read-only login's never runs.
     */
    private CompletableFuture<Verdict> freeDatabases(FrontendMessage message, String sql,
                                                     CompletableFuture<Verdict> verdict) {
        if (backend.target().pins() != null
                || !(message instanceof FrontendMessage.Query || message instanceof FrontendMessage.Parse)) {
            return verdict;
        }
        Set<String> databases = DatabaseCommands.databasesToFree(sql, standardConformingStrings(backend));
        if (databases.isEmpty()) {
            return verdict;
        }
        return verdict.thenCompose(v -> v instanceof Verdict.Allow
                ? CompletableFuture.allOf(pool.closeIdleTo(databases), freedByGate(databases)).thenApply(freed -> v)
                : CompletableFuture.completedFuture(v));
    }

    /** A refusal decided before asking the gate, audited as the gate's would be. */
    Judgement refused(FrontendMessage message, String sql, Verdict.Refuse refusal) {
        return new Judgement(CompletableFuture.completedFuture(refusal), audited(message, sql), System.nanoTime());
    }

    /**
     * Asks the gate about a prepared statement again, as a Parse of its text with the session's search_path
     * {@code path}, before a Bind or Describe of it ({@link Reanalysis}); audited as that message.
     */
    Judgement askAgain(FrontendMessage message, String name, JudgedStatements.Judged statement, String path) {
        long started = System.nanoTime();
        CompletableFuture<Verdict> verdict;
        try {
            verdict = rules.gate().check(new GateRequest(GateRequest.Kind.PARSE, statement.sql(),
                    statement.parameterTypes(), who.login(), who.database(), standardConformingStrings(backend),
                    path)).toCompletableFuture();
        } catch (RuntimeException e) {
            verdict = CompletableFuture.failedFuture(e);
        }
        String kind = message instanceof FrontendMessage.Bind ? "Bind" : "Describe";
        return new Judgement(inClientEncoding(verdict), "-- " + kind + " of prepared statement \"" + name
                + "\", judged again with search_path " + path + ": " + statement.sql(), started);
    }

    /** The gate's part of freeing {@code databases}; a gate that fails to is no reason to refuse the statement. */
    private CompletableFuture<Void> freedByGate(Set<String> databases) {
        try {
            return rules.gate().freeDatabases(databases).toCompletableFuture().exceptionally(failure -> null);
        } catch (RuntimeException e) {
            return CompletableFuture.completedFuture(null);
        }
    }

    /** The text the audit records; unaudited sessions skip looking at the message's bytes again. */
    private String audited(FrontendMessage message, String sql) {
        return rules.audit() == null ? sql : Verdicts.auditedText(message, sql);
    }

    /**
     * Asks the gate about the type names a Bind gives to its statement's regtype parameters
     * ({@link TypeNameStatements}); audited as the Bind of that statement.
     */
    Judgement askBoundTypeNames(FrontendMessage.Bind bind, Map<Integer, String> values) {
        long started = System.nanoTime();
        CompletableFuture<Verdict> verdict = CompletableFuture.completedFuture(Verdict.ALLOW);
        String path = searchPath.current();
        for (Map.Entry<Integer, String> value : values.entrySet()) {
            if (value.getValue() != null) {
                // One value after the other: the first refused is the one the server would have failed on.
                verdict = verdict.thenCompose(before -> before instanceof Verdict.Refuse ? CompletableFuture
                        .completedFuture(before) : ask(value.getKey(), value.getValue(), path));
            }
        }
        return new Judgement(verdict, "-- Bind of prepared statement \"" + bind.statement() + "\", type names "
                + values, started);
    }

    /**
     * Asks the gate for the statement a Bind of a statement with pgward calls runs ({@link TypeNameStatements.Calls});
     * audited as that Bind, without its values.
     */
    Judgement askBoundCalls(FrontendMessage.Bind bind, TypeNameStatements.Calls calls, Map<Integer, String> values) {
        long started = System.nanoTime();
        CompletableFuture<Verdict> verdict;
        try {
            verdict = rules.gate().checkBoundCalls(new GateRequest(GateRequest.Kind.PARSE, calls.sql(),
                    calls.parameterTypes(), who.login(), who.database(), standardConformingStrings(backend),
                    searchPath.current()), values).toCompletableFuture();
        } catch (RuntimeException e) {
            verdict = CompletableFuture.failedFuture(e);
        }
        return new Judgement(inClientEncoding(verdict), "-- Bind of prepared statement \"" + bind.statement()
                + "\", pgward calls of "
                + calls.sql(), started);
    }

    /** A refusal of one value carries its parameter's number in its position, which a Bind's error never has. */
    private CompletableFuture<Verdict> ask(int parameter, String value, String path) {
        try {
            return rules.gate().checkBoundTypeName(parameter, value, who.database(), path).toCompletableFuture()
                    .thenApply(v -> v instanceof Verdict.Refuse r ? r.at(parameter) : v);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /** How the server reads backslashes in '...' strings right now, as it last reported. */
    static boolean standardConformingStrings(BackendConnection backend) {
        return !"off".equals(backend.parameters().get("standard_conforming_strings"));
    }

    /** One statement's verdict, decided or still being decided. */
    final class Judgement {

        private final CompletableFuture<Verdict> verdict;
        private final String sql;
        private final long started;
        /** The verdict was there when asked: no catalog check or other wait. */
        private final boolean immediate;

        private Judgement(CompletableFuture<Verdict> verdict, String sql, long started) {
            this.verdict = verdict;
            this.sql = sql;
            this.started = started;
            this.immediate = verdict.isDone();
        }

        boolean decided() {
            return verdict.isDone();
        }

        /** Runs {@code then} once the gate has decided, on whatever thread decided. */
        void whenDecided(Runnable then) {
            verdict.whenComplete((v, e) -> then.run());
        }

        /** The decided verdict, failing closed, and audited: taken once, on the event loop. */
        Verdict take() {
            Verdict taken = Verdicts.failClosed(verdict, who.connection());
            long nanos = System.nanoTime() - started;
            if (rules.audit() != null) {
                rules.audit().record(Verdicts.auditEntry(who.connection(), who.login(), who.database(), sql,
                        nanos / 1000, taken));
            }
            switch (taken) {
                case Verdict.Allow a -> rules.metrics().statement("allow", null, nanos, !immediate);
                case Verdict.Refuse r -> rules.metrics().statement("refuse", r.rule(), nanos, !immediate);
                case Verdict.Answer a -> rules.metrics().statement("answer", null, nanos, !immediate);
                case Verdict.Rewrite r -> rules.metrics().statement("rewrite", null, nanos, !immediate);
            }
            return taken;
        }
    }
}
