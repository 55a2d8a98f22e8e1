package io.pgward.guard.catalog;

import java.util.Set;
import java.util.TreeSet;

/**
 * The elements of an {@code oid[]} constant in a stored parse tree: a one-dimensional array without NULLs (array.h:
 * int32 vl_len_, int32 ndim, int32 dataoffset, Oid elemtype, int dims[ndim], int lbound[ndim], then 4-byte
 * elements), or an empty one. Any other layout (NULL elements, more dimensions, a big-endian server, a short
 * header) is not read: the caller then proves nothing.
 */
final class OidArray {

    private static final long OID = 26;

    private OidArray() {
    }

    /** The distinct elements, or null when the datum is not such an array. */
    static Set<Long> elements(TreeValue.Datum datum) {
        byte[] b = datum.bytes();
        int length = datum.length();
        if (length < 16 || b.length < length) {
            return null;
        }
        long header = uint32(b, 0);
        long ndim = uint32(b, 4);
        if ((header & 3) != 0 || (header >>> 2) != length || uint32(b, 8) != 0 || uint32(b, 12) != OID) {
            return null;
        }
        Set<Long> values = new TreeSet<>();
        if (ndim == 0) {
            return length == 16 ? values : null;
        }
        if (ndim != 1 || length < 24) {
            return null;
        }
        long count = uint32(b, 16);
        if (24 + count * 4 != length) {
            return null;
        }
        for (int i = 0; i < count; i++) {
            values.add(uint32(b, 24 + i * 4));
        }
        return values;
    }

    private static long uint32(byte[] b, int offset) {
        return (b[offset] & 0xFFL) | (b[offset + 1] & 0xFFL) << 8 | (b[offset + 2] & 0xFFL) << 16
                | (b[offset + 3] & 0xFFL) << 24;
    }
}
