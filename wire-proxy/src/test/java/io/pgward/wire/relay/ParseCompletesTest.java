package io.pgward.wire.relay;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class ParseCompletesTest {

    private final ParseCompletes completes = new ParseCompletes();

    @Test
    void dropsOnlyTheParseCompleteOfPgwardsOwnParseInItsPlace() {
        completes.sent(1, false);
        completes.sent(1, true);
        completes.sent(1, false);
        assertFalse(completes.arrivedIsPgwards(), "the client's Parse before it");
        assertTrue(completes.arrivedIsPgwards(), "pgward's");
        assertFalse(completes.arrivedIsPgwards(), "the client's Parse after it");
        assertFalse(completes.arrivedIsPgwards(), "nothing more is pgward's");
    }

    @Test
    void forgetsWhatAFailedRequestNeverAnswers() {
        completes.sent(1, false);
        completes.sent(1, true);
        completes.sent(2, false);
        assertFalse(completes.arrivedIsPgwards(), "the client's Parse of request 1");
        completes.ended(1);
        assertFalse(completes.arrivedIsPgwards(), "request 2's Parse is the client's, pgward's of 1 never came");
        completes.sent(3, true);
        completes.ended(3);
        completes.sent(4, false);
        assertFalse(completes.arrivedIsPgwards());
    }
}
