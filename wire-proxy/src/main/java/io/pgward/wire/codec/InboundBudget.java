package io.pgward.wire.codec;

import io.netty.util.internal.PlatformDependent;
import java.util.concurrent.atomic.AtomicLong;

/**
 * How many bytes of large client messages every connection together may hold while they arrive. PostgreSQL takes
 * a message of up to 1 GiB, and each of its backends is a process of its own; pgward holds every connection's
 * messages in one process, so a few clients each sending a message of hundreds of MB, slowly, would take the memory
 * of all. Only messages above {@link #LARGE} count: ordinary statements never wait for the budget.
 */
final class InboundBudget {

    /** Messages of at most this many bytes are not counted. */
    static final int LARGE = 1 << 20;

    /** A quarter of the direct memory Netty's buffers may take (the launcher caps it), at least 64 MiB. */
    static final InboundBudget SHARED = new InboundBudget(Math.max(64L << 20, PlatformDependent.maxDirectMemory() / 4));

    private final long capacity;
    private final AtomicLong held = new AtomicLong();

    InboundBudget(long capacity) {
        this.capacity = capacity;
    }

    /** Takes {@code bytes} for a message being received; false when that would pass the budget. */
    boolean take(long bytes) {
        for (;;) {
            long now = held.get();
            if (now + bytes > capacity) {
                return false;
            }
            if (held.compareAndSet(now, now + bytes)) {
                return true;
            }
        }
    }

    void giveBack(long bytes) {
        held.addAndGet(-bytes);
    }

    long capacity() {
        return capacity;
    }

    long held() {
        return held.get();
    }
}
