package io.pgward.wire.audit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class PasswordRedactionTest {

    @Test
    void theLiteralAfterPasswordIsHiddenInEverySpelling() {
        assertEquals("CREATE ROLE r LOGIN PASSWORD '********'",
                PasswordRedaction.redact("CREATE ROLE r LOGIN PASSWORD 'Sup3rS3cret'"));
        assertEquals("alter user u with encrypted password '********' valid until 'infinity'",
                PasswordRedaction.redact("alter user u with encrypted password 'SCRAM-SHA-256$4096:abc' valid until 'infinity'"));
        assertEquals("ALTER ROLE r PASSWORD '********'", PasswordRedaction.redact("ALTER ROLE r PASSWORD E'a\\'b'"));
        assertEquals("ALTER ROLE r PASSWORD '********'", PasswordRedaction.redact("ALTER ROLE r PASSWORD $p$x$p$"));
        assertEquals("ALTER ROLE r PaSsWoRd /* c */ '********'",
                PasswordRedaction.redact("ALTER ROLE r PaSsWoRd /* c */ 'x'"));
        assertEquals("CREATE USER MAPPING FOR u SERVER s OPTIONS (user 'u', password '********')",
                PasswordRedaction.redact("CREATE USER MAPPING FOR u SERVER s OPTIONS (user 'u', password 'p')"));
        assertEquals("SELECT 1; ALTER ROLE a PASSWORD '********'; ALTER ROLE b PASSWORD '********'",
                PasswordRedaction.redact("SELECT 1; ALTER ROLE a PASSWORD 'one'; ALTER ROLE b PASSWORD 'two'"));
    }

    @Test
    void aBackslashReadEitherWayNeverLeavesPartOfTheSecret() {
        // With standard_conforming_strings off the literal is 'a\' b' and the rest; on, it ends at the backslash.
        String redacted = PasswordRedaction.redact("ALTER ROLE r PASSWORD 'a\\' secret-tail'");
        assertFalse(redacted.contains("secret"), redacted);
    }

    @Test
    void statementsWithoutAPasswordLiteralAreUntouched() {
        for (String s : java.util.List.of("SELECT password FROM users WHERE id = 1", "ALTER ROLE r PASSWORD NULL",
                "SELECT 'password'", "SELECT 1")) {
            assertEquals(s, PasswordRedaction.redact(s));
        }
    }

    @Test
    void anUnreadableTextNamingPasswordIsNotShown() {
        String redacted = PasswordRedaction.redact("ALTER ROLE r PASSWORD 'unterminated");
        assertFalse(redacted.contains("unterminated"), redacted);
    }

    @Test
    void theAuditLineCarriesTheRedactedText() throws Exception {
        String line = AuditLog.format(Instant.EPOCH, new AuditLog.Entry("c1", "app", "db", "allow", null,
                "ALTER ROLE app PASSWORD 'hunter2'", 5));
        assertEquals("ALTER ROLE app PASSWORD '********'", new ObjectMapper().readTree(line).get("statement").asText());
    }
}
