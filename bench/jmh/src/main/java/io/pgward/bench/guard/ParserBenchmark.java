package io.pgward.bench.guard;

import io.pgward.guard.lexer.LexerException;
import io.pgward.guard.lexer.SqlLexer;
import io.pgward.guard.lexer.StatementText;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import net.sf.jsqlparser.JSQLParserException;
import net.sf.jsqlparser.parser.CCJSqlParser;
import net.sf.jsqlparser.parser.CCJSqlParserUtil;
import net.sf.jsqlparser.parser.ParseException;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * Where the classifier's time goes: JSqlParser parsing the workload's queries (the statements L2 hands to the parser,
 * as the lexer split them), once on the calling thread (as the classifier calls it since its work is bounded: no
 * thread of its own, no timeout) and once through {@code CCJSqlParserUtil.parse} on an executor of virtual threads
 * with its parse timeout (as the classifier called it before), for the cost of that hop. Compare with
 * {@link GuardBenchmark}'s {@code classify}.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(value = 2, jvmArgsAppend = {"-Xms512m", "-Xmx512m"})
@State(Scope.Benchmark)
public class ParserBenchmark {

    static {
        CCJSqlParserUtil.LOGGER.setLevel(java.util.logging.Level.WARNING);
    }

    @Param({"POINT", "BI", "MULTI"})
    public Workload workload;

    private List<String> queries;
    private ExecutorService executor;

    @Setup(Level.Trial)
    public void setUp() throws LexerException {
        queries = SqlLexer.split(workload.text(Workload.CACHED), true).stream()
                .filter(s -> s.tokens().getFirst().isWord("select") || s.tokens().getFirst().isWord("with"))
                .map(StatementText::text)
                .toList();
        executor = Executors.newThreadPerTaskExecutor(Thread.ofVirtual().factory());
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        executor.shutdownNow();
    }

    @Benchmark
    public void parseOnCallingThread(Blackhole blackhole) throws ParseException {
        for (String sql : queries) {
            CCJSqlParser parser = CCJSqlParserUtil.newParser(sql).withSquareBracketQuotation(false)
                    .withBackslashEscapeCharacter(false).withAllowComplexParsing(false);
            blackhole.consume(parser.Statement());
        }
    }

    @Benchmark
    public void parseOnExecutor(Blackhole blackhole) throws JSQLParserException {
        for (String sql : queries) {
            blackhole.consume(CCJSqlParserUtil.parse(sql, executor, parser -> parser
                    .withSquareBracketQuotation(false)
                    .withBackslashEscapeCharacter(false)
                    .withTimeOut(5_000)));
        }
    }
}
