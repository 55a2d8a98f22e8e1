package io.pgward.arango;

import java.util.Objects;

/**
 * How pgward authenticates to ArangoDB. Secrets never appear in {@code toString}, so a configuration can be
 * logged whole.
 */
public sealed interface ArangoAuth {

    /** HTTP Basic with a user and password; a blank user means {@code root}, as in ArangoDB's own tools. */
    record UserPassword(String user, String password) implements ArangoAuth {

        public UserPassword {
            user = user == null || user.isBlank() ? "root" : user.strip();
            password = password == null ? "" : password;
        }

        @Override
        public String toString() {
            return "UserPassword[user=" + user + ", password=<redacted>]";
        }
    }

    /** A JWT sent as {@code Authorization: bearer}, for token-based deployments such as ArangoGraph. */
    record Token(String jwt) implements ArangoAuth {

        public Token {
            Objects.requireNonNull(jwt, "token");
            if (jwt.isBlank()) {
                throw new IllegalArgumentException("token: must not be empty when auth is token");
            }
        }

        @Override
        public String toString() {
            return "Token[<redacted>]";
        }
    }

    /** What a startup message may say about the credential without revealing it. */
    default String describe() {
        return switch (this) {
            case UserPassword p -> "user '" + p.user() + "'";
            case Token t -> "the configured token";
        };
    }
}
