package io.pgward.wire.local;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.ReferenceCountUtil;
import io.pgward.guard.Verdict;
import io.pgward.wire.clients.ConnectedClient;
import io.pgward.wire.audit.AuditLog;
import io.pgward.wire.audit.ConnectionLog;
import io.pgward.wire.config.PgwardConfig;
import io.pgward.wire.protocol.FrontendMessage;
import io.pgward.wire.protocol.MalformedMessage;
import io.pgward.wire.protocol.Messages;
import io.pgward.wire.protocol.PgError;
import io.pgward.wire.protocol.ProtocolException;
import io.pgward.wire.protocol.SqlState;
import io.pgward.wire.protocol.Wire;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A client session on a {@link LocalDatabase}: pgward speaks the server side of the protocol itself, simple
 * and extended, with one statement running at a time. Confined to the client's event loop.
 *
 * <p>In the extended protocol a portal runs when it is first described or executed, so Describe can report its
 * columns; its rows are then handed out by Execute, with PortalSuspended when the client asks for fewer. After
 * an error every message up to Sync is skipped, as PostgreSQL does. Transactions do not exist here: every
 * ReadyForQuery says idle.
 */
public final class LocalSession extends ChannelInboundHandlerAdapter implements ConnectedClient.Control {

    private static final Logger log = LoggerFactory.getLogger(LocalSession.class);
    private static final int QUEUE_READ_LIMIT = 64;
    private static final int TEXT_OID = 25;

    private final Channel client;
    private final LocalDatabase database;
    private final String connection;
    private final String login;
    private final String databaseName;
    /** The login's policy: its mode, and what the database applies of its selection, row cap and timeout. */
    private final PgwardConfig.Policy policy;
    private final AuditLog audit;
    private final Runnable onEnd;
    private final Deque<FrontendMessage> queue = new ArrayDeque<>();
    private final Map<String, Prepared> statements = new HashMap<>();
    private final Map<String, Portal> portals = new HashMap<>();
    private CompletableFuture<Verdict.Answer> running;
    /** The simple Query whose rows are streaming, for writability changes. */
    private volatile ClientStream streaming;
    private boolean skippingToSync;
    private boolean ended;
    /** The session ends with this at its next ReadyForQuery ({@link #endWhenIdle}). */
    private PgError pendingEnd;
    /** The last thing the client got was ReadyForQuery and nothing it sent since has been taken up. */
    private boolean betweenExchanges = true;

    private record Prepared(String sql, int[] parameterTypes) {
    }

    private static final class Portal {
        final String sql;
        final List<String> parameters;
        final List<Integer> parameterTypes;
        final boolean empty;
        Verdict.Answer result;
        int sent;

        Portal(String sql, List<String> parameters, List<Integer> parameterTypes, boolean empty) {
            this.sql = sql;
            this.parameters = parameters;
            this.parameterTypes = parameterTypes;
            this.empty = empty;
        }
    }

    public LocalSession(String connection, Channel client, LocalDatabase database, String login, String databaseName,
                        boolean readOnly, AuditLog audit, Runnable onEnd) {
        this(connection, client, database, login, databaseName, PgwardConfig.Policy.of(readOnly
                ? PgwardConfig.Mode.READ_ONLY : PgwardConfig.Mode.READ_WRITE), audit, onEnd);
    }

    public LocalSession(String connection, Channel client, LocalDatabase database, String login, String databaseName,
                        PgwardConfig.Policy policy, AuditLog audit, Runnable onEnd) {
        this.connection = connection;
        this.client = client;
        this.database = database;
        this.login = login;
        this.databaseName = databaseName;
        this.policy = policy;
        this.audit = audit;
        this.onEnd = onEnd;
    }

    /** Cancels the running statement, if any: the client gets 57014 as from PostgreSQL. */
    public void cancel() {
        client.eventLoop().execute(() -> {
            if (running != null) {
                running.completeExceptionally(new LocalDatabaseException(SqlState.QUERY_CANCELED,
                        "canceling statement due to user request", null, null, "error", null));
            }
        });
    }

    /**
     * Ends the session with {@code why} at its next ReadyForQuery, as the relay does: what the client already sent
     * runs, an exchange under way goes on to its Sync (pgjdbc would otherwise take the FATAL that cuts it for the
     * answer to its statement), and nothing but a Sync that it sends later is taken up.
     */
    @Override
    public void endWhenIdle(PgError why) {
        client.eventLoop().execute(() -> {
            if (!ended && pendingEnd == null) {
                pendingEnd = why;
                endIfBetweenExchanges();
            }
        });
    }

