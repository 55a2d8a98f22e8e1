package io.pgward.wire.relay;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.ReferenceCountUtil;
import io.pgward.guard.Verdict;
import io.pgward.wire.audit.AuditLog;
import io.pgward.wire.audit.ConnectionLog;
import io.pgward.wire.gate.GateRequest;
import io.pgward.wire.gate.StatementGate;
import io.pgward.wire.local.LocalAnswer;
import io.pgward.wire.pool.BackendConnection;
import io.pgward.wire.pool.BackendPool;
import io.pgward.wire.pool.BackendReset;
import io.pgward.wire.protocol.BackendMessage;
import io.pgward.wire.protocol.FrontendMessage;
import io.pgward.wire.protocol.Messages;
import io.pgward.wire.protocol.PgError;
import io.pgward.wire.protocol.ProtocolException;
import io.pgward.wire.protocol.SqlState;
import io.pgward.wire.protocol.Wire;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One client session relayed to one backend connection. Confined to the client channel's event loop, which is
 * also the backend channel's: no locks.
 *
 * <p>Client messages pass in order. Query, Parse and FunctionCall go through the {@link StatementGate}; all
 * others are forwarded as they arrived. Backend output is forwarded as runs of bytes; only ReadyForQuery,
 * ErrorResponse, ParameterStatus (and, for the row cap, CommandComplete and PortalSuspended) are read.
 *
 * <p><b>States.</b> The session is relaying until it has {@code ended} (then whatever arrives is released). What
 * it waits for is kept in three places:
 * <ul>
 *   <li>{@link InFlight}: the requests the backend owes a ReadyForQuery, oldest first (the client's, each with
 *       the refusals sent in it; pgward's own SHOW search_path; the row cap's abort), and a local answer waiting
 *       behind them;</li>
 *   <li>{@link RowCap}: COUNTING, or a capped result being CUTTING, DISCARDING, SETTLING or ABORTING;</li>
 *   <li>{@code awaitingGate}: a verdict is being decided off the event loop.</li>
 * </ul>
 * A client message is handled at once unless {@link #clientWaits()}; then it waits in {@code backlog}, which is
 * drained in order whenever a wait ends. {@link #mayReadClient()} alone decides whether the client is read. The
 * search_path the gate is given is kept in {@link SearchPath}; what is worked out around a verdict (fail closed,
 * audit, what replaces the server's error for a refusal) is in {@link Verdicts}.
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
 * server's own error (22021) instead of being judged, and a ParameterStatus that reports client_encoding,
 * standard_conforming_strings or default_transaction_read_only at another value ends the session with FATAL and
 * closes the backend connection, which never returns to the pool (fail closed).
 *
 * <p><b>Refusals are executed by PostgreSQL itself.</b> A refused statement is replaced by a statement that
 * cannot parse, named with a per-session random token ({@code pgward_refused_<nonce>_<n>}); the server's syntax
 * error for it is replaced by pgward's refusal on the way back. Every protocol consequence of an error is
 * therefore PostgreSQL's own: the ErrorResponse is flushed at once, the extended protocol skips to Sync, an
 * open transaction block goes to the aborted state (status E, later statements get 25P02, COMMIT reports
 * ROLLBACK, ROLLBACK TO SAVEPOINT recovers), a refused prepared statement name does not exist (26000), and
 * pipelined batches stay in order. The refused text never reaches the server.
 *
 * <pre>
 *   client                 pgward                               PostgreSQL
 *   Parse(S1, DROP ...) ─▶ gate: refuse ─▶ Parse(S1, pgward_refused_x_1)
 *                                       ◀─ ErrorResponse 42601 (names pgward_refused_x_1)
 *   ◀─ ErrorResponse 42501 "pgward refused this statement: ..."
 *   Bind(S1), Execute   ─▶ forwarded ──▶ (server skips them until Sync)
 *   Sync                ─▶ forwarded ──▶   ◀─ ReadyForQuery
 * </pre>
 */
public final class Session {

    private static final Logger log = LoggerFactory.getLogger(Session.class);
    private static final int BACKLOG_READ_LIMIT = 64;

    private final Channel client;
    private final BackendConnection backend;
    private final BackendPool pool;
    private final StatementGate gate;
    private final String connection;
    private final String login;
    private final String database;
    private final String refusalPrefix;
    private final Deque<FrontendMessage> backlog = new ArrayDeque<>();
    private final InFlight inFlight = new InFlight();
    private final Runnable onEnd;
    private final AuditLog audit;
    private int substitutionCount;
    private boolean awaitingGate;
    private boolean backendSentFatal;
    /** The backend reported a setting its read-only policy pins to another value: never reused. */
    private boolean backendTainted;
    private boolean ended;
    /** The login's row cap, null when it has none. */
    private final RowCap rowCap;
    private final SearchPath searchPath;
    /** DDL ran in the open transaction: its end changes the schema others see. */
    private boolean ddlInTransaction;

    public Session(String connection, Channel client, BackendConnection backend, BackendPool pool,
                   StatementGate gate, String login, String database, long nonce, AuditLog audit, long rowCap,
                   Runnable onEnd) {
        this.rowCap = rowCap > 0 ? new RowCap(rowCap, login) : null;
        this.connection = connection;
        this.audit = audit;
        this.client = client;
        this.backend = backend;
        this.pool = pool;
        this.gate = gate;
        this.login = login;
        this.database = database;
        this.refusalPrefix = "pgward_refused_" + Long.toHexString(nonce) + "_";
        this.onEnd = onEnd;
        this.searchPath = new SearchPath(gate.wantsSearchPath(), backend.parameters());
    }

    /** Installs the relay handlers; called on the event loop once the client is told it may send queries. */
    public void start() {
        client.pipeline().addLast("session", new ClientSide());
        backend.channel().pipeline().addLast("session", new BackendSide());
        backend.channel().config().setAutoRead(true);
        if (searchPath.askAtStart()) {
            askSearchPath();
            backend.channel().flush();
        }
    }

    public BackendConnection backend() {
        return backend;
    }

    /** Relays a client's CancelRequest to the backend, with the backend's own keys. */
    public void cancel() {
        pool.connector().cancel(backend.channel().eventLoop(), backend);
    }

    // ---------------------------------------------------------------- client to backend

    private void fromClient(FrontendMessage message) {
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
        switch (message) {
            case FrontendMessage.Query q -> judge(message, GateRequest.Kind.SIMPLE_QUERY, q.sql(), new int[0]);
            case FrontendMessage.Parse p -> judge(message, GateRequest.Kind.PARSE, p.sql(), p.parameterTypes());
            case FrontendMessage.FunctionCall f -> judge(message, GateRequest.Kind.FUNCTION_CALL,
                    "fast-path call of function " + f.functionOid(), new int[0]);
            case FrontendMessage.Sync s -> forward(message, true);
            case FrontendMessage.Terminate t -> {
                message.release();
                end(null);
            }
            case FrontendMessage.AuthenticationResponse a -> {
                message.release();
                throw new ProtocolException("invalid frontend message type 112");
            }
            case FrontendMessage.Bind b -> forward(message, false);
            case FrontendMessage.Describe d -> forward(message, false);
            case FrontendMessage.Execute e -> forward(message, false);
            case FrontendMessage.Close c -> forward(message, false);
            case FrontendMessage.Flush f -> forward(message, false);
            case FrontendMessage.Copy c -> forward(message, false);
        }
    }

    private void judge(FrontendMessage message, GateRequest.Kind kind, String sql, int[] parameterTypes) {
        long started = System.nanoTime();
        String invalid = backend.target().pins() == null ? null : Verdicts.invalidUtf8(message);
        if (invalid != null) {
            // Decoded with replacement characters, the text is not what the server reads: refused, not judged.
            apply(message, audited(sql, started, Verdicts.invalidEncoding(invalid)));
            return;
        }
        CompletableFuture<Verdict> verdict;
        try {
            verdict = gate.check(new GateRequest(kind, sql, parameterTypes, login, database,
                    standardConformingStrings(), searchPath.current())).toCompletableFuture();
        } catch (RuntimeException e) {
            verdict = CompletableFuture.failedFuture(e);
        }
        if (verdict.isDone()) {
            apply(message, audited(sql, started, Verdicts.failClosed(verdict, connection)));
            return;
        }
        awaitingGate = true;
        readClientIfAllowed();
        CompletableFuture<Verdict> pending = verdict;
        pending.whenComplete((v, e) -> client.eventLoop().execute(() -> {
            awaitingGate = false;
            if (ended) {
                message.release();
                return;
            }
            apply(message, audited(sql, started, Verdicts.failClosed(pending, connection)));
            drainBacklog();
            backend.channel().flush();
            client.flush();
        }));
    }

    private Verdict audited(String sql, long started, Verdict verdict) {
        if (audit != null) {
            audit.record(Verdicts.auditEntry(connection, login, database, sql, (System.nanoTime() - started) / 1000,
                    verdict));
        }
        return verdict;
    }

    private void apply(FrontendMessage message, Verdict verdict) {
        boolean endsBatch = !(message instanceof FrontendMessage.Parse);
        switch (verdict) {
            case Verdict.Allow a -> {
                searchPath.mayChange(a.changesSearchPath());
                forward(message, endsBatch);
            }
            case Verdict.Refuse r -> substitute(message, r, endsBatch);
            case Verdict.Rewrite rewrite -> rewrite(message, rewrite, endsBatch);
            case Verdict.Answer answer -> {
                switch (message) {
                    case FrontendMessage.Query q -> answerLocally(message, answer);
                    case FrontendMessage.Parse p -> answerThroughBackend(p, answer);
                    default -> substitute(message, new Verdict.Refuse(SqlState.FEATURE_NOT_SUPPORTED,
                            "pgward cannot answer a fast-path function call"), endsBatch);
                }
            }
        }
    }

    private void forward(FrontendMessage message, boolean endsBatch) {
        if (endsBatch) {
            inFlight.closeClientRequest();
        }
        backend.channel().write(message.frame());
        if (endsBatch && searchPath.askAfterRequest()) {
            askSearchPath();
        }
    }

    /** Tells the gate of DDL at once (others may see it if it commits) and again when its transaction ends. */
    private void watchSchema(BackendMessage.Frame frame) {
        String tag = Wire.readCString(frame.body());
        if (SchemaTags.changesSchema(tag)) {
            ddlInTransaction = true;
            gate.schemaChanged();
        }
    }

    // ---------------------------------------------------------------- search_path

    /**
     * Asks the server for the session's search_path behind everything already sent; the reply is pgward's
     * own and never reaches the client. SHOW takes no snapshot, so it cannot change what a transaction sees or
     * make a later SET TRANSACTION fail. In an aborted transaction it fails, and the last value stands: the
     * statement that might have changed it failed too.
     */
    private void askSearchPath() {
        inFlight.probeSearchPath();
        backend.channel().write(Messages.query(backend.channel().alloc(), "SHOW search_path"));
    }

    private void searchPathReply(InFlight.Request probe, BackendMessage message) {
        if (message instanceof BackendMessage.Frame frame && frame.type() == 'Z') {
            backend.transactionStatus((char) frame.body().getByte(0));
            inFlight.retire();
            frame.bytes().release();
            searchPath.shown(probe.shown());
            answerWhenIdle();
            drainBacklog();
            return;
        }
        if (message instanceof BackendMessage.Run run && probe.shown() == null) {
            probe.shown(Messages.firstTextValue(run.bytes()));
        }
        if (message instanceof BackendMessage.Frame frame && frame.type() == 'S') {
            // pgward's own SHOW changes nothing, but whatever the server reports is held to the pins all the same.
            if (parameterStatus(frame)) {
                frame.bytes().release();
            }
            return;
        }
        message.bytes().release();
    }

    private void substitute(FrontendMessage message, Verdict.Refuse refusal, boolean endsBatch) {
        String token = refusalPrefix + (++substitutionCount);
        ByteBuf replacement = message instanceof FrontendMessage.Parse p
                ? Messages.parse(backend.channel().alloc(), p.statement(), token)
                : Messages.query(backend.channel().alloc(), token);
        message.release();
        inFlight.substituted(token, refusal);
        ConnectionLog.info(log, connection, "refused for login {}: {}", login, refusal.message());
        if (endsBatch) {
            inFlight.closeClientRequest();
        }
        backend.channel().write(replacement);
    }

    /**
     * The backend runs the rewritten statement in place of the client's: as the Query, or prepared under the
     * client's statement name, so everything after it is PostgreSQL's own.
     */
    private void rewrite(FrontendMessage message, Verdict.Rewrite rewrite, boolean endsBatch) {
        if (message instanceof FrontendMessage.FunctionCall) {
            substitute(message, new Verdict.Refuse(SqlState.FEATURE_NOT_SUPPORTED,
                    "pgward cannot rewrite a fast-path function call"), endsBatch);
            return;
        }
        for (String notice : rewrite.notices()) {
            client.write(LocalAnswer.notice(client.alloc(), notice));
        }
        ByteBuf replacement = message instanceof FrontendMessage.Parse p
                ? Messages.parse(backend.channel().alloc(), p.statement(), rewrite.sql())
                : Messages.query(backend.channel().alloc(), rewrite.sql());
        message.release();
        if (endsBatch) {
            inFlight.closeClientRequest();
        }
        backend.channel().write(replacement);
    }

    /** Parse of a statement pgward answers: the backend prepares the answer as a query under the same name. */
    private void answerThroughBackend(FrontendMessage.Parse parse, Verdict.Answer answer) {
        rewrite(parse, new Verdict.Rewrite(LocalAnswer.asQuery(answer,
                Verdicts.parameterCount(parse, standardConformingStrings())), answer.notices()),
                false);
    }

    /** How the server reads backslashes in '...' strings right now, as it last reported. */
    private boolean standardConformingStrings() {
        return !"off".equals(backend.parameters().get("standard_conforming_strings"));
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
        LocalAnswer.write(client, answer);
        client.write(Messages.readyForQuery(client.alloc(), backend.transactionStatus()));
    }

    // ---------------------------------------------------------------- whether the client is read

    /**
     * The next client message waits while a verdict is pending, a capped result is being settled, or pgward's own
     * reply (its SHOW search_path, a local answer) must come first.
     */
    private boolean clientWaits() {
        return awaitingGate || (rowCap != null && rowCap.holdsClient()) || inFlight.waitsForPgward();
    }

    /**
     * The one answer to "may the client be read now?": not once the session ended, not while its next message
     * would have to wait, not with a full backlog, and not while the backend cannot take more (back pressure).
     */
    private boolean mayReadClient() {
        return !ended && !clientWaits() && backlog.size() < BACKLOG_READ_LIMIT && backend.channel().isWritable();
    }

    private void readClientIfAllowed() {
        client.config().setAutoRead(mayReadClient());
    }

    private void drainBacklog() {
        while (!clientWaits() && !ended && !backlog.isEmpty()) {
            process(backlog.pollFirst());
        }
        readClientIfAllowed();
    }

    // ---------------------------------------------------------------- backend to client

    private void fromBackend(BackendMessage message) {
        InFlight.Request head = inFlight.head();
        if (head != null && head.kind() == InFlight.Kind.SEARCH_PATH) {
            searchPathReply(head, message);
            return;
        }
        switch (message) {
            case BackendMessage.Run run -> relay(run);
            case BackendMessage.Frame frame -> fromBackend(frame);
        }
    }

    private void relay(BackendMessage.Run run) {
        if (rowCap == null) {
            client.write(run.bytes());
        } else if (rowCap.relay(run.bytes(), run.dataRows(), client)) {
            capPassed();
        }
    }

    private void fromBackend(BackendMessage.Frame frame) {
        if (rowCap != null && frame.type() != 'Z' && frame.type() != 'S' && rowCap.consumes(frame, client)) {
            capProgress();
            return;
        }
        if (frame.type() == 'C' && gate.watchesSchemaChanges()) {
            watchSchema(frame);
        }
        switch (frame.type()) {
            case 'Z' -> readyForQuery(frame);
            case 'E' -> error(frame);
            case 'S' -> {
                if (parameterStatus(frame)) {
                    client.write(frame.bytes());
                }
            }
            case 'K', 'R' -> {
                frame.bytes().release();
                throw new ProtocolException("the database server sent an authentication message mid-session");
            }
            default -> client.write(frame.bytes());
        }
    }

    /**
     * Takes note of a ParameterStatus; false (and the frame released, the session ended) when it reports a
     * setting the read-only policy pins at another value. Fail closed: the server would now read statements
     * differently from how pgward judges them.
     */
    private boolean parameterStatus(BackendMessage.Frame frame) {
        ByteBuf body = frame.body();
        String name = Wire.readCString(body);
        String value = Wire.readCString(body);
        String violation = backend.target().pins() == null ? null : backend.target().pins().violation(name, value);
        if (violation != null) {
            frame.bytes().release();
            ConnectionLog.warn(log, connection, "ending the session of read-only login {}: the database server "
                    + "reports {}", login, violation);
            backendTainted = true;
            end(PgError.fatal(SqlState.INSUFFICIENT_PRIVILEGE, "pgward ended the session of the read-only login \""
                    + login + "\": the database server reports " + violation));
            return false;
        }
        backend.parameters().put(name, value);
        searchPath.reported(name, value);
        return true;
    }

    private void readyForQuery(BackendMessage.Frame frame) {
        char status = (char) frame.body().getByte(0);
        backend.transactionStatus(status);
        if (ddlInTransaction && status == 'I') {
            ddlInTransaction = false;
            gate.schemaChanged();
        }
        InFlight.Request done = inFlight.retire();
        if (rowCap != null && rowCap.holdsReady(frame)) {
            capProgress();
            return;
        }
        deliverReady(frame.bytes());
        if (done != null && done.kind() == InFlight.Kind.CAP_ABORT) {
            rowCap.settled();
            drainBacklog();
        }
    }

    private void deliverReady(ByteBuf ready) {
        client.write(ready);
        answerWhenIdle();
    }

    private void answerWhenIdle() {
        Verdict.Answer answer = inFlight.dueAnswer();
        if (answer != null) {
            writeAnswer(answer);
            drainBacklog();
        }
    }

    private void error(BackendMessage.Frame frame) {
        Map<Character, String> fields = PgError.fields(frame.body());
        String severity = fields.getOrDefault('V', fields.get('S'));
        backendSentFatal |= "FATAL".equals(severity) || "PANIC".equals(severity);
        InFlight.Substitution head = inFlight.nextSubstitution();
        if (head != null) {
            String message = fields.getOrDefault('M', "");
            if (SqlState.SYNTAX_ERROR.equals(fields.get('C')) && message.contains(head.token())) {
                inFlight.substitutionAnswered();
                client.write(Verdicts.inPlaceOf(client.alloc(), frame.body(), head, backend.transactionStatus()));
                frame.bytes().release();
                return;
            }
        }
        client.write(frame.bytes());
    }

    // ---------------------------------------------------------------- the row cap

    /**
     * A result passed the row cap: its later rows are already being dropped; the statement is cancelled so the
     * server stops producing them and fails it, which gives the client PostgreSQL's own error semantics (the
     * transaction aborts, the rest of a Query is skipped). Nothing more from the client reaches the server until
     * the cancel has been delivered, so that it cannot hit a later statement.
     */
    private void capPassed() {
        readClientIfAllowed();
        pool.connector().cancel(backend.channel().eventLoop(), backend).whenComplete((v, e) -> {
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
            inFlight.abortFirst();
            backend.channel().write(Messages.query(backend.channel().alloc(), refusalPrefix + (++substitutionCount)));
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
    private void end(PgError error) {
        if (ended) {
            return;
        }
        ended = true;
        backlog.forEach(ReferenceCountUtil::release);
        backlog.clear();
        if (rowCap != null) {
            rowCap.release();
        }
        if (error != null && client.isActive()) {
            client.writeAndFlush(error.encode(client.alloc())).addListener(f -> client.close());
        } else {
            client.close();
        }
        Channel channel = backend.channel();
        // A tainted backend is closed at once; its handler stays to release what the current read still holds.
        if (!backendTainted && channel.pipeline().get("session") != null) {
            channel.pipeline().remove("session");
        }
        if (!channel.isActive() || backendTainted) {
            pool.discard(backend);
        } else if (!inFlight.owesReady()) {
            BackendReset.start(pool, backend);
        } else {
            pool.connector().cancel(channel.eventLoop(), backend);
            pool.discard(backend);
        }
        onEnd.run();
    }

    private final class ClientSide extends ChannelInboundHandlerAdapter {
        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            fromClient((FrontendMessage) msg);
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            backend.channel().flush();
            // A local answer is written while reading the client, with nothing coming from the backend to flush it.
            client.flush();
        }

        @Override
        public void channelWritabilityChanged(ChannelHandlerContext ctx) {
            backend.channel().config().setAutoRead(ctx.channel().isWritable());
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            end(null);
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            end(fatal(cause));
        }
    }

    private final class BackendSide extends ChannelInboundHandlerAdapter {
        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (ended) {
                ReferenceCountUtil.release(msg instanceof BackendMessage m ? m.bytes() : msg);
                return;
            }
            fromBackend((BackendMessage) msg);
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            client.flush();
            backend.channel().flush();
        }

        @Override
        public void channelWritabilityChanged(ChannelHandlerContext ctx) {
            readClientIfAllowed();
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            // A FATAL the server sent before closing has been forwarded already and says it all.
            client.flush();
            end(backendSentFatal ? null : PgError.fatal(SqlState.CONNECTION_FAILURE,
                    "pgward lost the connection to the database server"));
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            ConnectionLog.warn(log, connection, "backend connection failed: {}", cause.toString());
            ctx.close();
        }
    }

    private PgError fatal(Throwable cause) {
        if (cause instanceof io.netty.handler.codec.DecoderException && cause.getCause() != null) {
            cause = cause.getCause();
        }
        if (cause instanceof ProtocolException p) {
            return PgError.fatal(p.sqlState(), p.getMessage());
        }
        ConnectionLog.warn(log, connection, "client connection failed: {}", cause.toString());
        return PgError.fatal(SqlState.PROTOCOL_VIOLATION, "pgward closed the connection: " + cause.getMessage());
    }
}
