package io.pgward.wire.protocol;

import static org.junit.jupiter.api.Assertions.fail;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.AbstractByteBufAllocator;
import io.netty.buffer.UnpooledDirectByteBuf;
import io.netty.buffer.UnpooledHeapByteBuf;
import java.util.ArrayList;
import java.util.List;

/**
 * An allocator that remembers every buffer it hands out, so that a test can assert that all of them were
 * released: a deterministic leak check, where Netty's leak detector reports only what the garbage collector
 * happens to find. Give it to the channels under test ({@code config().setAllocator}) and build test input
 * with {@link #copyOf}; buffers derived from these (slices, cumulations) share or come from the same pool of
 * tracked buffers.
 */
public final class TrackingAllocator extends AbstractByteBufAllocator {

    private final List<ByteBuf> allocated = new ArrayList<>();

    public TrackingAllocator() {
        super(false);
    }

    @Override
    protected ByteBuf newHeapBuffer(int initialCapacity, int maxCapacity) {
        return track(toLeakAwareBuffer(new UnpooledHeapByteBuf(this, initialCapacity, maxCapacity)));
    }

    @Override
    protected ByteBuf newDirectBuffer(int initialCapacity, int maxCapacity) {
        return track(toLeakAwareBuffer(new UnpooledDirectByteBuf(this, initialCapacity, maxCapacity)));
    }

    @Override
    public boolean isDirectBufferPooled() {
        return false;
    }

    private ByteBuf track(ByteBuf buf) {
        allocated.add(buf);
        return buf;
    }

    /** A new buffer holding {@code bytes}; the caller owns its one reference. */
    public ByteBuf copyOf(byte[] bytes) {
        return heapBuffer(bytes.length).writeBytes(bytes);
    }

    /** A new buffer for each byte of {@code bytes}: input that arrives one byte per read. */
    public List<ByteBuf> oneByteEach(byte[] bytes) {
        List<ByteBuf> buffers = new ArrayList<>(bytes.length);
        for (byte b : bytes) {
            buffers.add(heapBuffer(1).writeByte(b));
        }
        return buffers;
    }

    public void assertAllReleased() {
        List<String> leaked = new ArrayList<>();
        for (int i = 0; i < allocated.size(); i++) {
            int refCnt = allocated.get(i).refCnt();
            if (refCnt != 0) {
                leaked.add("buffer #" + i + " (capacity " + allocated.get(i).capacity() + ") refCnt " + refCnt);
            }
        }
        if (!leaked.isEmpty()) {
            fail(leaked.size() + " of " + allocated.size() + " buffers not released: " + leaked);
        }
    }
}
