package io.pgward.wire.gate;

import io.pgward.guard.Verdict;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.netty.channel.DefaultEventLoop;
import io.pgward.wire.config.PgwardConfig;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A gate's session state (declared cursors, search_path changes) belongs to the session's event loop: a text
 * judged on a decider thread comes back to the loop before the gate reads or changes it.
 */
class GuardGateLoopTest {

    private static final PgwardConfig.Login ANALYST = new PgwardConfig.Login("analyst", PgwardConfig.AuthMethod.TRUST,
            null, null, "analyst", null, PgwardConfig.Mode.READ_ONLY);

    private final DefaultEventLoop loop = new DefaultEventLoop();
    private final Gates gates = Gates.withoutCatalog();

    @AfterEach
    void stop() {
        gates.close();
        loop.shutdownGracefully(0, 1, TimeUnit.SECONDS);
    }

    /** The thread that completed the gate's stage for {@code sql}, and the verdict. */
    private record Judged(Thread thread, Verdict verdict) {
    }

    private Judged check(StatementGate gate, String sql) throws Exception {
        CompletableFuture<Judged> judged = new CompletableFuture<>();
        // Called on the loop, as a session calls it; the stage cannot complete before the loop's current task ends,
        // so the dependent below runs on the thread that completes it.
        loop.execute(() -> gate.check(new GateRequest(GateRequest.Kind.SIMPLE_QUERY, sql, new int[0], "analyst",
                "db", true)).whenComplete((verdict, failure) -> {
                    if (failure != null) {
                        judged.completeExceptionally(failure);
                    } else {
                        judged.complete(new Judged(Thread.currentThread(), verdict));
                    }
                }));
        return judged.get(30, TimeUnit.SECONDS);
    }

    @Test
    void aTextJudgedOffTheLoopIsDecidedBackOnTheSessionsEventLoop() throws Exception {
        StatementGate gate = gates.forSession(ANALYST, loop);
        Thread loopThread = loop.submit(Thread::currentThread).get(30, TimeUnit.SECONDS);

        Judged declared = check(gate, "DECLARE c CURSOR FOR SELECT 1");
        assertEquals(Verdict.ALLOW, declared.verdict());
        assertSame(loopThread, declared.thread());

        Judged fetched = check(gate, "FETCH 1 FROM c");
        assertEquals(Verdict.ALLOW, fetched.verdict(), "the cursor the session declared is known to its gate");
        assertSame(loopThread, fetched.thread());
    }
}
