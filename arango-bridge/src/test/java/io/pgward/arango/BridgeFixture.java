package io.pgward.arango;

/** Test helpers shared by the in-process tests. */
final class BridgeFixture {

    static final String USER = "reader";
    static final String PASSWORD = "s3cret";

    private BridgeFixture() {
    }

    static ArangoConfig config(FakeArango fake) {
        return ArangoConfig.of("shopdocs", fake.endpoint(), "shop", new ArangoAuth.UserPassword(USER, PASSWORD));
    }

    /** A fake that requires the fixture's user and password, and a bridge started against it. */
    static ArangoBridge start(FakeArango fake) {
        fake.requireBasic(USER, PASSWORD);
        return ArangoBridge.start(config(fake));
    }
}
