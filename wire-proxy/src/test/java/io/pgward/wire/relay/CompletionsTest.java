package io.pgward.wire.relay;

import static io.pgward.wire.relay.Completions.CLOSE;
import static io.pgward.wire.relay.Completions.PARSE;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class CompletionsTest {

    private final Completions completes = new Completions();

    @Test
    void dropsOnlyTheParseCompleteOfPgwardsOwnParseInItsPlace() {
        completes.sent(PARSE, 1, false);
        completes.sent(PARSE, 1, true);
        completes.sent(PARSE, 1, false);
        assertFalse(completes.arrivedIsPgwards(PARSE), "the client's Parse before it");
        assertTrue(completes.arrivedIsPgwards(PARSE), "pgward's");
        assertFalse(completes.arrivedIsPgwards(PARSE), "the client's Parse after it");
        assertFalse(completes.arrivedIsPgwards(PARSE), "nothing more is pgward's");
    }

    @Test
    void forgetsWhatAFailedRequestNeverAnswers() {
        completes.sent(PARSE, 1, false);
        completes.sent(PARSE, 1, true);
        completes.sent(PARSE, 2, false);
        assertFalse(completes.arrivedIsPgwards(PARSE), "the client's Parse of request 1");
        completes.ended(1);
        assertFalse(completes.arrivedIsPgwards(PARSE), "request 2's Parse is the client's, pgward's of 1 never came");
        completes.sent(PARSE, 3, true);
        completes.ended(3);
        completes.sent(PARSE, 4, false);
        assertFalse(completes.arrivedIsPgwards(PARSE));
    }

    /** ParseCompletes and CloseCompletes come in the order of their own kind's messages, whatever is between them. */
    @Test
    void countsEachKindInItsOwnOrder() {
        completes.sent(CLOSE, 1, false);
        completes.sent(PARSE, 1, false);
        completes.sent(CLOSE, 1, true);
        assertFalse(completes.arrivedIsPgwards(CLOSE), "the client's Close");
        assertFalse(completes.arrivedIsPgwards(PARSE), "the client's Parse");
        assertFalse(completes.noneOwed(CLOSE));
        assertTrue(completes.arrivedIsPgwards(CLOSE), "pgward's Close, after the client's Parse");
        assertTrue(completes.noneOwed(CLOSE));

        completes.sent(CLOSE, 2, false);
        completes.sent(CLOSE, 2, true);
        completes.ended(2);
        assertTrue(completes.noneOwed(CLOSE), "a failed request's Closes never answer");
    }
}
