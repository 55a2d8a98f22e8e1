package io.pgward.wire.cli;

import io.pgward.wire.server.PgwardServer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import sun.misc.Signal;
import sun.misc.SignalHandler;

/**
 * SIGHUP reloads the configuration, as it does for PostgreSQL and PgBouncer. Without this handler the JVM would
 * treat SIGHUP as a request to stop. The reload runs on a thread of its own: a signal handler must return at once.
 * {@code sun.misc.Signal} (module jdk.unsupported, which the image's runtime includes) is the JDK's only way to
 * handle a signal; the compiler's warning about it is expected.
 */
final class ReloadSignal {

    private static final Logger log = LoggerFactory.getLogger(ReloadSignal.class);

    private ReloadSignal() {
    }

    static void install(PgwardServer server) {
        try {
            SignalHandler previous = Signal.handle(new Signal("HUP"), signal -> Thread.ofVirtual()
                    .name("pgward-reload").start(() -> {
                        log.info("SIGHUP: reading the configuration file again");
                        server.reload();
                    }));
            if (previous == SignalHandler.SIG_IGN) {
                // The JVM keeps a signal ignored that the process was started with ignored, and installs nothing.
                log.warn("SIGHUP does not reload the configuration: this process was started with SIGHUP ignored "
                        + "(nohup does that); RELOAD on the admin console and pgward reload still work");
            }
        } catch (IllegalArgumentException e) {
            // A JVM started with -Xrs, or a platform without SIGHUP: RELOAD and pgward reload still work.
            log.warn("SIGHUP cannot reload the configuration here: {}", e.getMessage());
        }
    }
}