    private void endIfBetweenExchanges() {
        if (pendingEnd != null && running == null && betweenExchanges) {
            endWith(pendingEnd);
        }
    }

    /** Ends the session with {@code why} now, cancelling its running statement. */
    @Override
    public void endNow(PgError why) {
        client.eventLoop().execute(() -> endWith(why));
    }

    /** {@code active} while a statement runs, else {@code idle} (there are no transactions here). */
    @Override
    public CompletionStage<String> state() {
        CompletableFuture<String> state = new CompletableFuture<>();
        client.eventLoop().execute(() -> state.complete(ended || pendingEnd != null ? "closing"
                : running != null ? "active" : "idle"));
        return state;
    }

    /** Whether no statement runs. */
    @Override
    public CompletionStage<Boolean> quiet() {
        CompletableFuture<Boolean> quiet = new CompletableFuture<>();
        client.eventLoop().execute(() -> quiet.complete(ended || running == null));
        return quiet;
    }

    private void endWith(PgError why) {
        if (ended) {
            return;
        }
        if (client.isActive()) {
            client.writeAndFlush(why.encode(client.alloc())).addListener(f -> client.close());
        }
        end(false);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (ended || pendingEnd != null && !(msg instanceof FrontendMessage.Sync)) {
            ReferenceCountUtil.release(msg);
            return;
        }
        queue.addLast((FrontendMessage) msg);
        if (queue.size() >= QUEUE_READ_LIMIT) {
            client.config().setAutoRead(false);
        }
        drain();
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        client.flush();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        end();
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        ClientStream stream = streaming;
        if (stream != null) {
            stream.signal();
        }
        ctx.fireChannelWritabilityChanged();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        Throwable root = cause.getCause() != null && !(cause instanceof ProtocolException) ? cause.getCause() : cause;
        PgError error = root instanceof ProtocolException p ? PgError.fatal(p.sqlState(), p.getMessage())
                : PgError.fatal(SqlState.PROTOCOL_VIOLATION, "pgward closed the connection: " + root.getMessage());
        endWith(error);
    }

    private void end() {
        end(true);
    }

    /** @param close false when the client is closed once a last message has gone out */
    private void end(boolean close) {
        if (ended) {
            return;
        }
        ended = true;
        queue.forEach(ReferenceCountUtil::release);
        queue.clear();
        if (running != null) {
            running.cancel(false);
        }
        ClientStream stream = streaming;
        if (stream != null) {
            stream.close();
        }
        if (close) {
            client.close();
        }
        onEnd.run();
    }

    private void drain() {
        while (running == null && !ended && !queue.isEmpty() && !awaitingWhatFollows()) {
            FrontendMessage message = queue.pollFirst();
            try {
                handle(message);
            } finally {
                message.release();
            }
        }
        if (running == null && queue.size() < QUEUE_READ_LIMIT && !ended) {
            client.config().setAutoRead(true);
        }
        client.flush();
        endIfBetweenExchanges();
    }

    private void handle(FrontendMessage message) {
        if (!(message instanceof FrontendMessage.Flush || message instanceof FrontendMessage.Copy)) {
            betweenExchanges = false;
        }
        if (skippingToSync && !(message instanceof FrontendMessage.Sync)) {
            return;
        }
        switch (message) {
            case FrontendMessage.Query q -> query(q.sql());
            case FrontendMessage.Parse p -> parse(p);
            case FrontendMessage.Bind b -> bind(b);
            case FrontendMessage.Describe d -> describe(d);
            case FrontendMessage.Execute e -> execute(e);
            case FrontendMessage.Close c -> close(c);
            case FrontendMessage.Sync s -> {
                skippingToSync = false;
                portals.remove("");
                ready();
            }
            case FrontendMessage.Flush f -> client.flush();
            case FrontendMessage.Terminate t -> end();
            case FrontendMessage.FunctionCall f -> failRequest(PgError.error(SqlState.FEATURE_NOT_SUPPORTED,
                    "fast-path function calls are not supported on this database"));
            case FrontendMessage.Copy c -> {
                // No COPY runs here. PostgreSQL accepts and ignores CopyData, CopyDone and CopyFail outside one, with
                // no answer and whether or not it skips to a Sync: a client whose COPY failed may still be sending
                // its data. They start no exchange either (a session ending when idle does not wait for them).
            }
            case FrontendMessage.AuthenticationResponse a -> throw new ProtocolException("invalid frontend message type 112");
            case FrontendMessage.Malformed m -> {
                PgError error = PgError.error(SqlState.PROTOCOL_VIOLATION, m.error());
                if (m.endsRequest()) {
                    failRequest(error);
                } else {
                    fail(error);
                }
            }
        }
    }

