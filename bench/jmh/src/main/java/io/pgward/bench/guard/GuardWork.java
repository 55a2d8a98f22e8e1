package io.pgward.bench.guard;

import io.pgward.guard.ReadOnlyGuard;
import io.pgward.guard.Verdict;
import io.pgward.guard.classify.ReadOnlyPolicy;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.Arrays;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The guard-work benchmark: each {@link PathologicalInput} through {@code ReadOnlyGuard.check} (L1 and L2, as pgward
 * runs them with the catalog check following), a new text every run (a comment numbers it, so the verdict cache never
 * answers), timed on the deciding thread: wall time, that thread's CPU time, and the whole process's CPU time over
 * the decision (which also counts any thread the guard starts or leaves running, JIT and GC). Prints one
 * tab-separated line per input: name, bytes, runs, median and worst wall ms, median and worst thread CPU ms, median
 * and worst process CPU ms, verdict. A decision that takes longer than the deadline ends the run of that input
 * (reported as {@code timeout}).
 *
 * <p>Arguments: runs per input (default 20), warm-up runs per input (default 5), deadline in seconds (default 30);
 * or {@code --sql DIR}, which writes each input's text to {@code DIR/NAME.sql} for the run through the proxy.
 */
public final class GuardWork {

    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
    private static final com.sun.management.OperatingSystemMXBean OS =
            (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

    private GuardWork() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length == 2 && args[0].equals("--sql")) {
            for (PathologicalInput input : PathologicalInput.values()) {
                java.nio.file.Files.writeString(java.nio.file.Path.of(args[1], input.name() + ".sql"), input.sql());
            }
            return;
        }
        int runs = args.length > 0 ? Integer.parseInt(args[0]) : 20;
        int warmup = args.length > 1 ? Integer.parseInt(args[1]) : 5;
        Duration deadline = Duration.ofSeconds(args.length > 2 ? Long.parseLong(args[2]) : 30);
        ReadOnlyPolicy policy = new ReadOnlyPolicy("bench", Duration.ofSeconds(30));
        ExecutorService runner = Executors.newSingleThreadExecutor(Thread.ofPlatform().daemon()
                .name("guard-work").factory());
        try (ReadOnlyGuard guard = new ReadOnlyGuard(true)) {
            int serial = 0;
            for (PathologicalInput input : PathologicalInput.values()) {
                long[] wall = new long[runs];
                long[] cpu = new long[runs];
                long[] process = new long[runs];
                String verdict = "";
                int done = 0;
                boolean timedOut = false;
                for (int i = -warmup; i < runs && !timedOut; i++) {
                    String sql = input.sql() + " -- run " + serial++;
                    Future<long[]> decision = runner.submit(() -> {
                        long process0 = OS.getProcessCpuTime();
                        long cpu0 = THREADS.getCurrentThreadCpuTime();
                        long t0 = System.nanoTime();
                        ReadOnlyGuard.Classification classification = guard.check(sql, true, policy, Set.of());
                        long t1 = System.nanoTime();
                        long cpu1 = THREADS.getCurrentThreadCpuTime();
                        long process1 = OS.getProcessCpuTime();
                        lastVerdict = describe(classification);
                        return new long[] {t1 - t0, cpu1 - cpu0, process1 - process0};
                    });
                    long[] measured;
                    try {
                        measured = decision.get(deadline.toMillis(), TimeUnit.MILLISECONDS);
                    } catch (TimeoutException e) {
                        timedOut = true;
                        verdict = "timeout: no decision within " + deadline.toSeconds() + " s";
                        runner = Executors.newSingleThreadExecutor(Thread.ofPlatform().daemon()
                                .name("guard-work").factory());
                        continue;
                    }
                    verdict = lastVerdict;
                    if (i >= 0) {
                        wall[done] = measured[0];
                        cpu[done] = measured[1];
                        process[done] = measured[2];
                        done++;
                    }
                }
                long[] w = Arrays.copyOf(wall, done);
                long[] c = Arrays.copyOf(cpu, done);
                long[] p = Arrays.copyOf(process, done);
                System.out.printf("%s\t%d\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s%n", input.name(), input.sql().length(),
                        done, ms(median(w)), ms(max(w)), ms(median(c)), ms(max(c)), ms(median(p)), ms(max(p)), verdict);
                System.out.flush();
            }
        } finally {
            runner.shutdownNow();
        }
        System.exit(0);   // a parser thread left running by a timeout must not keep the JVM up
    }

    private static volatile String lastVerdict = "";

    /** allow, left to L3 (a query the catalog check proves), or the refusal's SQLSTATE, rule and message. */
    static String describe(ReadOnlyGuard.Classification classification) {
        if (classification.verdict() instanceof Verdict.Refuse r) {
            return "refused " + r.sqlState() + " (" + r.rule() + "): " + r.message();
        }
        return classification.reads().isEmpty() ? "allowed" : "allowed, then proven by L3";
    }

    private static long median(long[] values) {
        if (values.length == 0) {
            return -1;
        }
        long[] sorted = values.clone();
        Arrays.sort(sorted);
        return sorted[sorted.length / 2];
    }

    private static long max(long[] values) {
        return values.length == 0 ? -1 : Arrays.stream(values).max().getAsLong();
    }

    private static String ms(long nanos) {
        return nanos < 0 ? "—" : String.format("%.2f", nanos / 1e6);
    }
}
