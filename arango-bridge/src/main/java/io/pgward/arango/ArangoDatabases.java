package io.pgward.arango;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Every configured ArangoDB database by the pgward database name it is served under. Started all at once when
 * pgward starts: the first entry that fails its probe stops the start, and the ones already connected are closed.
 */
public final class ArangoDatabases implements AutoCloseable {

    private final Map<String, ArangoBridge> byName;

    private ArangoDatabases(Map<String, ArangoBridge> byName) {
        this.byName = byName;
    }

    /**
     * @throws ArangoStartupException for the first entry whose endpoint, credentials or database is wrong
     * @throws IllegalArgumentException when two entries have the same name
     */
    public static ArangoDatabases start(Collection<ArangoConfig> configs) {
        Map<String, ArangoConfig> unique = new LinkedHashMap<>();
        for (ArangoConfig config : configs) {
            if (unique.putIfAbsent(config.name(), config) != null) {
                throw new IllegalArgumentException("arango." + config.name() + ": configured twice");
            }
        }
        Map<String, ArangoBridge> started = new LinkedHashMap<>();
        try {
            for (ArangoConfig config : unique.values()) {
                started.put(config.name(), ArangoBridge.start(config));
            }
        } catch (RuntimeException e) {
            started.values().forEach(ArangoBridge::close);
            throw e;
        }
        return new ArangoDatabases(started);
    }

    /** The bridge serving {@code pgwardDatabase}, or empty when that name is not an ArangoDB database. */
    public Optional<ArangoBridge> get(String pgwardDatabase) {
        return Optional.ofNullable(byName.get(pgwardDatabase));
    }

    public List<ArangoBridge> all() {
        return List.copyOf(byName.values());
    }

    @Override
    public void close() {
        List<ArangoBridge> bridges = new ArrayList<>(byName.values());
        bridges.forEach(ArangoBridge::close);
    }
}