    /** A Query or FunctionCall failed: its error, then ReadyForQuery, and nothing is skipped after it. */
    private void failRequest(PgError error) {
        client.write(error.encode(client.alloc()));
        ready();
    }

    // ---------------------------------------------------------------- simple protocol

    private void query(String sql) {
        // As in PostgreSQL, a simple query replaces the unnamed statement and portal.
        statements.remove("");
        portals.remove("");
        if (database.isEmpty(sql)) {
            client.write(emptyQueryResponse());
            ready();
            return;
        }
        ClientStream stream = new ClientStream();
        streaming = stream;
        run(statement -> database.stream(statement, stream), sql, List.of(), List.of(), answer -> {
            stream.close();
            streaming = null;
            if (stream.started) {
                answer.notices().forEach(notice -> client.write(LocalAnswer.notice(client.alloc(), notice)));
                client.write(LocalAnswer.commandComplete(client.alloc(), answer.commandTag()));
            } else {
                // No columns: a write that returned no rows, which has only its command tag, as an INSERT does.
                LocalAnswer.write(client, answer, !answer.columns().isEmpty());
            }
            ready();
        }, error -> {
            stream.close();
            streaming = null;
            failRequest(error);
        });
    }

    /**
     * A simple Query's rows on their way to the client while the statement still runs. The statement's thread
     * hands each batch to the event loop and then waits while the channel is not writable, so the outbound
     * buffer, not the heap, holds what the client has not read yet; rows that arrive after the statement ended
     * for the client (a cancel) are dropped.
     */
    private final class ClientStream implements LocalDatabase.ResultStream {

        private final Object writable = new Object();
        /** Confined to the event loop: RowDescription went out. */
        private boolean started;
        private volatile boolean open = true;

        @Override
        public void columns(List<String> names) {
            onLoop(() -> {
                started = true;
                client.write(LocalAnswer.rowDescription(client.alloc(), names));
            });
        }

        @Override
        public void rows(List<List<String>> batch) {
            List<List<String>> rows = List.copyOf(batch);
            onLoop(() -> {
                for (List<String> row : rows) {
                    client.write(LocalAnswer.dataRow(client.alloc(), row));
                }
                client.flush();
            });
            awaitWritable();
        }

        private void onLoop(Runnable write) {
            if (!open) {
                throw new java.util.concurrent.CancellationException("the statement is over for the client");
            }
            if (client.eventLoop().inEventLoop()) {
                write.run();
            } else {
                client.eventLoop().execute(() -> {
                    if (open && !ended) {
                        write.run();
                    }
                });
            }
        }

        private void awaitWritable() {
            if (client.eventLoop().inEventLoop()) {
                return;
            }
            synchronized (writable) {
                while (open && client.isActive() && !client.isWritable()) {
                    try {
                        writable.wait(1_000);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        throw new java.util.concurrent.CancellationException("interrupted");
                    }
                }
            }
            if (!open || !client.isActive()) {
                throw new java.util.concurrent.CancellationException("the statement is over for the client");
            }
        }

        void signal() {
            synchronized (writable) {
                writable.notifyAll();
            }
        }

        void close() {
            open = false;
            signal();
        }
    }

    // ---------------------------------------------------------------- extended protocol

    private void parse(FrontendMessage.Parse parse) {
        if (!parse.statement().isEmpty() && statements.containsKey(parse.statement())) {
            fail(PgError.error(SqlState.DUPLICATE_PREPARED_STATEMENT, "prepared statement \"" + parse.statement() + "\" already exists"));
            return;
        }
        statements.put(parse.statement(), new Prepared(parse.sql(), parse.parameterTypes()));
        client.write(Wire.message(client.alloc(), '1', buf -> { }));
    }

