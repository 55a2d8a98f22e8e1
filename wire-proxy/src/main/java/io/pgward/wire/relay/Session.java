package io.pgward.wire.relay;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelPromise;
import io.netty.channel.VoidChannelPromise;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.ScheduledFuture;
import io.pgward.guard.Verdict;
import io.pgward.guard.catalog.CatalogRefusals;
import io.pgward.guard.policy.GuardPipeline;
import io.pgward.wire.clients.ConnectedClient;
import io.pgward.wire.audit.AuditLog;
import io.pgward.wire.metrics.LoginMetrics;
import io.pgward.wire.gate.GateRequest;
import io.pgward.wire.gate.StatementGate;
import io.pgward.wire.local.LocalAnswer;
import io.pgward.wire.pool.BackendConnection;
import io.pgward.wire.pool.BackendPool;
import io.pgward.wire.protocol.BackendMessage;
import io.pgward.wire.protocol.FrontendMessage;
import io.pgward.wire.protocol.MalformedMessage;
import io.pgward.wire.protocol.Messages;
import io.pgward.wire.protocol.PgError;
import io.pgward.wire.protocol.ProtocolException;
import io.pgward.wire.protocol.SqlState;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * One client session relayed to one backend connection. Confined to the client channel's event loop, which is
 * also the backend channel's: no locks. {@link ClientSide} and {@link BackendSide} are its handlers on the two
 * channels; everything they receive comes here.
 *
 * <p>Client messages pass in order. Query, Parse and FunctionCall go through the {@link StatementGate} (asked by
 * the {@link Judge}); all others are forwarded as they arrived, except a message pgward could not read ({@link
 * FrontendMessage.Malformed}), which never reaches the server: PostgreSQL's error for it takes its place. Backend
 * output is forwarded as runs of bytes; only ReadyForQuery, ErrorResponse, ParameterStatus (and, for the row cap,
 * CommandComplete and PortalSuspended) are read.
 *
 * <p><b>States.</b> The session is relaying until it has {@code ended} (then whatever arrives is released). What
 * it waits for is kept in four places:
 * <ul>
 *   <li>{@link InFlight}: the requests the backend owes a ReadyForQuery, oldest first (the client's, each with
 *       the refusals sent in it; pgward's own SHOW search_path; the row cap's abort), and a local answer waiting
 *       behind them;</li>
 *   <li>{@link RowCap}: COUNTING, or a capped result being CUTTING, DISCARDING, SETTLING or ABORTING;</li>
 *   <li>{@link SkipQuestion}: whether the server skips to the Sync was asked, before a Query or FunctionCall that
 *       ends extended-protocol messages;</li>
 *   <li>{@code awaitingGate}: a verdict is being decided off the event loop.</li>
 * </ul>
 * A client message is handled at once unless {@link #clientWaits()}; then it waits in {@code backlog}, which is
 * drained in order whenever a wait ends. {@link #mayReadClient()} alone decides whether the client is read. The
 * search_path the gate is given is kept (and asked for) by {@link SearchPath}; what is worked out around a verdict
 * (fail closed, audit, what replaces the server's error for a refusal) is in {@link Verdicts}; the statements
 * written in place of the client's, and the errors that come back for them, are handled by {@link Replacements};
 * DDL is reported to the gate by {@link SchemaWatch}; the backend goes back to the pool through {@link BackendLease}.
 *
 * <p><b>Invariants.</b> Client messages are judged and forwarded in arrival order, one verdict at a time. Each
 * ReadyForQuery retires the oldest request in flight, and a server error is matched to a refusal only within
 * the request that carried it. A local answer reaches the client after everything the backend owed before it
 * and before anything the client sent after it. No client statement is judged while pgward's SHOW search_path
 * is in flight (the verdict may depend on the path), and nothing from the client reaches the server while the
 * row cap is settling a result (its cancel must not hit a later statement). The backend goes back to the pool
 * only when it owes no ReadyForQuery and never reported a pinned setting at another value.
 *
 * <p><b>Pinned settings.</b> When the backend's target carries {@link io.pgward.wire.pool.PinnedSettings} (a
 * read-only login), the session holds the server to them: SQL text that is not valid UTF-8 is refused with the
 * server's own error (22021) instead of being judged ({@link Judge}), and a ParameterStatus that reports
 * client_encoding, standard_conforming_strings or default_transaction_read_only at another value ({@link
 * ReportedSettings}) ends the session with FATAL and closes the backend connection, which never returns to the
 * pool (fail closed).
 *
 * <p><b>Refusals are executed by PostgreSQL itself.</b> A refused statement is replaced ({@link Replacements}) by
 * a statement that cannot parse, named with a per-session random token ({@code pgward_refused_<nonce>_<n>}); the
 * server's syntax error for it is replaced by pgward's refusal on the way back. Every protocol consequence of an
 * error is therefore PostgreSQL's own: the ErrorResponse is flushed at once, the extended protocol skips to Sync,
 * an open transaction block goes to the aborted state (status E, later statements get 25P02, COMMIT reports
 * ROLLBACK, ROLLBACK TO SAVEPOINT recovers), a refused prepared statement name does not exist (26000), and
 * pipelined batches stay in order. The refused text never reaches the server.
 *
 * <pre>
 *   client                 pgward                               PostgreSQL
 *   Parse(S1, DROP ...) ─▶ gate: refuse ─▶ Parse(S1, pgward_refused_x_1)
 *                                       ◀─ ErrorResponse 42601 (names pgward_refused_x_1)
 *   ◀─ ErrorResponse 42501 "pgward refused this query: ..."
 *   Bind(S1), Execute   ─▶ forwarded ──▶ (server skips them until Sync)
 *   Sync                ─▶ forwarded ──▶   ◀─ ReadyForQuery
 * </pre>
 */
public final class Session implements ConnectedClient.Control {

    /** Who the session is, as log lines and audit entries name it. */
    public record Identity(String connection, String login, String database) {
    }

    /**
     * The login's rules: its gate, where verdicts are audited (null: nowhere), its row cap (0: none), where its
     * sessions, verdicts and relayed bytes are counted, and the server's {@link Pause}.
     */
    public record Rules(StatementGate gate, AuditLog audit, long rowCap, LoginMetrics metrics, Pause pause) {

        public Rules(StatementGate gate, AuditLog audit, long rowCap, LoginMetrics metrics) {
            this(gate, audit, rowCap, metrics, Pause.NEVER);
        }

        public Rules(StatementGate gate, AuditLog audit, long rowCap) {
            this(gate, audit, rowCap, LoginMetrics.NONE);
        }
    }

    /** The name of the session's handler in both pipelines. */
    static final String HANDLER = "session";
    private static final int BACKLOG_READ_LIMIT = 64;
    /** How long the last words to a client that stopped reading may keep its connection open. */
    static final Duration CLOSE_WAIT = Duration.ofSeconds(10);

    private final Identity who;
    private final StatementGate gate;
    private final Channel client;
    private final BackendConnection backend;
    /**
     * The promises of relayed writes: nobody waits on them, and a failed write shows as the channel closing, which
     * ends the session. One shared promise instead of one per message keeps the relay from allocating per write.
     */
    private final ChannelPromise clientWrites;
    private final ChannelPromise backendWrites;
    private final BackendLease lease;
    private final Runnable onEnd;
    private final Deque<FrontendMessage> backlog = new ArrayDeque<>();
    private final InFlight inFlight = new InFlight();
    /** The login's row cap, null when it has none. */
    private final RowCap rowCap;
    private final LoginMetrics metrics;
    /** pgward is stopping, or the session must end: see {@link #endWhenIdle}. */
    private boolean draining;
    /** What the session ends with once drained. */
    private PgError drainError;
    private static final PgError SHUTTING_DOWN = PgError.fatal(SqlState.ADMIN_SHUTDOWN,
            "terminating connection due to administrator command");
    private final Pause pause;
    private final SearchPath searchPath;
    private final ReportedSettings settings;
    private final SchemaWatch schemaWatch;
    private final FailedBlock failedBlock = new FailedBlock();
    private final Judge judge;
    private final Replacements replacements;
    private final TypeNameStatements typeNames = new TypeNameStatements();
    private final JudgedStatements judged = new JudgedStatements();
    private final Reanalysis reanalysis;
    private final BoundPortals portals = new BoundPortals();
    private final Completions completions = new Completions();
    private final SkipQuestion skipQuestion;
    private boolean awaitingGate;
    /** The server sent FATAL or PANIC: when it closes, that error has told the client why. */
    private boolean backendSentFatal;
    private boolean ended;

    public Session(Identity who, Rules rules, Channel client, BackendConnection backend, BackendPool pool, long nonce,
                   Runnable onEnd) {
        this.who = who;
        this.gate = rules.gate();
        this.client = client;
        this.backend = backend;
        this.clientWrites = new VoidChannelPromise(client, false);
        this.backendWrites = new VoidChannelPromise(backend.channel(), false);
        this.lease = new BackendLease(pool, backend);
        this.onEnd = onEnd;
        this.rowCap = rules.rowCap() > 0 ? new RowCap(rules.rowCap(), who.login()) : null;
        this.metrics = rules.metrics();
        this.pause = rules.pause();
        this.searchPath = new SearchPath(gate.wantsSearchPath(), backend, inFlight, nonce);
        this.settings = new ReportedSettings(who, backend, searchPath);
        this.schemaWatch = new SchemaWatch(gate);
        this.judge = new Judge(who, rules, backend, searchPath, pool);
        this.replacements = new Replacements(who, client, backend, inFlight, failedBlock, nonce);
        this.reanalysis = new Reanalysis(judged, searchPath, gate, who.database());
        this.skipQuestion = new SkipQuestion(backend, inFlight, completions, nonce);
    }

    /** Installs the relay handlers; called on the event loop once the client is told it may send queries. */
    public void start() {
        client.pipeline().addLast(HANDLER, new ClientSide(this, backend.channel(), who.connection()));
        backend.channel().pipeline().addLast(HANDLER, new BackendSide(this, client, who.connection()));
        backend.channel().config().setAutoRead(true);
        searchPath.start();
        metrics.sessionOpened();
    }

    public BackendConnection backend() {
        return backend;
    }

    /**
     * Relays a client's CancelRequest to the backend, with the backend's own keys. Decided on the session's event
     * loop: once the session has ended, its backend may already be reset and lent to another client, whose
     * statement a late cancel must not hit.
     */
    public void cancel() {
        client.eventLoop().execute(() -> {
            if (!ended) {
                lease.cancel();
            }
        });
    }

    boolean ended() {
        return ended;
    }

    boolean backendSentFatal() {
        return backendSentFatal;
    }

    // ---------------------------------------------------------------- client to backend

    void fromClient(FrontendMessage message) {
        if (ended) {
            message.release();
        } else if (clientWaits() || !backlog.isEmpty()) {
            backlog.addLast(message);
            if (backlog.size() >= BACKLOG_READ_LIMIT) {
                readClientIfAllowed();
            }
        } else {
            process(message);
        }
    }

    private void process(FrontendMessage message) {
        switch (skipQuestion.before(message)) {
            case GO_ON -> handle(message);
            case SKIPPED -> message.release();
            case ASKED -> {
                backlog.addFirst(message);
                readClientIfAllowed();
            }
        }
    }

    private void handle(FrontendMessage message) {
        switch (message) {
            case FrontendMessage.Query q -> judge(message, GateRequest.Kind.SIMPLE_QUERY, q.sql(), new int[0]);
            case FrontendMessage.Parse p -> judge(message, GateRequest.Kind.PARSE, p.sql(), p.parameterTypes());
            case FrontendMessage.FunctionCall f -> judge(message, GateRequest.Kind.FUNCTION_CALL,
                    "fast-path call of function " + Integer.toUnsignedString(f.functionOid()), new int[0]);
            case FrontendMessage.Sync s -> forward(message, true);
            case FrontendMessage.Terminate t -> {
                message.release();
                end(null);
            }
            case FrontendMessage.AuthenticationResponse a -> {
                message.release();
                throw new ProtocolException("invalid frontend message type 112");
            }
            case FrontendMessage.Bind b -> bind(b);
            case FrontendMessage.Describe d -> {
                if (d.kind() == 'S') {
                    whenStillAllowed(d, d.name(), () -> forward(d, false));
                } else {
                    forward(message, false);
                }
            }
            case FrontendMessage.Execute e -> {
                Verdict.Refuse refusal = copyRunsElsewhere(e.portal());
                if (refusal != null) {
                    await(e, judge.refused(e, "-- Execute of portal \"" + e.portal() + "\"", refusal),
                            verdict -> replacements.refuse(e, (Verdict.Refuse) verdict, false));
                    return;
                }
                if (portals.mayChangeSearchPath(e.portal())) {
                    searchPath.mayChange(true);
                }
                forward(message, false);
            }
            case FrontendMessage.Close c -> {
                completions.sent(Completions.CLOSE, inFlight.openId(), false);
                if (c.kind() == 'S') {
                    typeNames.closed(c.name(), inFlight.openId());
                    judged.closed(c.name(), inFlight.openId());
                } else {
                    portals.closed(c.name(), inFlight.openId());
                }
                forward(message, false);
            }
            case FrontendMessage.Flush f -> forward(message, false);
            case FrontendMessage.Copy c -> forward(message, false);
            case FrontendMessage.Malformed m -> {
                replacements.malformed(m);
                if (m.endsRequest()) {
                    searchPath.requestClosed();
                }
            }
        }
    }

    private void judge(FrontendMessage message, GateRequest.Kind kind, String sql, int[] parameterTypes) {
        if (searchPath.wanted() && searchPath.mayHaveChangedInOpenRequest()) {
            // The server would analyse it with a path pgward learns only once the request has ended.
            await(message, judge.refused(message, sql, new Verdict.Refuse(SqlState.INSUFFICIENT_PRIVILEGE,
                    Verdict.Refuse.PREFIX + "a statement after a change of search_path in the same request cannot "
                    + "be checked; send a Sync first", 0, "search-path")), verdict -> apply(message, verdict));
            return;
        }
        String path = searchPath.current();
        long epoch = searchPath.wanted() ? gate.verdictEpoch(who.database()) : 0;
        await(message, judge.ask(message, kind, sql, parameterTypes), verdict -> {
            if (message instanceof FrontendMessage.Parse parse && searchPath.wanted()) {
                // A session's first statement makes the login's catalog layer: its epoch is known once judged.
                prepared(parse, verdict, path, epoch != GuardPipeline.UNKNOWN_EPOCH ? epoch
                        : gate.verdictEpoch(who.database()));
            }
            apply(message, verdict);
        });
    }

    /** Notes what a Parse the server will prepare was judged with ({@link JudgedStatements}). */
    private void prepared(FrontendMessage.Parse parse, Verdict verdict, String path, long epoch) {
        if (verdict instanceof Verdict.Refuse) {
            return;   // the server prepares nothing in its place
        }
        JudgedStatements.Judged statement;
        if (verdict instanceof Verdict.Answer) {
            // The statement pgward prepares in place of an answer of its own is never judged again.
            statement = new JudgedStatements.Judged(parse.sql(), parse.parameterTypes(), null, path, epoch, false,
                    false);
        } else if (verdict instanceof Verdict.Rewrite rewrite && rewrite.callParameters().isEmpty()
                && gate.computesCalls(parse.sql(), Judge.standardConformingStrings(backend))) {
            // The server holds what pgward computed the calls into, and that is what is judged again.
            statement = new JudgedStatements.Judged(rewrite.sql(), rewrite.keepsParameters() ? parse.parameterTypes()
                    : new int[0], Verdict.ALLOW, path, epoch, false, true);
        } else {
            statement = new JudgedStatements.Judged(parse.sql(), parse.parameterTypes(), verdict, path, epoch,
                    isCopy(parse.sql()), false);
        }
        judged.parsed(parse.statement(), statement, inFlight.openId());
    }

    private static boolean mentionsCopy(String sql) {
        for (int i = sql.length() - 4; i >= 0; i--) {
            if (sql.regionMatches(true, i, "copy", 0, 4)) {
                return true;
            }
        }
        return false;
    }

    /** Whether {@code sql} is a COPY (its first word), read as the server reads it; true when it cannot be read. */
    private boolean isCopy(String sql) {
        if (!mentionsCopy(sql)) {
            return false;
        }
        try {
            List<io.pgward.guard.lexer.StatementText> statements = io.pgward.guard.lexer.SqlLexer.split(sql,
                    Judge.standardConformingStrings(backend));
            return statements.isEmpty() || statements.getFirst().tokens().getFirst().value().equalsIgnoreCase("copy");
        } catch (io.pgward.guard.lexer.LexerException e) {
            return true;
        }
    }

    /**
     * Runs {@code then} once the statement {@code name} holds may go on as PostgreSQL would analyse it now
     * ({@link Reanalysis}); a refusal takes the message's place otherwise.
     */
    private void whenStillAllowed(FrontendMessage message, String name, Runnable then) {
        switch (reanalysis.before(name, inFlight.openId())) {
            case Reanalysis.GoOn goOn -> then.run();
            case Reanalysis.Refused refused -> await(message, judge.refused(message, "-- prepared statement \""
                    + name + "\"", refused.refusal()), verdict -> replacements.refuse(message, (Verdict.Refuse) verdict,
                    false));
            case Reanalysis.JudgeAgain again -> await(message, judge.askAgain(message, name, again.before(),
                    again.path()), verdict -> {
                        Verdict.Refuse refusal = reanalysis.after(name, again, verdict);
                        if (refusal == null) {
                            then.run();
                        } else {
                            replacements.refuse(message, refusal, false);
                        }
                    });
        }
    }

    /** Applies the judgement's verdict at once when it is decided, else once it is, with the client paused. */
    private void await(FrontendMessage message, Judge.Judgement judgement, java.util.function.Consumer<Verdict> then) {
        if (judgement.decided()) {
            then.accept(judgement.take());
            return;
        }
        awaitingGate = true;
        readClientIfAllowed();
        judgement.whenDecided(() -> client.eventLoop().execute(() -> {
            awaitingGate = false;
            if (ended) {
                message.release();
                return;
            }
            then.accept(judgement.take());
            drainBacklog();
            backend.channel().flush();
            client.flush();
        }));
    }

    /**
     * A Bind goes on as it came, unless its statement takes type names ({@link TypeNameStatements}): then the gate
     * resolves the text values bound to them first, and a refusal (PostgreSQL's error for an absent type, for a
     * hidden one) takes the Bind's place.
     */
    private void bind(FrontendMessage.Bind bind) {
        if (typeNames.lookup(bind.statement(), inFlight.openId()) instanceof TypeNameStatements.Calls calls) {
            // Each Bind of it has its statement judged with the session's path, and prepared under pgward's own name.
            bindComputed(bind, calls);
            return;
        }
        whenStillAllowed(bind, bind.statement(), () -> {
            notePortal(bind);
            bindJudged(bind);
        });
    }

    /**
     * What the portal a Bind makes may do when it runs ({@link BoundPortals}): change search_path (only an allowed
     * text can: one that changes the path is never rewritten, and pgward's answers change nothing), or run a COPY,
     * which keeps the path and epoch it was bound with.
     */
    private void notePortal(FrontendMessage.Bind bind) {
        if (!searchPath.wanted()) {
            return;
        }
        boolean changesPath = false;
        JudgedStatements.Judged copy = null;
        for (JudgedStatements.Judged statement : judged.possible(bind.statement())) {
            changesPath |= statement.mayChangeSearchPath() && (statement.changesSearchPath()
                    || gate.mayChangeSearchPath(statement.sql(), Judge.standardConformingStrings(backend)));
            if (statement.copy()) {
                copy = statement.with(searchPath.current(), gate.verdictEpoch(who.database()));
            }
        }
        portals.bound(bind.portal(), changesPath || copy != null ? new BoundPortals.Binding(changesPath, copy) : null,
                inFlight.openId());
    }

    /**
     * The refusal of an Execute of a COPY portal that PostgreSQL would run with another search_path or schema than
     * it was bound with (it resolves a COPY's names only then); null when it runs as bound.
     */
    private Verdict.Refuse copyRunsElsewhere(String portal) {
        List<JudgedStatements.Judged> copies = portals.copies(portal);
        if (copies.isEmpty()) {
            return null;
        }
        String path = searchPath.current();
        long epoch = gate.verdictEpoch(who.database());
        boolean asBound = !searchPath.mayHaveChangedInOpenRequest()
                && copies.stream().allMatch(copy -> copy.holds(path, epoch));
        return asBound ? null : new Verdict.Refuse(SqlState.INSUFFICIENT_PRIVILEGE, Verdict.Refuse.PREFIX
                + "COPY portal \"" + portal + "\" would run with another search_path or schema than it was bound "
                + "with, which pgward cannot check; bind it again", 0, "prepared-statement");
    }

    /** A Bind of a statement still allowed: its type-name values resolved first, where it has any. */
    private void bindJudged(FrontendMessage.Bind bind) {
        switch (typeNames.lookup(bind.statement(), inFlight.openId())) {
            case TypeNameStatements.None none -> forward(bind, false);
            case TypeNameStatements.Uncertain uncertain -> replacements.refuse(bind, new Verdict.Refuse(
                    SqlState.INSUFFICIENT_PRIVILEGE, Verdict.Refuse.PREFIX + "pgward cannot tell which "
                    + "statement \"" + bind.statement() + "\" is now (after an error, while the request that "
                    + "prepared it is in flight), and its parameters may take type names or pgward function arguments;"
                    + " prepare it again", 0,
                    "type-name-parameter"), false);
            case TypeNameStatements.Calls calls -> bindComputed(bind, calls);
            case TypeNameStatements.Parameters parameters -> {
                Map<Integer, String> values;
                try {
                    values = BoundValues.text(bind.frame(), parameters.parameters());
                } catch (MalformedMessage e) {
                    replacements.refuse(bind, unreadableBind(e), false);
                    return;
                }
                if (values.values().stream().allMatch(java.util.Objects::isNull)) {
                    forward(bind, false);
                    return;
                }
                if (searchPath.mayHaveChangedInOpenRequest()) {
                    // The names would be resolved with a path the Bind does not run with.
                    replacements.refuse(bind, new Verdict.Refuse(SqlState.INSUFFICIENT_PRIVILEGE,
                            Verdict.Refuse.PREFIX + "a type name bound after a change of search_path in the same "
                            + "request cannot be checked; send a Sync first", 0, "type-name-parameter"), false);
                    return;
                }
                await(bind, judge.askBoundTypeNames(bind, values), verdict -> {
                    if (!(verdict instanceof Verdict.Refuse refusal)) {
                        forward(bind, false);
                    } else if (refusal.rule().equals(CatalogRefusals.ABSENT_OBJECT)
                            && values.get(refusal.position()) != null) {
                        // The judge placed the refused value's parameter number in the position.
                        if (parameters.parameters().contains(new Verdict.TypeNameParameter(refusal.position(),
                                true))) {
                            // to_regtype answers NULL for a name nothing has, as for an absent type: the Bind goes
                            // on with such a name in place of the hidden type's, once its other values are resolved.
                            bind(replacements.boundValueReplaced(bind, refusal.position()));
                        } else {
                            replacements.refuseBoundValue(bind, refusal.position(), values.get(refusal.position()),
                                    refusal.at(0));
                        }
                    } else {
                        replacements.refuse(bind, refusal.at(0), false);
                    }
                });
            }
        }
    }

    /**
     * A Bind of a statement whose pgward calls take bound values: the gate computes the calls with this Bind's values
     * and judges the statement that results, which the backend prepares under pgward's own name and binds in place of
     * the client's ({@link Replacements#bindComputed}); a refusal takes the Bind's place.
     */
    private void bindComputed(FrontendMessage.Bind bind, TypeNameStatements.Calls calls) {
        Map<Integer, String> values;
        try {
            values = CallValues.read(bind.frame(), calls);
        } catch (CallValues.Unreadable e) {
            replacements.refuse(bind, new Verdict.Refuse(SqlState.INVALID_PARAMETER_VALUE, e.getMessage(), 0,
                    "pgward-function"), false);
            return;
        } catch (MalformedMessage e) {
            replacements.refuse(bind, unreadableBind(e), false);
            return;
        }
        if (searchPath.mayHaveChangedInOpenRequest()) {
            replacements.refuse(bind, new Verdict.Refuse(SqlState.INSUFFICIENT_PRIVILEGE, Verdict.Refuse.PREFIX
                    + "pgward functions bound after a change of search_path in the same request cannot be checked; "
                    + "send a Sync first", 0, "pgward-function"), false);
            return;
        }
        await(bind, judge.askBoundCalls(bind, calls, values), verdict -> {
            if (verdict instanceof Verdict.Rewrite rewrite && rewrite.typeNameParameters().isEmpty()) {
                long request = inFlight.openId();
                completions.sent(Completions.CLOSE, request, true);
                completions.sent(Completions.PARSE, request, true);
                completions.sent(Completions.CLOSE, request, true);
                replacements.bindComputed(bind, rewrite, calls.parameterTypes());
            } else if (verdict instanceof Verdict.Refuse refusal) {
                replacements.refuse(bind, refusal.at(0), false);
            } else {
                replacements.refuse(bind, new Verdict.Refuse(SqlState.FEATURE_NOT_SUPPORTED, "pgward cannot bind "
                        + "this statement with pgward calls", 0, "pgward-function"), false);
            }
        });
    }

    /**
     * PostgreSQL's error for a Bind whose values pgward must judge but cannot read. The Bind is not forwarded: the
     * server would look up the type names bound before the value it fails on, unjudged. PostgreSQL reads the values
     * only after it checked the transaction, so this refusal, unlike the one for a {@link FrontendMessage.Malformed},
     * gives way to 25P02 in a failed one.
     */
    private static Verdict.Refuse unreadableBind(MalformedMessage e) {
        return new Verdict.Refuse(SqlState.PROTOCOL_VIOLATION, e.getMessage(), 0, "malformed-bind");
    }

    /** Notes what a Parse or Query does to the session's prepared statements, as if it ran. */
    private void follow(FrontendMessage message, Verdict verdict) {
        switch (message) {
            case FrontendMessage.Parse p -> {
                if (verdict instanceof Verdict.Rewrite r && !r.callParameters().isEmpty()) {
                    typeNames.parsed(p.statement(), p.sql(), r.typeNameParameters(), new TypeNameStatements.Calls(
                            r.callParameters(), p.sql(), p.parameterTypes()), inFlight.openId());
                } else {
                    typeNames.parsed(p.statement(), p.sql(),
                            verdict instanceof Verdict.Rewrite r ? r.typeNameParameters() : List.of(),
                            inFlight.openId());
                }
                if (!(verdict instanceof Verdict.Refuse)) {
                    completions.sent(Completions.PARSE, inFlight.openId(), false);
                }
            }
            case FrontendMessage.Query q -> {
                // A Query pgward answers itself never reaches the server, and drops nothing there.
                if (!(verdict instanceof Verdict.Answer)) {
                    typeNames.queried(q.sql(), inFlight.openId());
                }
            }
            default -> { }
        }
    }

    private void apply(FrontendMessage message, Verdict verdict) {
        boolean endsBatch = !(message instanceof FrontendMessage.Parse);
        if (verdict instanceof Verdict.Rewrite r && !r.typeNameParameters().isEmpty()
                && !(message instanceof FrontendMessage.Parse)) {
            // Only a Parse's Binds are followed; a simple Query has no parameters to bind.
            verdict = new Verdict.Refuse(SqlState.INSUFFICIENT_PRIVILEGE, Verdict.Refuse.PREFIX
                    + "a regtype parameter needs the extended protocol", 0, "type-name-parameter");
        }
        follow(message, verdict);
        switch (verdict) {
            case Verdict.Allow a -> {
                // A Query runs at once; a prepared statement when a portal of it is executed (notePortal).
                searchPath.mayChange(a.changesSearchPath() && message instanceof FrontendMessage.Query);
                forward(message, endsBatch);
            }
            case Verdict.Refuse r -> {
                replacements.refuse(message, r, endsBatch);
                if (endsBatch) {
                    searchPath.requestClosed();
                }
            }
            case Verdict.Rewrite rewrite -> {
                replacements.rewrite(message, rewrite, endsBatch);
                if (endsBatch) {
                    // As for a forwarded request: ask for search_path if an earlier message of it may have set it.
                    searchPath.requestClosed();
                }
            }
            case Verdict.Answer answer -> {
                switch (message) {
                    case FrontendMessage.Query q -> answerLocally(message, answer);
                    case FrontendMessage.Parse p -> replacements.answerThroughBackend(p, answer);
                    default -> replacements.refuse(message, new Verdict.Refuse(SqlState.FEATURE_NOT_SUPPORTED,
                            "pgward cannot answer a fast-path function call"), endsBatch);
                }
            }
        }
    }

    private void forward(FrontendMessage message, boolean endsBatch) {
        if (endsBatch) {
            inFlight.closeClientRequest();
        } else if (!(message instanceof FrontendMessage.Flush || message instanceof FrontendMessage.Copy)) {
            inFlight.extendedSent();
        }
        metrics.toServer(message.frame().readableBytes());
        backend.channel().write(message.frame(), backendWrites);
        if (endsBatch) {
            searchPath.requestClosed();
        }
    }

    /** Local answers must follow everything already owed by the backend, so they wait until it is idle. */
    private void answerLocally(FrontendMessage message, Verdict.Answer answer) {
        message.release();
        if (inFlight.owesReady()) {
            inFlight.answerLater(answer);
            return;
        }
        writeAnswer(answer);
    }

    private void writeAnswer(Verdict.Answer answer) {
        if (backend.transactionStatus() == 'E' && !inFlight.openHasExtended()) {
            // PostgreSQL answers nothing else in a failed transaction block, and neither does pgward (after extended
            // messages of the open request the status is not known: they may have ended the block).
            client.write(ABORTED.encode(client.alloc()));
        } else {
            LocalAnswer.write(client, answer);
        }
        client.write(Messages.readyForQuery(client.alloc(), backend.transactionStatus()));
    }

    private static final PgError ABORTED = PgError.error(SqlState.IN_FAILED_SQL_TRANSACTION,
            "current transaction is aborted, commands ignored until end of transaction block");

    // ---------------------------------------------------------------- whether the client is read

    /**
     * The next client message waits while a verdict is pending, a capped result is being settled, pgward's own
     * reply (its SHOW search_path, a local answer) must come first, or the client is not reading what it was sent:
     * PostgreSQL stops reading a client whose replies it cannot send, and pgward answers some statements itself.
     */
    private boolean clientWaits() {
        return awaitingGate || skipQuestion.open() || draining || capHoldsClient()
                || inFlight.waitsForPgward()
                || searchPath.unconfirmed() || !client.isWritable()
                || paused();
    }

    /**
     * A capped result holds the client's next messages until it is settled, except those of a request the server
     * already failed: it skips them up to the Sync, whose ReadyForQuery the cap waits for.
     */
    private boolean capHoldsClient() {
        return rowCap != null && rowCap.holdsClient() && !inFlight.openErrored();
    }

    /**
     * PAUSE holds the next request, never a message of one the server is running (the rest of a COPY's data, say),
     * so that running statements can finish.
     */
    private boolean paused() {
        if (!pause.held() || inFlight.owesReady()) {
            return false;
        }
        pause.waits(this);
        return true;
    }

    /** The pause is over: the messages it held go on. Returns at once. */
    void resume() {
        client.eventLoop().execute(() -> {
            if (!ended) {
                drainBacklog();
                backend.channel().flush();
                client.flush();
            }
        });
    }

    /**
     * pgward is stopping: what the client already sent runs to its ReadyForQuery, nothing it sends later is
     * forwarded, and then the session ends with PostgreSQL's FATAL for a shutdown (57P01). Returns at once.
     */
    public void endWhenIdle() {
        endWhenIdle(SHUTTING_DOWN);
    }

    /** As {@link #endWhenIdle()}, ending with {@code why} (a reload narrowed the login's policy, say). */
    @Override
    public void endWhenIdle(PgError why) {
        client.eventLoop().execute(() -> {
            draining = true;
            if (drainError == null) {
                drainError = why;
            }
            endIfDrained();
        });
    }

    /** The drain time is over: ends the session now, cancelling whatever still runs. Returns at once. */
    public void endNow() {
        endNow(SHUTTING_DOWN);
    }

    /** Ends the session now with {@code why}, cancelling whatever still runs. Returns at once. */
    @Override
    public void endNow(PgError why) {
        client.eventLoop().execute(() -> end(why));
    }

    /** What the admin console shows: see {@code ConnectedClient.Control#state}. */
    @Override
    public java.util.concurrent.CompletionStage<String> state() {
        java.util.concurrent.CompletableFuture<String> state = new java.util.concurrent.CompletableFuture<>();
        client.eventLoop().execute(() -> state.complete(ended || draining ? "closing"
                : awaitingGate || inFlight.owesReady() ? "active"
                : pause.held() && !backlog.isEmpty() ? "paused"
                : switch (backend.transactionStatus()) {
                    case 'T' -> "idle in transaction";
                    case 'E' -> "idle in transaction (aborted)";
                    default -> "idle";
                }));
        return state;
    }

    /** Whether nothing of this session runs on the server or waits for a verdict (what PAUSE waits for). */
    @Override
    public java.util.concurrent.CompletionStage<Boolean> quiet() {
        java.util.concurrent.CompletableFuture<Boolean> quiet = new java.util.concurrent.CompletableFuture<>();
        client.eventLoop().execute(() -> quiet.complete(ended || (!awaitingGate && !inFlight.owesReady())));
        return quiet;
    }

    private void endIfDrained() {
        if (draining && !ended && !awaitingGate && !inFlight.owesReady()) {
            end(drainError == null ? SHUTTING_DOWN : drainError);
        }
    }

    /**
     * The one answer to "may the client be read now?": not once the session ended, not while its next message
     * would have to wait, not with a full backlog, and not while the backend cannot take more (back pressure).
     */
    private boolean mayReadClient() {
        return !ended && !clientWaits() && backlog.size() < BACKLOG_READ_LIMIT && backend.channel().isWritable();
    }

    /** The client's connection became writable again, or stopped being so. */
    void clientWritabilityChanged() {
        if (client.isWritable()) {
            drainBacklog();
            client.flush();
            backend.channel().flush();
        } else {
            readClientIfAllowed();
        }
    }

    void readClientIfAllowed() {
        client.config().setAutoRead(mayReadClient());
    }

    private void drainBacklog() {
        while (!clientWaits() && !ended && !backlog.isEmpty()) {
            process(backlog.pollFirst());
        }
        readClientIfAllowed();
    }

    // ---------------------------------------------------------------- backend to client

    void fromBackend(BackendMessage message) {
        InFlight.Request head = inFlight.head();
        if (head != null && head.kind() == InFlight.Kind.SEARCH_PATH) {
            if (message instanceof BackendMessage.Frame frame && frame.type() == 'S') {
                // pgward's own SHOW changes nothing, but whatever the server reports is held to the pins all the same.
                if (parameterStatus(frame)) {
                    frame.bytes().release();
                }
            } else if (searchPath.reply(head, message)) {
                answerWhenIdle();
                drainBacklog();
            }
            return;
        }
        switch (message) {
            case BackendMessage.Run run -> relay(run);
            case BackendMessage.Frame frame -> fromBackend(frame);
        }
    }

    private void relay(BackendMessage.Run run) {
        metrics.toClient(run.bytes().readableBytes(), run.dataRows());
        if (rowCap == null) {
            client.write(run.bytes(), clientWrites);
        } else if (rowCap.relay(run.bytes(), run.dataRows(), client)) {
            capPassed();
        }
    }

    private void fromBackend(BackendMessage.Frame frame) {
        if (Completions.counts(frame.type()) && completions.arrivedIsPgwards(frame.type())) {
            frame.bytes().release();
            if (frame.type() == Completions.CLOSE && skipQuestion.closeCompleted()) {
                drainBacklog();
            }
            return;
        }
        // An error counts for the requests even where the row cap answers the client in its place.
        Map<Character, String> error = frame.type() == 'E' ? PgError.fields(frame.body()) : null;
        boolean skipping = error != null && errorNoted(error);
        if (rowCap != null && frame.type() != 'Z' && frame.type() != 'S' && rowCap.consumes(frame, client)) {
            if (error == null && rowCap.discarding() && inFlight.head() == null) {
                // The capped statement finished before its cancel, in the open request: the rest of the request is
                // treated as PostgreSQL treats it after a failure, up to the Sync whose ReadyForQuery the cap awaits.
                inFlight.errorArrived();
            }
            capProgress();
            if (skipping) {
                drainBacklog();
            }
            return;
        }
        if (frame.type() == 'C') {
            schemaWatch.commandComplete(frame);
            failedBlock.commandComplete(frame);
        }
        switch (frame.type()) {
            case 'Z' -> readyForQuery(frame);
            case 'E' -> relayError(frame, error, skipping);
            case 'S' -> {
                if (parameterStatus(frame)) {
                    client.write(frame.bytes(), clientWrites);
                }
            }
            case 'K', 'R' -> {
                frame.bytes().release();
                throw new ProtocolException("the database server sent an authentication message mid-session");
            }
            default -> client.write(frame.bytes(), clientWrites);
        }
    }

    /**
     * Takes note of a ParameterStatus; false (and the frame released, the session ended, the backend never reused)
     * when it reports a setting the read-only policy pins at another value.
     */
    private boolean parameterStatus(BackendMessage.Frame frame) {
        PgError violation = settings.note(frame);
        if (violation != null) {
            frame.bytes().release();
            lease.taint();
            end(violation);
        }
        return violation == null;
    }

    private void readyForQuery(BackendMessage.Frame frame) {
        char status = (char) frame.body().getByte(0);
        backend.transactionStatus(status);
        failedBlock.ready(status);
        portals.ready(status);
        schemaWatch.transactionStatus(status);
        InFlight.Request done = inFlight.retire();
        boolean confirming = searchPath.unconfirmed();
        if (done != null && done.kind() == InFlight.Kind.CLIENT) {
            typeNames.retired(done.id(), done.errored());
            judged.retired(done.id(), done.errored());
            portals.retired(done.id(), done.errored());
            searchPath.retired(done.id());
            completions.ended(done.id());
        }
        if (rowCap != null && rowCap.holdsReady(frame)) {
            capProgress();
            return;
        }
        deliverReady(frame.bytes());
        if (done != null && done.kind() == InFlight.Kind.CAP_ABORT) {
            rowCap.settled();
            drainBacklog();
        } else if (confirming && !searchPath.unconfirmed()) {
            drainBacklog();
        }
    }

    private void deliverReady(ByteBuf ready) {
        client.write(ready, clientWrites);
        answerWhenIdle();
        endIfDrained();
    }

    private void answerWhenIdle() {
        Verdict.Answer answer = inFlight.dueAnswer();
        if (answer != null) {
            writeAnswer(answer);
            drainBacklog();
        }
    }

    /**
     * The server failed a message: the request it belongs to is marked failed. True when it answers pgward's question
     * whether the server skips to the Sync ({@link SkipQuestion}).
     */
    private boolean errorNoted(Map<Character, String> fields) {
        InFlight.Request failed = inFlight.head();
        if (failed == null) {
            completions.ended(inFlight.openId());
        } else if (failed.kind() == InFlight.Kind.CLIENT) {
            completions.ended(failed.id());
        }
        inFlight.errorArrived();
        String severity = fields.getOrDefault('V', fields.get('S'));
        backendSentFatal |= "FATAL".equals(severity) || "PANIC".equals(severity);
        return skipQuestion.failed();
    }

    private void relayError(BackendMessage.Frame frame, Map<Character, String> fields, boolean skipping) {
        if (!replacements.answeredRefusal(frame, fields)) {
            client.write(frame.bytes(), clientWrites);
        }
        if (skipping) {
            drainBacklog();
        }
    }

    // ---------------------------------------------------------------- the row cap

    /**
     * A result passed the row cap: the statement is cancelled, so that PostgreSQL fails it with its own error
     * semantics. The client is not read until the cancel has been delivered: it must not hit a later statement.
     */
    private void capPassed() {
        metrics.rowCapStop();
        readClientIfAllowed();
        lease.cancel().whenComplete((v, e) -> {
            rowCap.cancelDelivered();
            if (!ended) {
                capProgress();
                backend.channel().flush();
                client.flush();
            }
        });
    }

    /**
     * Settles a capped result once it is over and its cancel delivered: a held ReadyForQuery of an open
     * transaction is replaced by the result of a statement that fails, so the transaction is aborted as
     * PostgreSQL would have aborted it; then client messages flow again.
     */
    private void capProgress() {
        if (!rowCap.readyToSettle()) {
            return;
        }
        BackendMessage.Frame ready = rowCap.takeHeldReady();
        // With later requests already in flight the abort would land behind them; then the server's state stands
        // (documented with the row cap).
        if (ready != null && backend.transactionStatus() == 'T' && !inFlight.owesReady()) {
            ready.bytes().release();
            rowCap.aborting();
            replacements.abortTransaction();
            return;
        }
        rowCap.settled();
        if (ready != null) {
            deliverReady(ready.bytes());
        }
        drainBacklog();
    }

    // ---------------------------------------------------------------- the end

    /**
     * Ends the session once: the client is told {@code error} (if any) and closed; the backend goes back to
     * the pool when it owes nothing, otherwise its query is cancelled and the connection closed.
     */
    void end(PgError error) {
        if (ended) {
            return;
        }
        ended = true;
        pause.gone(this);
        metrics.sessionClosed();
        backlog.forEach(ReferenceCountUtil::release);
        backlog.clear();
        if (rowCap != null) {
            rowCap.release();
        }
        if (error != null && client.isActive()) {
            closeClientAfter(error.encode(client.alloc()));
        } else if (backendSentFatal && client.isActive()) {
            closeClientAfter(Unpooled.EMPTY_BUFFER);
        } else {
            client.close();
        }
        lease.giveBack(inFlight.owesReady());
        onEnd.run();
    }

    /**
     * Writes {@code last} and closes the client once everything written before it has gone out. A plain close
     * would drop what a slow client has not yet taken from pgward's write buffer: the tail of the last result and
     * the server's own FATAL, which PostgreSQL, exiting, leaves in its socket to be delivered. A client that has
     * stopped reading altogether is closed after {@link #CLOSE_WAIT}.
     */
    private void closeClientAfter(ByteBuf last) {
        ScheduledFuture<?> bound = client.eventLoop().schedule(() -> client.close(), CLOSE_WAIT.toMillis(),
                TimeUnit.MILLISECONDS);
        client.writeAndFlush(last).addListener(f -> {
            bound.cancel(false);
            client.close();
        });
    }
}
