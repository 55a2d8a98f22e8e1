package io.pgward.arango;

import java.time.Duration;

/**
 * Bounds on every AQL statement pgward runs. {@code maxRuntime} and {@code memoryLimitBytes} are enforced by the
 * server (the cursor request carries them); {@code maxRows} by pgward, which fails a statement whose result is
 * larger rather than returning part of it. {@code batchSize} is how many rows one cursor round trip brings.
 */
public record AqlLimits(Duration maxRuntime, long memoryLimitBytes, int maxRows, int batchSize) {

    public static final AqlLimits DEFAULTS = new AqlLimits(Duration.ofSeconds(30), 1L << 30, 25_000, 1_000);

    public AqlLimits {
        if (maxRuntime == null || maxRuntime.isNegative() || maxRuntime.isZero()) {
            throw new IllegalArgumentException("limits.runtime: must be a positive duration, was " + maxRuntime);
        }
        if (memoryLimitBytes <= 0) {
            throw new IllegalArgumentException("limits.memory: must be a positive size, was " + memoryLimitBytes);
        }
        if (maxRows <= 0) {
            throw new IllegalArgumentException("limits.rows: must be a positive number, was " + maxRows);
        }
        if (batchSize <= 0) {
            throw new IllegalArgumentException("limits.batch_size: must be a positive number, was " + batchSize);
        }
    }

    public AqlLimits withMaxRows(int rows) {
        return new AqlLimits(maxRuntime, memoryLimitBytes, rows, batchSize);
    }

    public AqlLimits withMaxRuntime(Duration runtime) {
        return new AqlLimits(runtime, memoryLimitBytes, maxRows, batchSize);
    }

    public AqlLimits withMemoryLimit(long bytes) {
        return new AqlLimits(maxRuntime, bytes, maxRows, batchSize);
    }

    public AqlLimits withBatchSize(int size) {
        return new AqlLimits(maxRuntime, memoryLimitBytes, maxRows, size);
    }

    /** The server's {@code maxRuntime} option, in seconds. */
    double maxRuntimeSeconds() {
        return maxRuntime.toMillis() / 1000.0;
    }
}
