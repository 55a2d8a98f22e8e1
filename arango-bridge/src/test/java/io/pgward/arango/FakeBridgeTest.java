package io.pgward.arango;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/** A test against a bridge over a fresh {@link FakeArango} for each test method. */
abstract class FakeBridgeTest {

    FakeArango fake;
    ArangoBridge bridge;

    @BeforeEach
    void startBridge() {
        fake = FakeArango.start();
        bridge = BridgeFixture.start(fake);
    }

    @AfterEach
    void stopBridge() {
        bridge.close();
        fake.close();
    }
}
