package io.pgward.wire.admin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.pgward.wire.local.LocalDatabaseException;
import org.junit.jupiter.api.Test;

class AdminCommandTest {

    @Test
    void readsCommandsInAnyCaseWithAnOptionalSemicolon() {
        assertEquals(new AdminCommand.Show("CLIENTS"), AdminCommand.parse("show clients"));
        assertEquals(new AdminCommand.Show("POOLS"), AdminCommand.parse("  SHOW\tPools ;; "));
        assertEquals(new AdminCommand.Reload(), AdminCommand.parse("reload;"));
        assertEquals(new AdminCommand.Pause(), AdminCommand.parse("PAUSE"));
        assertEquals(new AdminCommand.Resume(), AdminCommand.parse("Resume"));
        assertEquals(new AdminCommand.Kill(12), AdminCommand.parse("KILL 12"));
        assertEquals(new AdminCommand.Kill(12), AdminCommand.parse("kill c12;"));
    }

    @Test
    void refusesAnythingElseWithASyntaxError() {
        for (String text : new String[] {"", "SELECT 1", "SHOW CLIENTS; RELOAD", "RELOAD now", "KILL", "KILL x",
            "KILL 1 2", "SHOW", "PAUSE db"}) {
            LocalDatabaseException e = assertThrows(LocalDatabaseException.class, () -> AdminCommand.parse(text),
                    text);
            assertEquals("42601", e.sqlState(), text);
        }
    }
}
