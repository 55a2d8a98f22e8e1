package io.pgward.wire.config;

/** A configuration that pgward refuses to start with; the message names the key and what is wrong. */
public final class ConfigException extends RuntimeException {

    public ConfigException(String message) {
        super(message);
    }

    static ConfigException at(String path, String problem) {
        return new ConfigException((path.isEmpty() ? "" : path + ": ") + problem);
    }
}
