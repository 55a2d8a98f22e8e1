package io.pgward.guard.selection;

import java.util.Arrays;
import java.util.stream.LongStream;

/**
 * An immutable set of PostgreSQL object identifiers, sorted ascending. OIDs are unsigned 32-bit values and are held
 * as longs, so every OID PostgreSQL can hand out sorts and compares as PostgreSQL's {@code oid} type does.
 * Equality is by content.
 */
public final class OidSet {

    public static final OidSet EMPTY = new OidSet(new long[0]);

    private static final long MAX_OID = 0xFFFF_FFFFL;

    private final long[] oids;

    private OidSet(long[] sortedDistinct) {
        this.oids = sortedDistinct;
    }

    /** The set of {@code oids}, in any order and with repeats. */
    public static OidSet of(long... oids) {
        long[] sorted = LongStream.of(oids).sorted().distinct().toArray();
        if (sorted.length > 0 && sorted[0] < 0) {
            throw new IllegalArgumentException("not an oid: " + sorted[0]);
        }
        if (sorted.length > 0 && sorted[sorted.length - 1] > MAX_OID) {
            throw new IllegalArgumentException("not an oid: " + sorted[sorted.length - 1]);
        }
        return sorted.length == 0 ? EMPTY : new OidSet(sorted);
    }

    public boolean contains(long oid) {
        return Arrays.binarySearch(oids, oid) >= 0;
    }

    public int size() {
        return oids.length;
    }

    public boolean isEmpty() {
        return oids.length == 0;
    }

    /** The OIDs in ascending order. */
    public LongStream stream() {
        return LongStream.of(oids);
    }

    /** The set as a PostgreSQL array literal in ascending order ({@code {16399,16400}}; {@code {}} when empty). */
    public String arrayLiteral() {
        StringBuilder literal = new StringBuilder(2 + oids.length * 6).append('{');
        for (int i = 0; i < oids.length; i++) {
            if (i > 0) {
                literal.append(',');
            }
            literal.append(oids[i]);
        }
        return literal.append('}').toString();
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof OidSet set && Arrays.equals(oids, set.oids);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(oids);
    }

    @Override
    public String toString() {
        return arrayLiteral();
    }
}
