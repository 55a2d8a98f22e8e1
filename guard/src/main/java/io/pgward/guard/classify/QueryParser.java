package io.pgward.guard.classify;

import java.util.List;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import net.sf.jsqlparser.JSQLParserException;
import net.sf.jsqlparser.parser.CCJSqlParserUtil;
import net.sf.jsqlparser.statement.Statement;

/**
 * JSqlParser, run on the calling thread.
 *
 * <p>JSqlParser's parse timeout cannot stop a parse: on timeout it only sets a flag that its syntactic lookahead
 * (where the exponential work is) never reads, so the parsing thread runs on, and a timeout would hand the caller
 * an answer while a thread keeps burning a CPU. pgward therefore gives JSqlParser no timeout and no thread of its
 * own: the parse runs where the guard runs, and only for a query inside the {@link ComplexityEnvelope}, whose worst
 * case was measured. {@code CCJSqlParserUtil.parse} insists on an executor for its timeout; it gets one that runs
 * the task at once on the caller's thread, so there is nothing to time out and nothing left running.
 */
final class QueryParser implements AutoCloseable {

    static {
        // JSqlParser logs every parse at INFO through java.util.logging.
        CCJSqlParserUtil.LOGGER.setLevel(Level.WARNING);
    }

    private final CallingThread callingThread = new CallingThread();

    Statement parse(String sql) throws JSQLParserException {
        return CCJSqlParserUtil.parse(sql, callingThread, parser -> parser
                .withSquareBracketQuotation(false)
                .withBackslashEscapeCharacter(false));   // standard_conforming_strings is on; E'' was decoded already
    }

    @Override
    public void close() {
        // Nothing runs in the background.
    }

    /** Runs each task on the thread that submits it; JSqlParser's future is complete before it waits on it. */
    private static final class CallingThread extends AbstractExecutorService {

        @Override
        public void execute(Runnable task) {
            task.run();
        }

        @Override
        public void shutdown() {
            // Shared by every parse; JSqlParser does not own it.
        }

        @Override
        public List<Runnable> shutdownNow() {
            return List.of();
        }

        @Override
        public boolean isShutdown() {
            return false;
        }

        @Override
        public boolean isTerminated() {
            return false;
        }

        @Override
        public boolean awaitTermination(long timeout, TimeUnit unit) {
            return false;
        }
    }
}
