package io.pgward.testkit;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.UnpooledByteBufAllocator;
import java.util.List;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Fails a test class when Netty reported a leaked buffer while it or an earlier class ran. Netty finds a leak only
 * when the garbage collector has taken the buffer and a later buffer is tracked, so after each class this collects
 * and allocates once; a leak may still surface a class or two later, and its access records say where it was
 * made. Registered for the modules whose tests use Netty (their {@code META-INF/services} and
 * {@code junit-platform.properties}); a no-op unless {@link LeakRecorder} is Netty's detector.
 */
public final class NettyLeakCheck implements AfterAllCallback {

    @Override
    public void afterAll(ExtensionContext context) throws InterruptedException {
        System.gc();
        Thread.sleep(20);
        // Tracking a new buffer makes each detector drain its queue of collected, unreleased buffers.
        for (int i = 0; i < 4; i++) {
            release(PooledByteBufAllocator.DEFAULT.buffer(8));
            release(UnpooledByteBufAllocator.DEFAULT.buffer(8));
            release(PooledByteBufAllocator.DEFAULT.directBuffer(8));
            release(UnpooledByteBufAllocator.DEFAULT.directBuffer(8));
        }
        List<String> leaks = LeakRecorder.takeReported();
        if (!leaks.isEmpty()) {
            throw new AssertionError(leaks.size() + " leaked Netty buffer(s) reported by the end of "
                    + context.getDisplayName() + ":\n" + String.join("\n\n", leaks));
        }
    }

    private static void release(ByteBuf buffer) {
        buffer.release();
    }
}
