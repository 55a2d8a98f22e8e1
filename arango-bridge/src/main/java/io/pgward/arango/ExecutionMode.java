package io.pgward.arango;

/** How a login's statements run: a login's {@code mode: read-only} is {@link #READ_ONLY}, read-write is RAW. */
public enum ExecutionMode {
    /** Through the read-only gate, then with the limits. */
    READ_ONLY,
    /** No gate, the same limits; writes report affected rows. */
    RAW
}