    private void bind(FrontendMessage.Bind bind) {
        if (bindPortal(bind)) {
            client.write(bindComplete());
        }
    }

    /** Creates the portal of a Bind; false (the client has the error) when it cannot be bound. */
    private boolean bindPortal(FrontendMessage.Bind bind) {
        Prepared prepared = statements.get(bind.statement());
        if (prepared == null) {
            fail(PgError.error(SqlState.INVALID_SQL_STATEMENT_NAME, "prepared statement \"" + bind.statement() + "\" does not exist"));
            return false;
        }
        if (!bind.portal().isEmpty() && portals.containsKey(bind.portal())) {
            fail(PgError.error(SqlState.DUPLICATE_CURSOR, "cursor \"" + bind.portal() + "\" already exists"));
            return false;
        }
        List<String> values;
        try {
            values = BindValues.read(bind.frame(), prepared.parameterTypes());
        } catch (LocalDatabaseException e) {
            fail(new PgError("ERROR", e.sqlState(), e.getMessage(), null, null, 0));
            return false;
        } catch (MalformedMessage e) {
            fail(PgError.error(SqlState.PROTOCOL_VIOLATION, e.getMessage()));
            return false;
        }
        List<Integer> types = new java.util.ArrayList<>();
        for (int type : prepared.parameterTypes()) {
            types.add(type);
        }
        portals.put(bind.portal(), new Portal(prepared.sql(), values, types, database.isEmpty(prepared.sql())));
        return true;
    }

    /**
     * A Describe of a statement is answered once the next message is here: the columns of a statement pgward
     * answers itself are known only by running it, which needs its parameters. Clients always follow Describe
     * with Bind, Sync or Flush, so the wait ends.
     */
    private boolean awaitingWhatFollows() {
        return !skippingToSync && queue.size() == 1 && queue.peekFirst() instanceof FrontendMessage.Describe d
                && d.kind() == 'S';
    }

    private void describe(FrontendMessage.Describe describe) {
        if (describe.kind() == 'S') {
            describeStatement(describe.name());
            return;
        }
        Portal described = portals.get(describe.name());
        if (described != null && described.empty) {
            client.write(Wire.message(client.alloc(), 'n', buf -> { }));
            return;
        }
        withResult(describe.name(), portal -> client.write(portal.result.columns().isEmpty()
                ? Wire.message(client.alloc(), 'n', buf -> { })
                : LocalAnswer.rowDescription(client.alloc(), portal.result.columns())));
    }

    /**
     * Describe of a statement: its parameter types, then its columns. When the client binds the statement right
     * after (pgjdbc does so for parameters of unspecified type, and takes the columns from this Describe), that
     * portal runs now and its columns are the answer; otherwise they are unknown and the answer is NoData.
     */
    private void describeStatement(String name) {
        Prepared prepared = statements.get(name);
        if (prepared == null) {
            fail(PgError.error(SqlState.INVALID_SQL_STATEMENT_NAME, "prepared statement \"" + name + "\" does not exist"));
            return;
        }
        if (!(queue.peekFirst() instanceof FrontendMessage.Bind bind) || !bind.statement().equals(name)
                || database.isEmpty(prepared.sql())) {
            client.write(parameterDescription(prepared));
            client.write(Wire.message(client.alloc(), 'n', buf -> { }));
            return;
        }
        queue.pollFirst();
        try {
            if (!bindPortal(bind)) {
                return;
            }
        } finally {
            bind.release();
        }
        withResult(bind.portal(), portal -> {
            client.write(parameterDescription(prepared));
            client.write(portal.result.columns().isEmpty() ? Wire.message(client.alloc(), 'n', buf -> { })
                    : LocalAnswer.rowDescription(client.alloc(), portal.result.columns()));
            client.write(bindComplete());
        });
    }

    private void execute(FrontendMessage.Execute execute) {
        Portal executed = portals.get(execute.portal());
        if (executed != null && executed.empty) {
            client.write(emptyQueryResponse());
            return;
        }
        withResult(execute.portal(), portal -> {
            List<List<String>> rows = portal.result.rows();
            int end = execute.maxRows() > 0 ? Math.min(rows.size(), portal.sent + execute.maxRows()) : rows.size();
            for (int i = portal.sent; i < end; i++) {
                client.write(LocalAnswer.dataRow(client.alloc(), rows.get(i)));
            }
            portal.sent = end;
            client.write(end < rows.size() ? Wire.message(client.alloc(), 's', buf -> { })
                    : LocalAnswer.commandComplete(client.alloc(), portal.result.commandTag()));
        });
    }

