package io.pgward.wire.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.channel.SelectStrategy;
import io.netty.util.IntSupplier;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class BusyPollTest {

    /** epoll_wait with a zero timeout that finds {@code ready} sockets on its {@code at}-th call, none before. */
    private static final class Polls implements IntSupplier {
        private final int at;
        private final int ready;
        int calls;

        Polls(int at, int ready) {
            this.at = at;
            this.ready = ready;
        }

        @Override
        public int get() {
            calls++;
            return calls >= at ? ready : 0;
        }
    }

    @Test
    void readySocketsAreHandledWithoutPollingAgain() throws Exception {
        Polls polls = new Polls(1, 3);
        assertEquals(3, new BusyPoll(TimeUnit.MILLISECONDS.toNanos(1)).calculateStrategy(polls, false));
        assertEquals(1, polls.calls);
    }

    @Test
    void queuedTasksRunWithoutPolling() throws Exception {
        Polls polls = new Polls(Integer.MAX_VALUE, 1);
        assertEquals(0, new BusyPoll(TimeUnit.MILLISECONDS.toNanos(1)).calculateStrategy(polls, true));
        assertEquals(1, polls.calls);
    }

    @Test
    void aSocketThatBecomesReadyWhilePollingIsHandledAwake() throws Exception {
        Polls polls = new Polls(5, 2);
        assertEquals(2, new BusyPoll(TimeUnit.SECONDS.toNanos(10)).calculateStrategy(polls, false));
        assertEquals(5, polls.calls);
    }

    @Test
    void sleepsOnceTheBudgetIsSpent() throws Exception {
        Polls polls = new Polls(Integer.MAX_VALUE, 1);
        long budget = TimeUnit.MILLISECONDS.toNanos(2);
        long start = System.nanoTime();
        assertEquals(SelectStrategy.SELECT, new BusyPoll(budget).calculateStrategy(polls, false));
        long spent = System.nanoTime() - start;
        assertTrue(spent >= budget, "polled for " + spent + " ns");
        assertTrue(polls.calls > 1, "polled " + polls.calls + " times");
    }
}
