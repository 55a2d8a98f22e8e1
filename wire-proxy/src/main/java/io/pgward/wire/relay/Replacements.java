package io.pgward.wire.relay;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.pgward.guard.Positions;
import io.pgward.guard.Verdict;
import io.pgward.wire.audit.ConnectionLog;
import io.pgward.wire.local.LocalAnswer;
import io.pgward.wire.pool.BackendConnection;
import io.pgward.wire.protocol.BackendMessage;
import io.pgward.wire.protocol.FrontendMessage;
import io.pgward.wire.protocol.Messages;
import io.pgward.wire.protocol.PgError;
import io.pgward.wire.protocol.SqlState;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The statements a {@link Session} writes to the backend in place of its client's, so that PostgreSQL itself gives
 * every protocol consequence (see the session's diagram). Owns the session's token: a refused statement, and the
 * row cap's abort, become a statement that cannot parse, {@code pgward_refused_<nonce>_<n>}; the nonce is random per
 * session and {@code n} counts up, so a syntax error naming the token answers that statement, not the client's text.
 * The server's syntax error for a refusal's token comes back here and is replaced by the refusal. A rewritten
 * statement is replaced by the text the gate gave, and a Parse pgward answers by a query that returns the answer.
 *
 * <p>A replacement is written as a Query when it stands for a Query (it closes the request, as a Query does), as a
 * Parse under the client's statement name when it stands for a Parse (the Bind, Execute and Sync that follow refer to
 * it), and otherwise as a Parse under the token's own name, with a Sync after it when it stands for a FunctionCall
 * ({@link #refuse}). A message pgward could not read is replaced as {@link #malformed} says.
 *
 * <p>A Bind of a statement whose {@code pgward.*} calls take bound values binds a statement pgward prepares under a
 * name of its own, {@code pgward_calls_<nonce>} ({@link #bindComputed}).
 */
final class Replacements {

    /** Refusals are logged as the session's. */
    private static final Logger log = LoggerFactory.getLogger(Session.class);

    private final Session.Identity who;
    private final Channel client;
    private final BackendConnection backend;
    private final InFlight inFlight;
    private final FailedBlock failedBlock;
    private final String refusalPrefix;
    /** The name of the statement with computed calls that a Bind binds in place of the client's. */
    private final String callsName;
    private int substitutionCount;

    Replacements(Session.Identity who, Channel client, BackendConnection backend, InFlight inFlight,
                 FailedBlock failedBlock, long nonce) {
        this.who = who;
        this.client = client;
        this.backend = backend;
        this.inFlight = inFlight;
        this.failedBlock = failedBlock;
        this.refusalPrefix = "pgward_refused_" + Long.toHexString(nonce) + "_";
        this.callsName = "pgward_calls_" + Long.toHexString(nonce);
    }

    /**
     * The refused statement never reaches the server: a statement naming a fresh token goes in its place. A refused
     * Query becomes a Query of the token; a refused Parse a Parse of the token under the client's statement name (the
     * Bind, Execute and Sync that follow refer to it). Everything else becomes a Parse of the token under the token's
     * own name, so that no statement or portal of the client's is touched: the server fails it and skips to the Sync
     * as it would after the message's own error. In place of a FunctionCall, or of a malformed Query or FunctionCall,
     * a Sync follows ({@link #endsWithSync}).
     */
    void refuse(FrontendMessage message, Verdict.Refuse refusal, boolean endsBatch) {
        String token = nextToken();
        Verdict.Refuse answered = inCharacters(message, refusal);
        ByteBuf replacement = switch (message) {
            case FrontendMessage.Query q -> Messages.query(backend.channel().alloc(), token);
            case FrontendMessage.Parse p -> Messages.parse(backend.channel().alloc(), p.statement(), token);
            default -> Messages.parse(backend.channel().alloc(), token, token);
        };
        message.release();
        inFlight.substituted(token, answered);
        ConnectionLog.info(log, who.connection(), "refused for login {}: {}", who.login(), refusal.message());
        if (endsBatch) {
            inFlight.closeClientRequest();
        } else {
            inFlight.extendedSent();
        }
        backend.channel().write(replacement);
        if (endsBatch && endsWithSync(message)) {
            backend.channel().write(Messages.sync(backend.channel().alloc()));
        }
    }

    /**
     * Whether the Parse of a token that replaces {@code message}, which ends its request, is followed by a Sync: for
     * a FunctionCall or a message pgward could not read, not for a Query. A FunctionCall is not part of the extended
     * protocol: PostgreSQL answers its error with a ReadyForQuery at once, and the Sync gives it. Its error ends an
     * implicit transaction and aborts a transaction block as the Parse's does, and both leave the unnamed statement
     * and, but for the transaction's end, the unnamed portal as they were, where a Query of the token would drop the
     * unnamed statement. In a failed transaction block the server's error for the Parse is its syntax error, which
     * becomes the 25P02 PostgreSQL answers a FunctionCall with there ({@link Verdicts#inPlaceOf}).
     */
    private static boolean endsWithSync(FrontendMessage message) {
        return message instanceof FrontendMessage.FunctionCall || message instanceof FrontendMessage.Malformed;
    }

    /**
     * A message pgward could not read never reaches the server: a Parse of a fresh token under the token's own name
     * goes in its place, and the server's syntax error for it becomes PostgreSQL's error for the message (ERROR 08P01,
     * {@link Verdicts#MALFORMED}). The server then skips to the Sync as after PostgreSQL's own error, and says nothing
     * when it already skips. In place of a Query or FunctionCall a Sync follows, which ends the request with
     * ReadyForQuery as PostgreSQL ends it. Not a Query of the token: that would drop the client's unnamed statement,
     * which PostgreSQL keeps (it fails the message before it runs anything).
     */
    void malformed(FrontendMessage.Malformed message) {
        refuse(message, new Verdict.Refuse(SqlState.PROTOCOL_VIOLATION, message.error(), 0, Verdicts.MALFORMED),
                message.endsRequest());
    }

    /**
     * The refusal with its position counted in characters of the client's text, as PostgreSQL counts an error's
     * (a verdict counts UTF-16 units: {@link Positions}).
     */
    private static Verdict.Refuse inCharacters(FrontendMessage message, Verdict.Refuse refusal) {
        String sql = switch (message) {
            case FrontendMessage.Query q -> q.sql();
            case FrontendMessage.Parse p -> p.sql();
            default -> null;
        };
        return sql == null || refusal.position() <= 0 ? refusal
                : refusal.at(Positions.inCharacters(sql, refusal.position()));
    }

    /**
     * A Bind whose value {@code value} for {@code parameter} names a hidden type: the server binds a type name nothing
     * has in its place, and fails the Bind exactly as for an absent type (the same routine, CONTEXT line and skip to
     * the Sync, or 25P02 in an aborted transaction); its error then gets the value's own message and CONTEXT.
     */
    void refuseBoundValue(FrontendMessage.Bind bind, int parameter, String value, Verdict.Refuse refusal) {
        String token = nextToken();
        ByteBuf replacement = BoundValues.replacing(backend.channel().alloc(), bind.frame(), parameter,
                BoundValues.standIn(token, value, inSchema(refusal)));
        bind.release();
        inFlight.substitutedValue(token, refusal, value);
        inFlight.extendedSent();
        ConnectionLog.info(log, who.connection(), "refused for login {}: {}", who.login(), refusal.message());
        backend.channel().write(replacement);
    }

    /**
     * A Bind whose value for the text parameter {@code parameter} names a hidden type, with a name nothing has in its
     * place: to_regtype then answers NULL, as for an absent type ({@code Verdict.TypeNameParameter#text}).
     */
    FrontendMessage.Bind boundValueReplaced(FrontendMessage.Bind bind, int parameter) {
        ByteBuf replaced = BoundValues.replacing(backend.channel().alloc(), bind.frame(), parameter, nextToken());
        bind.release();
        ConnectionLog.info(log, who.connection(), "a hidden type's name bound to ${} for login {} is read as absent",
                parameter, who.login());
        return new FrontendMessage.Bind(bind.portal(), bind.statement(), replaced);
    }

    /** The backend runs the rewritten statement in place of the client's, so everything after it is its own. */
    void rewrite(FrontendMessage message, Verdict.Rewrite rewrite, boolean endsBatch) {
        if (message instanceof FrontendMessage.FunctionCall) {
            refuse(message, new Verdict.Refuse(SqlState.FEATURE_NOT_SUPPORTED,
                    "pgward cannot rewrite a fast-path function call"), endsBatch);
            return;
        }
        for (String notice : rewrite.notices()) {
            client.write(LocalAnswer.notice(client.alloc(), notice));
        }
        ByteBuf replacement = message instanceof FrontendMessage.Parse p
                ? (rewrite.keepsParameters()
                        ? Messages.parse(backend.channel().alloc(), p.statement(), rewrite.sql(), p.parameterTypes())
                        : Messages.parse(backend.channel().alloc(), p.statement(), rewrite.sql()))
                : Messages.query(backend.channel().alloc(), rewrite.sql());
        message.release();
        if (endsBatch) {
            inFlight.closeClientRequest();
        } else {
            inFlight.extendedSent();
        }
        backend.channel().write(replacement);
    }

    /**
     * A Bind of a statement whose pgward calls take its values: pgward's own statement is prepared with the calls
     * computed ({@code rewrite}), and the Bind binds the client's portal to it, with the client's values and formats.
     * Not the unnamed statement: the client may still bind its own unnamed statement later, which PostgreSQL keeps
     * across a Bind of another.
     *
     * <pre>
     *   Close(S n)  Parse(n, computed)  Bind(portal, n)  Close(S n)      n = pgward_calls_&lt;nonce&gt;
     * </pre>
     *
     * The first Close takes away the statement of an earlier Bind that failed after its Parse (the server skipped its
     * last Close), so that this Parse does not fail on the name; the last leaves nothing of pgward's in the session
     * (pg_prepared_statements), and the portal keeps the plan it was bound with. The completions of pgward's Closes
     * and Parse are not the client's; the caller drops them ({@link Completions}).
     */
    void bindComputed(FrontendMessage.Bind bind, Verdict.Rewrite rewrite, int[] parameterTypes) {
        for (String notice : rewrite.notices()) {
            client.write(LocalAnswer.notice(client.alloc(), notice));
        }
        Channel channel = backend.channel();
        ByteBuf parse = Messages.parse(channel.alloc(), callsName, rewrite.sql(), parameterTypes);
        ByteBuf renamed = CallValues.renamed(channel.alloc(), bind.frame(), callsName);
        bind.release();
        inFlight.extendedSent();
        channel.write(Messages.close(channel.alloc(), 'S', callsName));
        channel.write(parse);
        channel.write(renamed);
        channel.write(Messages.close(channel.alloc(), 'S', callsName));
    }

    /** Parse of a statement pgward answers: the backend prepares the answer as a query under the same name. */
    void answerThroughBackend(FrontendMessage.Parse parse, Verdict.Answer answer) {
        rewrite(parse, new Verdict.Rewrite(LocalAnswer.asQuery(answer,
                Verdicts.parameterCount(parse, Judge.standardConformingStrings(backend))), answer.notices()),
                false);
    }

    /**
     * Takes the server's ErrorResponse when it is the syntax error for the token of the next refusal in flight, and
     * writes that refusal to the client in its place; false for any other error, which the caller relays.
     */
    boolean answeredRefusal(BackendMessage.Frame error, Map<Character, String> fields) {
        InFlight.Substitution next = inFlight.nextSubstitution();
        if (next != null && next.boundValue() != null) {
            boolean inSchema = inSchema(next.refusal());
            if (!next.refusal().sqlState().equals(fields.get('C')) || !fields.getOrDefault('M', "").equals(
                    (inSchema ? "schema \"" : "type \"") + next.token() + "\" does not exist")) {
                return false;
            }
            inFlight.substitutionAnswered();
            String standIn = BoundValues.standIn(next.token(), next.boundValue(), inSchema);
            Map<Character, String> replaced = new java.util.HashMap<>();
            replaced.put('M', next.refusal().message());
            if (fields.containsKey('W')) {
                replaced.put('W', BoundValues.context(fields.get('W'), standIn, next.boundValue()));
            }
            client.write(PgError.withFields(client.alloc(), error.body(), replaced));
            error.bytes().release();
            return true;
        }
        if (next == null || !SqlState.SYNTAX_ERROR.equals(fields.get('C'))
                || !fields.getOrDefault('M', "").contains(next.token())) {
            return false;
        }
        inFlight.substitutionAnswered();
        client.write(Verdicts.inPlaceOf(client.alloc(), error.body(), next, failedBlock.failed()));
        error.bytes().release();
        return true;
    }

    /** A refused value whose schema is hidden: the server must fail on the schema (3F000), not on the type. */
    private static boolean inSchema(Verdict.Refuse refusal) {
        return "3F000".equals(refusal.sqlState());
    }

    /**
     * Fails the open transaction of a capped result as PostgreSQL would have failed it: a Parse of a fresh token under
     * its own name, and a Sync, ahead of everything in flight (the session sends it only when nothing owes a
     * ReadyForQuery). Not a Query: that would drop the client's unnamed statement, which PostgreSQL keeps after a
     * failed statement.
     */
    void abortTransaction() {
        inFlight.abortFirst();
        String token = nextToken();
        backend.channel().write(Messages.parse(backend.channel().alloc(), token, token));
        backend.channel().write(Messages.sync(backend.channel().alloc()));
    }

    private String nextToken() {
        return refusalPrefix + (++substitutionCount);
    }
}
