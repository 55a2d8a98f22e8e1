package io.pgward.wire.audit;

import org.slf4j.Logger;
import org.slf4j.MDC;

/**
 * Log lines that carry the connection id in the MDC key {@code conn}. Set only around the line itself:
 * sessions share event-loop threads, so a thread-wide MDC would name the wrong connection.
 */
public final class ConnectionLog {

    private ConnectionLog() {
    }

    public static void info(Logger log, String connection, String format, Object... args) {
        try (MDC.MDCCloseable ignored = MDC.putCloseable("conn", connection)) {
            log.info(format, args);
        }
    }

    public static void warn(Logger log, String connection, String format, Object... args) {
        try (MDC.MDCCloseable ignored = MDC.putCloseable("conn", connection)) {
            log.warn(format, args);
        }
    }

    public static void debug(Logger log, String connection, String format, Object... args) {
        if (log.isDebugEnabled()) {
            try (MDC.MDCCloseable ignored = MDC.putCloseable("conn", connection)) {
                log.debug(format, args);
            }
        }
    }
}
