package io.pgward.wire.startup;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.pgward.wire.clients.ConnectedClient;
import io.pgward.wire.config.PgwardConfig;
import io.pgward.wire.config.Secret;
import io.pgward.wire.gate.SessionGates;
import io.pgward.wire.gate.StatementGate;
import io.pgward.wire.protocol.PgError;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.junit.jupiter.api.Test;

class ServerContextTest {

    private static PgwardConfig.Login login(String name) {
        return new PgwardConfig.Login(name, PgwardConfig.AuthMethod.SCRAM_SHA_256, new Secret("pw"), null, name,
                null, PgwardConfig.Mode.READ_ONLY);
    }

    /** Records how it was told to end. */
    private static final class Recorded implements ConnectedClient.Control {
        PgError endedWith;

        @Override
        public void endWhenIdle(PgError why) {
            endedWith = why;
        }

        @Override
        public void endNow(PgError why) {
            endedWith = why;
        }

        @Override
        public CompletionStage<String> state() {
            return CompletableFuture.completedFuture("idle");
        }

        @Override
        public CompletionStage<Boolean> quiet() {
            return CompletableFuture.completedFuture(true);
        }
    }

    private static ConnectedClient client(long id, PgwardConfig.Login login, ActiveConfig startedUnder,
                                          Recorded control) {
        return new ConnectedClient(id, "c" + id, login, "db", null, null, Instant.now(), false, "", startedUnder,
                null, control);
    }

    /**
     * A reload may go over the sessions while one is still logging in with the configuration it replaced: that
     * session is held to the new configuration when it is listed.
     */
    @Test
    void aSessionListedAfterAReloadIsHeldToTheNewConfiguration() {
        Map<String, PgwardConfig.Login> logins = new LinkedHashMap<>();
        logins.put("a", login("a"));
        logins.put("b", login("b"));
        PgwardConfig config = new PgwardConfig(PgwardConfig.Listen.DEFAULT, Duration.ofSeconds(1),
                new PgwardConfig.Tls(PgwardConfig.TlsMode.DISABLE, null, null),
                new PgwardConfig.Backend("localhost", 5432, PgwardConfig.SslMode.DISABLE, null),
                new PgwardConfig.Pool(1, Duration.ofSeconds(1)), logins);
        ServerContext context = new ServerContext(config, null, null,
                SessionGates.byLogin(login -> StatementGate.ALLOW_ALL), null, Map.of());
        ActiveConfig old = context.active();
        context.activate(ActiveConfig.of(config.withLogins(Map.of("b", login("b")))));

        Recorded a = new Recorded();
        Recorded b = new Recorded();
        Recorded current = new Recorded();
        context.opened(client(1, login("a"), old, a));
        context.opened(client(2, login("b"), old, b));
        context.opened(client(3, login("b"), context.active(), current));

        assertEquals("57P01", a.endedWith.sqlState());
        assertEquals("pgward's configuration was reloaded and login \"a\" was removed.", a.endedWith.detail());
        assertNull(b.endedWith, "b is unchanged");
        assertNull(current.endedWith);
        assertEquals(3, context.clients().all().size());
    }
}
