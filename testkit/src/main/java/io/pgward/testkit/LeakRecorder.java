package io.pgward.testkit;

import io.netty.util.ResourceLeakDetector;
import java.util.ArrayList;
import java.util.List;

/**
 * Netty's leak detector that also remembers what it reported, so that {@link NettyLeakCheck} can fail the tests
 * instead of leaving a log line nobody reads. Installed with {@code -Dio.netty.customResourceLeakDetector}
 * (the root pom's test argLine), before Netty makes its detectors.
 */
public final class LeakRecorder<T> extends ResourceLeakDetector<T> {

    private static final List<String> REPORTED = new ArrayList<>();

    public LeakRecorder(Class<?> resourceType, int samplingInterval) {
        super(resourceType, samplingInterval);
    }

    public LeakRecorder(Class<?> resourceType, int samplingInterval, long maxActive) {
        this(resourceType, samplingInterval);
    }

    /** Every leak reported so far, and forgets them. */
    static List<String> takeReported() {
        synchronized (REPORTED) {
            List<String> taken = List.copyOf(REPORTED);
            REPORTED.clear();
            return taken;
        }
    }

    @Override
    protected boolean needReport() {
        return true;
    }

    @Override
    protected void reportTracedLeak(String resourceType, String records) {
        super.reportTracedLeak(resourceType, records);
        remember(resourceType + " was released by nobody; recent access records:" + records);
    }

    @Override
    protected void reportUntracedLeak(String resourceType) {
        super.reportUntracedLeak(resourceType);
        remember(resourceType + " was released by nobody (no access records)");
    }

    private static void remember(String leak) {
        synchronized (REPORTED) {
            REPORTED.add(leak);
        }
    }
}
