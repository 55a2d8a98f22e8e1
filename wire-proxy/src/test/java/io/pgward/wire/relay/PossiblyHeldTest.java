package io.pgward.wire.relay;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

class PossiblyHeldTest {

    @Test
    void aNameSetInARequestStillInFlightMayHoldEitherValueUntilItEnds() {
        PossiblyHeld<String> held = new PossiblyHeld<>();
        held.set("", "first", 1);
        held.retired(1, false);
        held.set("", "second", 2);
        assertEquals(List.of("first", "second"), held.possible(""));
        held.retired(2, false);
        assertEquals(List.of("second"), held.possible(""));
    }

    @Test
    void withinTheRequestThatSetItTheNameHoldsWhatThatRequestSet() {
        PossiblyHeld<String> held = new PossiblyHeld<>();
        held.set("", "first", 1);
        held.retired(1, false);
        held.set("", "second", 2);
        // A later message of request 2 runs only if the Parse before it did.
        assertEquals(List.of("second"), held.possibleWithin("", 2));
        assertEquals(List.of("first", "second"), held.possibleWithin("", 3), "a later request may follow a failure");
        held.removed("", 2);
        assertEquals(List.of(), held.possibleWithin("", 2), "closed earlier in the same request");
    }
}
