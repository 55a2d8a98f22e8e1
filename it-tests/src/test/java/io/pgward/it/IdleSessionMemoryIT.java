package io.pgward.it;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgward.testkit.PostgresTest;
import io.pgward.testkit.TestDatabase;
import io.pgward.wire.config.PgwardConfig;
import java.lang.management.ManagementFactory;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.management.JMException;
import javax.management.ObjectName;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * An idle session keeps only what relaying needs: once a client is logged in, nothing of its login exchange (the
 * startup handler, its startup packet, the SCRAM state) stays reachable, however long the session sits idle.
 * pgward is meant to hold a thousand idle sessions in a small heap (bench/idle-connections.sh); what each one
 * keeps is counted here in pgward's own heap, which this test shares, by the JVM's class histogram of live
 * objects (the one {@code jcmd GC.class_histogram} prints).
 */
@PostgresTest
class IdleSessionMemoryIT {

    private static final int SESSIONS = 10;
    private static final Pattern HISTOGRAM_LINE = Pattern.compile("^\\s*\\d+:\\s+(\\d+)\\s+\\d+\\s+(\\S+)");
    private static ProxyFixture proxy;

    @BeforeAll
    static void start(TestDatabase database) {
        proxy = ProxyFixture.start(database, ProxyFixture.STANDARD_GATES, null, PgwardConfig.TlsMode.DISABLE,
                SESSIONS + 2);
    }

    @AfterAll
    static void stop() {
        proxy.close();
    }

    @Test
    void idleSessionsKeepNothingOfTheirLogin() throws Exception {
        Map<String, Long> before = liveInstances();
        List<Connection> sessions = new ArrayList<>();
        try {
            for (int i = 0; i < SESSIONS; i++) {
                // Both kinds of login, both through SCRAM: the read-only one has a guard gate of its own.
                Connection c = proxy.connect(i % 2 == 0 ? "app" : "analyst");
                sessions.add(c);
                try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("select 1")) {
                    rs.next();
                }
            }
            Map<String, Long> idle = liveInstances();

            // The sessions are there, so the histogram sees pgward's objects ...
            assertTrue(idle.getOrDefault("io.pgward.wire.relay.Session", 0L) >= SESSIONS,
                    "live sessions in the histogram: " + idle.get("io.pgward.wire.relay.Session"));
            // ... and none of them keeps its login's. (At most as many as before: objects of sessions that ended
            // earlier may have been collected since.)
            for (String login : List.of("io.pgward.wire.startup.FrontendStartup",
                    "io.pgward.wire.auth.ScramServerExchange", "io.pgward.wire.auth.ScramMessages$ClientFirst")) {
                long kept = growth(before, idle, login);
                assertTrue(kept <= 0, SESSIONS + " idle sessions keep " + kept + " more " + login);
            }
        } finally {
            for (Connection c : sessions) {
                c.close();
            }
        }
    }

    private static long growth(Map<String, Long> before, Map<String, Long> after, String className) {
        return after.getOrDefault(className, 0L) - before.getOrDefault(className, 0L);
    }

    /** Live instances per class, after a full collection. */
    private static Map<String, Long> liveInstances() throws JMException {
        String histogram = (String) ManagementFactory.getPlatformMBeanServer().invoke(
                new ObjectName("com.sun.management:type=DiagnosticCommand"), "gcClassHistogram",
                new Object[] {new String[0]}, new String[] {String[].class.getName()});
        Map<String, Long> counts = new HashMap<>();
        for (String line : histogram.split("\n")) {
            Matcher m = HISTOGRAM_LINE.matcher(line);
            if (m.find()) {
                counts.merge(m.group(2), Long.parseLong(m.group(1)), Long::sum);
            }
        }
        return counts;
    }
}
