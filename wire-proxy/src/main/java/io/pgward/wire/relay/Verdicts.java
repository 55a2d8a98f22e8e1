package io.pgward.wire.relay;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.pgward.guard.Verdict;
import io.pgward.guard.catalog.CatalogRefusals;
import io.pgward.guard.classify.Refusals;
import io.pgward.guard.lexer.LexerException;
import io.pgward.guard.lexer.SqlLexer;
import io.pgward.guard.lexer.Token;
import io.pgward.wire.audit.AuditLog;
import io.pgward.wire.audit.ConnectionLog;
import io.pgward.wire.protocol.FrontendMessage;
import io.pgward.wire.protocol.PgError;
import io.pgward.wire.protocol.SqlState;
import io.pgward.wire.protocol.Utf8;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** What a {@link Session} works out around a verdict: fail-closed outcomes, audit entries, refusal shapes. */
final class Verdicts {

    /** Lines about a session's statements are logged as the session's. */
    private static final Logger log = LoggerFactory.getLogger(Session.class);
    private static final String SYNTAX_ERROR_AT = "syntax error at or near \"";
    /** The rule of PostgreSQL's error for a message pgward could not read ({@link Replacements#malformed}). */
    static final String MALFORMED = "malformed-message";
    /** A Bind message's parameter count is an unsigned int16. */
    private static final int MAX_BIND_VALUES = 65_535;

    private Verdicts() {
    }

    /** Fail closed: a gate that throws, fails or gives no verdict refuses. */
    static Verdict failClosed(CompletableFuture<Verdict> verdict, String connection) {
        try {
            Verdict v = verdict.join();
            return v != null ? v : new Verdict.Refuse(SqlState.INTERNAL_ERROR, Verdict.Refuse.PREFIX
                    + "the guard gave no verdict", 0, "guard-failure");
        } catch (CompletionException | CancellationException e) {
            Throwable cause = e.getCause() != null ? e.getCause() : e;
            ConnectionLog.warn(log, connection, "guard failed, refusing the statement: {}", cause.toString());
            return new Verdict.Refuse(SqlState.INTERNAL_ERROR,
                    Verdict.Refuse.PREFIX + "the guard could not decide (" + cause.getMessage() + ")", 0,
                    "guard-failure");
        }
    }

    static AuditLog.Entry auditEntry(String connection, String login, String database, String sql, long micros,
                                     Verdict verdict) {
        return switch (verdict) {
            case Verdict.Allow a -> new AuditLog.Entry(connection, login, database, "allow", null, sql, micros);
            case Verdict.Refuse r -> new AuditLog.Entry(connection, login, database, "refuse", r.rule(), sql, micros);
            case Verdict.Answer a -> new AuditLog.Entry(connection, login, database, "answer", null, sql, micros);
            case Verdict.Rewrite r -> new AuditLog.Entry(connection, login, database, "rewrite", null,
                    sql + "\n-- ran as:\n" + r.sql(), micros);
        };
    }

    /**
     * The first sequence in the SQL text of a Query or Parse that is not valid UTF-8, as PostgreSQL names it; null
     * when the text is valid (or the message carries no SQL text).
     */
    static String invalidUtf8(FrontendMessage message) {
        int[] range = sqlRange(message);
        return range == null ? null : Utf8.invalidSequence(message.frame(), range[0], range[1]);
    }

    /**
     * The statement as the audit shows it: {@code sql}, unless the bytes were not valid UTF-8 and were decoded with
     * replacement characters; then the bytes that are not valid are shown as {@code \xNN} and the line says so,
     * so that the audit records what was sent.
     */
    static String auditedText(FrontendMessage message, String sql) {
        if (sql.indexOf('\uFFFD') < 0) {
            return sql;
        }
        int[] range = sqlRange(message);
        String escaped = range == null ? null : Utf8.escapedIfInvalid(message.frame(), range[0], range[1]);
        return escaped == null ? sql : escaped + "\n-- not valid UTF-8: the bytes that are not are shown as \\xNN";
    }

    /** Where the SQL text of a Query or Parse lies in its frame, without its NUL; null for other messages. */
    private static int[] sqlRange(FrontendMessage message) {
        ByteBuf frame = message.frame();
        int end = frame.writerIndex();
        int from = frame.readerIndex() + 5;
        switch (message) {
            case FrontendMessage.Query q -> { }
            case FrontendMessage.Parse p -> from = frame.indexOf(from, end, (byte) 0) + 1;
            default -> {
                return null;
            }
        }
        int to = frame.indexOf(from, end, (byte) 0);
        return to < 0 ? null : new int[] {from, to};
    }

