package io.pgward.wire.audit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.joran.JoranConfigurator;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;

class EscapedMessageTest {

    @Test
    void controlCharactersAreEscapedAndPlainTextKept() {
        assertEquals("authentication failed for login \"x\"", EscapedMessage.escape("authentication failed for login \"x\""));
        assertEquals("a\\nb\\r\\tc\\u001b[2Jd\\u0000\\u007f\\u0085\\u2028\\u202e\\\\n",
                EscapedMessage.escape("a\nb\r\tc\u001b[2Jd\u0000\u007f\u0085\u2028\u202e\\n"));
        assertEquals("sélect 😀", EscapedMessage.escape("sélect 😀"));
    }

    @Test
    void theShippedConfigurationWritesAForgedLineAsPartOfOneLine() throws Exception {
        LoggerContext context = new LoggerContext();
        context.setMDCAdapter(new ch.qos.logback.classic.util.LogbackMDCAdapter());
        JoranConfigurator configurator = new JoranConfigurator();
        configurator.setContext(context);
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        PrintStream original = System.err;
        System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
        try {
            configurator.doConfigure(EscapedMessage.class.getResource("/logback.xml"));
            Logger log = context.getLogger("io.pgward.wire.startup.FrontendStartup");
            String user = "x\n{\"time\":\"2026-12-03T00:00:00Z\",\"verdict\":\"allow\"}\n12:00:00.000 INFO  [c1] Forged - hi";
            log.info("authentication failed for login \"{}\": {}", user, "no such login");
            context.stop();
        } finally {
            System.setErr(original);
        }
        List<String> lines = err.toString(StandardCharsets.UTF_8).lines().toList();
        assertEquals(1, lines.size(), lines.toString());
        assertTrue(lines.getFirst().contains("[pgward] FrontendStartup - authentication failed for login \"x\\n{"),
                lines.getFirst());
    }
}
