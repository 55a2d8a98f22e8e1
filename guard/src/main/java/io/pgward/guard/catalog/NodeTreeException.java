package io.pgward.guard.catalog;

/**
 * A parse tree pgward cannot read with certainty: malformed text, an unknown node tag, a field it does not expect.
 * The catalog check refuses the statement (fail closed).
 */
class NodeTreeException extends RuntimeException {

    NodeTreeException(String message) {
        super(message);
    }

    /** A tree beyond what pgward reads (deeper than {@link NodeTreeParser#MAX_DEPTH}): refused as too complex. */
    static final class TooComplex extends NodeTreeException {
        TooComplex(String message) {
            super(message);
        }
    }
}
