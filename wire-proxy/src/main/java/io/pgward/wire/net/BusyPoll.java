package io.pgward.wire.net;

import io.netty.channel.SelectStrategy;
import io.netty.util.IntSupplier;

/**
 * An event loop's choice when it has handled every ready socket ({@code io.busy_poll}): ask again, for a bounded
 * time, before sleeping in epoll_wait.
 *
 * <p>Why: a client that sends one statement at a time waits for two hops through pgward, and each hop into a
 * sleeping event loop costs a wake-up and a context switch, on a small or virtual machine tens of microseconds,
 * as much as the relaying itself. Polling for a bit longer than the server's reply takes catches the reply awake.
 * The loop yields the CPU between polls, so a runnable PostgreSQL or client process on the same CPU goes first;
 * what is spent is CPU time that would otherwise be idle, and where no CPU is idle (many busy sessions on few
 * CPUs) it costs a few percent of throughput, which is why it is off by default (bench/README.md).
 *
 * <p>Work other threads hand the loop while it polls (a verdict decided off the loop, a cancel) is not looked at
 * until the budget is spent or a socket is ready: it waits at most the budget, which the configuration caps at
 * 1 ms.
 */
final class BusyPoll implements SelectStrategy {

    private final long budgetNanos;

    BusyPoll(long budgetNanos) {
        this.budgetNanos = budgetNanos;
    }

    @Override
    public int calculateStrategy(IntSupplier selectNow, boolean hasTasks) throws Exception {
        int ready = selectNow.get();
        if (ready > 0 || hasTasks) {
            return ready;
        }
        long deadline = System.nanoTime() + budgetNanos;
        while (System.nanoTime() - deadline < 0) {
            Thread.yield();
            ready = selectNow.get();
            if (ready > 0) {
                return ready;
            }
        }
        return SelectStrategy.SELECT;
    }
}
