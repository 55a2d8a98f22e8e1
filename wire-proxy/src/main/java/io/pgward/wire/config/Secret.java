package io.pgward.wire.config;

/** A password or key from the configuration. Its {@code toString} never shows the value, so it cannot reach a log. */
public record Secret(String value) {

    @Override
    public String toString() {
        return "<redacted>";
    }
}
