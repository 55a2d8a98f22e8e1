package io.pgward.bench.guard;

import io.pgward.guard.ReadOnlyGuard;
import io.pgward.guard.Verdict;
import io.pgward.guard.classify.ReadOnlyClassifier;
import io.pgward.guard.classify.ReadOnlyPolicy;
import io.pgward.guard.lexer.LexerException;
import io.pgward.guard.lexer.SqlLexer;
import io.pgward.guard.lexer.StatementText;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
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
 * The read-only guard's cost per statement text, through its public API, in µs per operation:
 * <ul>
 *   <li>{@code lexerSplit}: L1 alone, {@link SqlLexer#split} of the text;</li>
 *   <li>{@code classify}: L2 alone, {@link ReadOnlyClassifier#classify} of each statement already split;</li>
 *   <li>{@code guardMiss}: {@link ReadOnlyGuard#check} of a text it has not seen (a new literal each time), by a
 *       guard that does not share verdicts by shape: split, classify, cache the verdict;</li>
 *   <li>{@code guardNewLiteral}: the same with a guard that shares allows by shape and has allowed the text's shape
 *       before: split, the shape's key and its lookup (the full path where the literal is not in a value position);
 *       </li>
 *   <li>{@code guardHit}: {@link ReadOnlyGuard#check} of a text whose verdict is cached;</li>
 *   <li>{@code decodeText}: the baseline included in {@code guardHit}, see below.</li>
 * </ul>
 *
 * <p>pgward decodes every Query and Parse into a new String, so the cache lookup hashes and compares the whole text
 * each time. {@code guardHit} does the same (a String decoded from the text's UTF-8 bytes per call) rather than
 * passing one String whose hash is already cached, which would measure almost nothing; {@code decodeText} is that
 * decoding alone, which pgward does for read-write logins too.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 4, time = 1)
@Fork(value = 2, jvmArgsAppend = {"-Xms512m", "-Xmx512m"})
@State(Scope.Benchmark)
public class GuardBenchmark {

    private static final ReadOnlyPolicy POLICY = new ReadOnlyPolicy("analyst", Duration.ofSeconds(30));

    @Param({"POINT", "BI", "BI_FILTER", "MULTI"})
    public Workload workload;

    private String cachedText;
    private byte[] cachedTextUtf8;
    private List<StatementText> statements;
    private ReadOnlyClassifier classifier;
    private ReadOnlyGuard guard;
    private ReadOnlyGuard sharing;
    private long literal;

    @Setup(Level.Trial)
    public void setUp() throws LexerException {
        cachedText = workload.text(Workload.CACHED);
        cachedTextUtf8 = cachedText.getBytes(StandardCharsets.UTF_8);
        statements = SqlLexer.split(cachedText, true);
        classifier = new ReadOnlyClassifier();
        guard = new ReadOnlyGuard(false, false);
        sharing = new ReadOnlyGuard();
        for (StatementText statement : statements) {
            requireAllowed(classifier.classify(statement, POLICY));
        }
        requireAllowed(guard.check(cachedText, true, POLICY, Set.of()).verdict());
        requireAllowed(guard.check(workload.text(Workload.CACHED + 1), true, POLICY, Set.of()).verdict());
        requireAllowed(sharing.check(workload.text(Workload.CACHED + 1), true, POLICY, Set.of()).verdict());
        literal = Workload.CACHED + 1;
    }

    private void requireAllowed(Verdict verdict) {
        if (!(verdict instanceof Verdict.Allow)) {
            throw new IllegalStateException(workload + " is not allowed, so it would measure a refusal: " + verdict);
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        guard.close();
        sharing.close();
        classifier.close();
    }

    @Benchmark
    public List<StatementText> lexerSplit() throws LexerException {
        return SqlLexer.split(cachedText, true);
    }

    @Benchmark
    public void classify(Blackhole blackhole) {
        for (StatementText statement : statements) {
            blackhole.consume(classifier.classify(statement, POLICY));
        }
    }

    /** Includes making the text (one concatenation), well under a microsecond even for the BI query. */
    @Benchmark
    public ReadOnlyGuard.Classification guardMiss() {
        literal++;
        return guard.check(workload.text(literal), true, POLICY, Set.of());
    }

    @Benchmark
    public ReadOnlyGuard.Classification guardNewLiteral() {
        literal++;
        return sharing.check(workload.text(literal), true, POLICY, Set.of());
    }

    @Benchmark
    public ReadOnlyGuard.Classification guardHit() {
        return guard.check(new String(cachedTextUtf8, StandardCharsets.UTF_8), true, POLICY, Set.of());
    }

    @Benchmark
    public String decodeText() {
        return new String(cachedTextUtf8, StandardCharsets.UTF_8);
    }
}
