package io.pgward.guard.catalog;

import io.pgward.guard.Verdict;
import java.util.Objects;

/**
 * How one statement of a login with a selection is served: the text the backend runs (the client's own, or its
 * rewrite with the login's filter subqueries) and L3's verdict. A refusal is always the verdict on the client's own
 * text, with its wording and position.
 *
 * @param text the statement to send: the client's text, or the rewritten one L3 allowed
 */
public record Served(String text, Verdict verdict) {

    public Served {
        Objects.requireNonNull(text, "text");
        Objects.requireNonNull(verdict, "verdict");
    }
}
