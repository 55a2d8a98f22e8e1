package io.pgward.guard.catalog;

/**
 * A parse tree pgward cannot read with certainty: malformed text, an unknown node tag, a field it does not expect.
 * The catalog check refuses the statement (fail closed).
 */
final class NodeTreeException extends RuntimeException {

    NodeTreeException(String message) {
        super(message);
    }
}
