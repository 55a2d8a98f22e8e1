package io.pgward.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.util.ResourceLeakDetectorFactory;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.testkit.engine.EngineTestKit;

class NettyLeakCheckTest {

    private static final String RUN_LEAKING = "pgward.test.leaking";

    @Test
    void theBuildRunsWithTheRecordingDetector() {
        assertInstanceOf(LeakRecorder.class,
                ResourceLeakDetectorFactory.instance().newResourceLeakDetector(ByteBuf.class));
    }

    @Test
    void aClassThatLeaksABufferFails() {
        System.setProperty(RUN_LEAKING, "true");
        try {
            List<String> failures = EngineTestKit.engine("junit-jupiter")
                    .configurationParameter("junit.jupiter.extensions.autodetection.enabled", "true")
                    .selectors(selectClass(Leaking.class))
                    .execute()
                    .containerEvents()
                    .failed()
                    .stream()
                    .map(e -> e.getPayload(TestExecutionResult.class).orElseThrow().getThrowable()
                            .map(Throwable::getMessage).orElse(""))
                    .toList();
            assertEquals(1, failures.size(), failures.toString());
            assertTrue(failures.getFirst().contains("leaked Netty buffer"), failures.getFirst());
            assertTrue(failures.getFirst().contains("allocatesAndForgets"), "names where it was made: "
                    + failures.getFirst());
        } finally {
            System.clearProperty(RUN_LEAKING);
        }
    }

    @EnabledIfSystemProperty(named = RUN_LEAKING, matches = "true")
    static class Leaking {
        @Test
        void allocatesAndForgets() {
            ByteBuf leaked = ByteBufAllocator.DEFAULT.buffer(16);
            leaked.writeInt(1);
        }
    }
}
