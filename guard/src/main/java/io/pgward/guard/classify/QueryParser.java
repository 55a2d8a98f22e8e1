package io.pgward.guard.classify;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.logging.Level;
import net.sf.jsqlparser.JSQLParserException;
import net.sf.jsqlparser.parser.CCJSqlParserUtil;
import net.sf.jsqlparser.statement.Statement;

/**
 * JSqlParser, run on an executor pgward owns. {@code CCJSqlParserUtil.parse(String)} makes a thread pool per call
 * for its parse timeout and can leave a non-daemon thread behind; here each parse runs on a virtual thread of one
 * executor that {@link #close()} shuts down, and a parse that takes longer than {@link #TIMEOUT_MS} fails (and so
 * is refused).
 */
final class QueryParser implements AutoCloseable {

    static final long TIMEOUT_MS = 5_000;

    static {
        // JSqlParser logs every parse at INFO through java.util.logging.
        CCJSqlParserUtil.LOGGER.setLevel(Level.WARNING);
    }

    private final ExecutorService executor =
            Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("pgward-sql-parser-", 0).factory());

    Statement parse(String sql) throws JSQLParserException {
        return CCJSqlParserUtil.parse(sql, executor, parser -> parser
                .withSquareBracketQuotation(false)
                .withBackslashEscapeCharacter(false)   // standard_conforming_strings is on; E'' was decoded already
                .withTimeOut(TIMEOUT_MS));
    }

    @Override
    public void close() {
        executor.shutdownNow();
    }
}
