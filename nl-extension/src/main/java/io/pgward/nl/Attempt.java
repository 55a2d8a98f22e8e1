package io.pgward.nl;

import java.util.Objects;
import java.util.Optional;

/**
 * One statement the model proposed for a question, and what became of it.
 *
 * @param number 1-based
 * @param sql the statement as the model wrote it; empty when its reply could not be read
 * @param error why it was rejected (guard refusal, EXPLAIN error, unreadable reply); empty when it passed
 */
public record Attempt(int number, String sql, Optional<String> error) {

    public Attempt {
        Objects.requireNonNull(sql, "sql");
        Objects.requireNonNull(error, "error");
    }

    public boolean passed() {
        return error.isEmpty();
    }
}
