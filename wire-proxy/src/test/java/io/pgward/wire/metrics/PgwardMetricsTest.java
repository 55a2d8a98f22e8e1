package io.pgward.wire.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The meters a login's sessions move, as Prometheus reads them; {@link LoginMetrics#NONE} counts nothing. */
class PgwardMetricsTest {

    @Test
    void aLoginsVerdictsSessionsAndBytesShowUnderItsName() {
        PgwardMetrics metrics = new PgwardMetrics();
        LoginMetrics analyst = metrics.forLogin("analyst");
        analyst.sessionOpened();
        analyst.statement("allow", null, TimeUnit.MICROSECONDS.toNanos(20), false);
        analyst.statement("refuse", "relation-not-selected", TimeUnit.MILLISECONDS.toNanos(30), true);
        analyst.statement("refuse", "relation-not-selected", TimeUnit.MILLISECONDS.toNanos(30), true);
        analyst.toServer(100);
        analyst.toClient(300, 7);
        analyst.rowCapStop();
        analyst.nlQuestion("valid-sql");
        analyst.nlAttempt(false);
        String scrape = metrics.scrape();
        for (String line : new String[] {
            "pgward_client_connections{login=\"analyst\"} 1.0",
            "pgward_statements_total{login=\"analyst\",rule=\"\",verdict=\"allow\"} 1.0",
            "pgward_statements_total{login=\"analyst\",rule=\"relation-not-selected\",verdict=\"refuse\"} 2.0",
            "pgward_guard_decision_seconds_count{path=\"immediate\"} 1",
            "pgward_guard_decision_seconds_count{path=\"waited\"} 2",
            "pgward_guard_decision_seconds_bucket{path=\"waited\",le=\"0.05\"} 2",
            "pgward_relayed_bytes_total{direction=\"to_server\"} 100.0",
            "pgward_relayed_bytes_total{direction=\"to_client\"} 300.0",
            "pgward_relayed_rows_total 7.0",
            "pgward_row_cap_stops_total{login=\"analyst\"} 1.0",
            "pgward_nl_questions_total{login=\"analyst\",outcome=\"valid-sql\"} 1.0",
            "pgward_nl_attempts_total{login=\"analyst\",result=\"rejected\"} 1.0"}) {
            assertTrue(scrape.lines().anyMatch(line::equals), line + " in\n" + scrape);
        }
        analyst.sessionClosed();
        assertTrue(metrics.scrape().contains("pgward_client_connections{login=\"analyst\"} 0.0"));
    }

    @Test
    void sessionsWithoutAServerCountNothing() {
        LoginMetrics.NONE.sessionOpened();
        LoginMetrics.NONE.statement("allow", null, 1, false);
        LoginMetrics.NONE.toClient(1, 1);
        PgwardMetrics metrics = new PgwardMetrics();
        assertFalse(metrics.scrape().contains("pgward_statements_total"));
        assertEquals(metrics.forLogin("x"), metrics.forLogin("x"), "one set of meters per login");
    }
}
