package io.pgward.nl;

import java.util.List;
import java.util.stream.Collectors;

/** The outcome of the validate-and-retry loop for one question. */
public sealed interface Generation {

    List<Attempt> attempts();

    /** A statement passed the guard and EXPLAIN. {@code sql} is the single query, without a trailing semicolon. */
    record Valid(String sql, List<Attempt> attempts) implements Generation {
        public Valid {
            attempts = List.copyOf(attempts);
        }
    }

    /** The model said the question is not about the database; nothing was validated or run. */
    record NotAboutDatabase(String answer, List<Attempt> attempts) implements Generation {
        public NotAboutDatabase {
            attempts = List.copyOf(attempts);
        }
    }

    /** Every attempt was rejected. */
    record Exhausted(List<Attempt> attempts) implements Generation {
        public Exhausted {
            attempts = List.copyOf(attempts);
        }

        /** The error text a client gets: each attempt's error, one per line. */
        public String message() {
            return "pgward could not write a valid query for this question in " + attempts.size()
                    + (attempts.size() == 1 ? " attempt:" : " attempts:") + attempts.stream()
                    .map(a -> "\nattempt " + a.number() + ": " + a.error().orElse(""))
                    .collect(Collectors.joining());
        }
    }

    /** The provider failed (unreachable, timeout, refused the request); retrying with feedback cannot help. */
    record ProviderFailed(String message, List<Attempt> attempts) implements Generation {
        public ProviderFailed {
            attempts = List.copyOf(attempts);
        }
    }
}
