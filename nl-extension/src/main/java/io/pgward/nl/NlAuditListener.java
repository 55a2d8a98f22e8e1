package io.pgward.nl;

/**
 * Receives every natural-language question, each statement the model proposed with its outcome, and the final
 * verdict, in that order, on the thread that handles the question. The proxy writes them to its audit log.
 * Implementations must not throw; rows of a result are never passed here (nor to the model).
 */
public interface NlAuditListener {

    NlAuditListener NONE = new NlAuditListener() {
    };

    default void question(String login, String question) {
    }

    default void attempt(String login, String question, Attempt attempt) {
    }

    default void verdict(String login, String question, Generation generation) {
    }
}