    /** The server's own error for text that is not valid UTF-8. */
    static Verdict.Refuse invalidEncoding(String invalidSequence) {
        return new Verdict.Refuse(Utf8.INVALID_SQLSTATE, Utf8.invalidMessage(invalidSequence), 0, "invalid-encoding");
    }

    /**
     * What the client gets in place of the server's syntax error for a substitution's token: pgward's refusal, or,
     * for a statement the gate found to be a syntax error at its first word, the server's own error about that word.
     *
     * @param errorBody the body of the server's ErrorResponse
     * @param inFailedBlock whether the server's transaction block had failed before the substitution
     */
    static ByteBuf inPlaceOf(ByteBufAllocator alloc, ByteBuf errorBody, InFlight.Substitution substitution,
                             boolean inFailedBlock) {
        Verdict.Refuse refusal = substitution.refusal();
        String word = syntaxErrorWord(refusal);
        if (word != null) {
            // PostgreSQL's grammar rejects the client's text at its first word exactly as it rejected the token
            // (scanner_yyerror, also in an aborted transaction, where parsing comes first): its own error, with the
            // word and its position in place of the token's.
            return PgError.replacing(alloc, errorBody, substitution.token(), word, refusal.position());
        }
        if (grammarError(refusal) || refusal.rule().equals(MALFORMED)) {
            // PostgreSQL's grammar rejected the client's text, or it could not read the message: either error comes
            // first, in an aborted transaction too.
            return new PgError("ERROR", refusal.sqlState(), refusal.message(), refusal.detail(), refusal.hint(),
                    refusal.position()).encode(alloc);
        }
        if (inFailedBlock) {
            // In an aborted transaction PostgreSQL ignores every statement with 25P02, refused or not.
            return PgError.error(SqlState.IN_FAILED_SQL_TRANSACTION,
                    "current transaction is aborted, commands ignored until end of transaction block").encode(alloc);
        }
        return new PgError("ERROR", refusal.sqlState(), refusal.message(), refusal.detail(), refusal.hint(),
                refusal.position())
                .encode(alloc);
    }

    /**
     * Whether the refusal carries PostgreSQL's error from its grammar (which PostgreSQL reports before it looks at
     * the transaction): the grammar asked about a refused text, or the catalog check's syntax error.
     */
    private static boolean grammarError(Verdict.Refuse refusal) {
        return refusal.rule().equals(CatalogRefusals.GRAMMAR)
                || refusal.rule().equals(CatalogRefusals.POSTGRES_ERROR)
                && SqlState.SYNTAX_ERROR.equals(refusal.sqlState()) && refusal.message().startsWith("syntax error at");
    }

    /**
     * For a statement the gate found to be a syntax error at its first word (SQLSTATE 42601, message
     * {@code syntax error at or near "<word>"}), that word; null for a refusal.
     */
    private static String syntaxErrorWord(Verdict.Refuse refusal) {
        String message = refusal.message();
        if (!refusal.rule().equals(Refusals.SYNTAX_ERROR) || !SqlState.SYNTAX_ERROR.equals(refusal.sqlState())
                || !message.startsWith(SYNTAX_ERROR_AT) || !message.endsWith("\"")
                || message.length() <= SYNTAX_ERROR_AT.length() + 1) {
            return null;
        }
        return message.substring(SYNTAX_ERROR_AT.length(), message.length() - 1);
    }

    /**
     * How many $n the client's statement uses, so that its Bind fits the statement put in its place; at most 65,535,
     * the most a Bind carries (a higher $n is only a number in the text, and must not size the statement).
     */
    static int parameterCount(FrontendMessage.Parse parse, boolean standardConformingStrings) {
        int count = parse.parameterTypes().length;
        try {
            for (Token token : SqlLexer.tokenize(parse.sql(), standardConformingStrings)) {
                if (token.kind() == Token.Kind.PARAMETER) {
                    count = Math.max(count, Math.min(Integer.parseInt(token.value()), MAX_BIND_VALUES));
                }
            }
        } catch (LexerException | NumberFormatException e) {
            // The gate answered a text it could read; if it cannot be read here, the client's Bind decides.
        }
        return count;
    }
}