    private void close(FrontendMessage.Close close) {
        (close.kind() == 'S' ? statements : portals).remove(close.name());
        client.write(Wire.message(client.alloc(), '3', buf -> { }));
    }

    /** Runs the portal first if it has not run yet. */
    private void withResult(String name, java.util.function.Consumer<Portal> then) {
        Portal portal = portals.get(name);
        if (portal == null) {
            fail(PgError.error(SqlState.INVALID_CURSOR_NAME, "portal \"" + name + "\" does not exist"));
            return;
        }
        if (portal.result != null) {
            then.accept(portal);
            return;
        }
        run(portal.sql, portal.parameters, portal.parameterTypes, answer -> {
            portal.result = answer;
            answer.notices().forEach(notice -> client.write(LocalAnswer.notice(client.alloc(), notice)));
            then.accept(portal);
        }, this::fail);
    }

    private void fail(PgError error) {
        client.write(error.encode(client.alloc()));
        skippingToSync = true;
    }

    private ByteBuf parameterDescription(Prepared prepared) {
        return Wire.message(client.alloc(), 't', buf -> {
            buf.writeShort(prepared.parameterTypes().length);
            for (int type : prepared.parameterTypes()) {
                buf.writeInt(type == 0 ? TEXT_OID : type);
            }
        });
    }

    private ByteBuf bindComplete() {
        return Wire.message(client.alloc(), '2', buf -> { });
    }

    private ByteBuf emptyQueryResponse() {
        return Wire.message(client.alloc(), 'I', buf -> { });
    }

    private void ready() {
        client.write(Messages.readyForQuery(client.alloc(), 'I'));
        betweenExchanges = true;
    }

    // ---------------------------------------------------------------- running statements

    /** Runs a statement off the event loop; nothing else is handled until it is done. */
    private void run(String sql, List<String> parameters, List<Integer> parameterTypes,
                     java.util.function.Consumer<Verdict.Answer> onAnswer, java.util.function.Consumer<PgError> onError) {
        run(database::execute, sql, parameters, parameterTypes, onAnswer, onError);
    }

    private void run(java.util.function.Function<LocalDatabase.Statement, CompletionStage<Verdict.Answer>> how,
                     String sql, List<String> parameters, List<Integer> parameterTypes,
                     java.util.function.Consumer<Verdict.Answer> onAnswer, java.util.function.Consumer<PgError> onError) {
        long started = System.nanoTime();
        CompletableFuture<Verdict.Answer> stage;
        try {
            stage = how.apply(new LocalDatabase.Statement(sql, parameters, parameterTypes, login, policy, connection))
                    .toCompletableFuture();
        } catch (RuntimeException e) {
            stage = CompletableFuture.failedFuture(e);
        }
        running = stage;
        client.config().setAutoRead(false);
        stage.whenComplete((answer, failure) -> client.eventLoop().execute(() -> {
            running = null;
            if (ended) {
                return;
            }
            LocalDatabaseException error = failure == null ? null : asError(failure);
            record(sql, started, error);
            if (error == null) {
                onAnswer.accept(answer);
            } else {
                onError.accept(new PgError("ERROR", error.sqlState(), error.getMessage(), error.detail(),
                        error.hint(), 0));
            }
            drain();
        }));
    }

    private LocalDatabaseException asError(Throwable failure) {
        Throwable cause = failure instanceof CompletionException && failure.getCause() != null
                ? failure.getCause() : failure;
        if (cause instanceof LocalDatabaseException e) {
            return e;
        }
        ConnectionLog.warn(log, connection, "local statement failed: {}", cause.toString());
        return LocalDatabaseException.error(SqlState.INTERNAL_ERROR, "pgward could not run this statement: "
                + cause.getMessage());
    }

    private void record(String sql, long started, LocalDatabaseException error) {
        if (audit != null) {
            long micros = (System.nanoTime() - started) / 1000;
            audit.record(new AuditLog.Entry(connection, login, databaseName,
                    error == null ? "allow" : error.verdict(), error == null ? null : error.rule(), sql, micros));
        }
    }
}
