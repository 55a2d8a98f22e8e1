package io.pgward.wire.relay;

import io.pgward.guard.Verdict;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The queue of requests in flight on its own: each ReadyForQuery retires the oldest request that owes one. */
class InFlightTest {

    private static final Verdict.Refuse DROP = new Verdict.Refuse("42501", "DROP is not allowed");
    private static final Verdict.Answer ME = new Verdict.Answer(List.of("name"), List.of(List.of("alice")),
            "SELECT 1", List.of());

    private final InFlight inFlight = new InFlight();

    @Test
    void owesNothingUntilARequestIsClosed() {
        assertFalse(inFlight.owesReady());
        inFlight.substituted("t1", DROP);
        assertFalse(inFlight.owesReady(), "a Parse without Sync owes no ReadyForQuery");
        assertEquals("t1", inFlight.nextSubstitution().token(), "but its error may come back before the Sync");
        inFlight.closeClientRequest();
        assertTrue(inFlight.owesReady());
        assertEquals(InFlight.Kind.CLIENT, inFlight.retire().kind());
        assertFalse(inFlight.owesReady());
        assertNull(inFlight.retire(), "a ReadyForQuery nothing owed retires nothing");
    }

    @Test
    void matchesEachRefusalToTheRequestItWasSentIn() {
        inFlight.substituted("t1", DROP);
        inFlight.closeClientRequest();
        inFlight.closeClientRequest();
        inFlight.substituted("t2", DROP);
        inFlight.closeClientRequest();

        assertEquals("t1", inFlight.nextSubstitution().token());
        inFlight.retire();
        assertNull(inFlight.nextSubstitution(), "the second request carries none");
        inFlight.retire();
        assertEquals("t2", inFlight.nextSubstitution().token());
        inFlight.substitutionAnswered();
        assertNull(inFlight.nextSubstitution());
    }

    @Test
    void dropsTheRefusalsOfARequestThatEndedWithoutTheirErrors() {
        // An earlier error in the batch made the server skip the replacement: its refusal is never answered.
        inFlight.substituted("t1", DROP);
        inFlight.closeClientRequest();
        inFlight.retire();
        assertNull(inFlight.nextSubstitution());
    }

    @Test
    void holdsTheClientWhileItsOwnSearchPathProbeIsInFlight() {
        inFlight.closeClientRequest();
        inFlight.probeSearchPath();
        assertTrue(inFlight.waitsForPgward());
        assertEquals(InFlight.Kind.CLIENT, inFlight.retire().kind());
        InFlight.Request probe = inFlight.head();
        assertEquals(InFlight.Kind.SEARCH_PATH, probe.kind());
        probe.shown("\"$user\", public");
        probe.shown("second value");
        assertEquals("\"$user\", public", probe.shown(), "the first value is the one shown");
        assertSame(probe, inFlight.retire());
        assertFalse(inFlight.waitsForPgward());
    }

    @Test
    void answersLocallyOnlyOnceEveryRequestAheadIsRetired() {
        inFlight.closeClientRequest();
        inFlight.answerLater(ME);
        assertTrue(inFlight.waitsForPgward());
        assertNull(inFlight.dueAnswer());
        inFlight.retire();
        assertSame(ME, inFlight.dueAnswer());
        assertNull(inFlight.dueAnswer());
        assertFalse(inFlight.waitsForPgward());
    }

    @Test
    void putsTheRowCapsAbortAheadOfAWaitingAnswer() {
        inFlight.closeClientRequest();
        inFlight.answerLater(ME);
        inFlight.retire();
        inFlight.abortFirst();
        assertNull(inFlight.dueAnswer(), "the answer waits for the abort's ReadyForQuery");
        assertEquals(InFlight.Kind.CAP_ABORT, inFlight.retire().kind());
        assertSame(ME, inFlight.dueAnswer());
    }
}
