package io.pgward.wire.server;

import io.pgward.wire.clients.ConnectedClient;
import io.pgward.wire.admin.PolicyChange;
import io.pgward.wire.admin.ReloadReport;
import io.pgward.wire.config.ConfigException;
import io.pgward.wire.config.PgwardConfig;
import io.pgward.wire.gate.SessionGates;
import io.pgward.wire.protocol.PgError;
import io.pgward.wire.startup.ActiveConfig;
import io.pgward.wire.startup.ServerContext;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads the configuration file again (SIGHUP, {@code RELOAD}, {@code pgward reload}) and puts its logins in force.
 *
 * <p>The file is checked in full first, as at start; any error rejects it whole and the old configuration stays.
 * Then one {@link ActiveConfig} replaces the old at once, so a session logging in sees the old or the new, never a
 * mix. Settings that cannot change while pgward runs keep their running values and are reported. Sessions of a
 * login that was removed or narrowed ({@link PolicyChange}) end with FATAL 57P01 once their running statement is
 * over, or after {@link #NARROWED_GRACE} if it is not; the others go on with the policy they started with.
 * Reloads run one at a time.
 */
final class Reloader {

    private static final Logger log = LoggerFactory.getLogger(Reloader.class);

    /** How long a narrowed session's running statement may go on before the session is ended anyway. */
    static final Duration NARROWED_GRACE = Duration.ofSeconds(5);

    private final ServerContext context;
    private final SessionGates gates;
    private final ScheduledExecutorService timer;
    private volatile Supplier<PgwardConfig> source;
    private volatile Consumer<PgwardConfig> check = config -> { };

    Reloader(ServerContext context, SessionGates gates, ScheduledExecutorService timer) {
        this.context = context;
        this.gates = gates;
        this.timer = timer;
    }

    void from(Supplier<PgwardConfig> file, Consumer<PgwardConfig> extraCheck) {
        this.source = file;
        this.check = extraCheck;
    }

    synchronized ReloadReport reload() {
        Supplier<PgwardConfig> file = source;
        if (file == null) {
            return rejected("this pgward was started without a configuration file to read again");
        }
        PgwardConfig loaded;
        ActiveConfig next;
        ActiveConfig old = context.active();
        try {
            loaded = file.get();
            loaded.logins().values().forEach(gates::check);
            check.accept(loaded);
            next = ActiveConfig.of(old.config().withLiveSettingsOf(loaded));
        } catch (ConfigException | IllegalArgumentException e) {
            return rejected(e.getMessage());
        } catch (RuntimeException e) {
            // Fail closed: whatever went wrong reading or checking the file, the configuration in force stays.
            log.debug("reload failed", e);
            return rejected(e.toString());
        }
        context.activate(next);
        gates.retain(next.config().logins().values());
        ReloadReport report = new ReloadReport(null, changes(old.config(), next.config()),
                needsRestart(old.config(), loaded), endNarrowed(next));
        report.lines().forEach(line -> log.info("reload: {}", line));
        return report;
    }

    private static ReloadReport rejected(String error) {
        log.error("reload: configuration rejected, the old one stays: {}", error);
        return ReloadReport.rejected(error);
    }

    /** Ends the sessions that cannot go on under {@code next}: once idle, or after the grace time. */
    private int endNarrowed(ActiveConfig next) {
        int ended = 0;
        for (ConnectedClient client : context.clients().all()) {
            String reason = ServerContext.narrowing(client, next);
            if (reason != null) {
                PgError why = PolicyChange.ended(reason);
                log.info("reload: ending session {} of login \"{}\": {}", client.connection(), client.login().name(),
                        reason);
                client.control().endWhenIdle(why);
                timer.schedule(() -> client.control().endNow(why), NARROWED_GRACE.toMillis(), TimeUnit.MILLISECONDS);
                ended++;
            }
        }
        return ended;
    }

    private static List<String> changes(PgwardConfig old, PgwardConfig next) {
        List<String> changes = new ArrayList<>();
        Set<String> names = new LinkedHashSet<>(old.logins().keySet());
        names.addAll(next.logins().keySet());
        for (String name : names) {
            PgwardConfig.Login was = old.logins().get(name);
            PgwardConfig.Login now = next.logins().get(name);
            if (was == null) {
                changes.add("login \"" + name + "\" added");
            } else if (now == null) {
                changes.add("login \"" + name + "\" removed");
            } else if (!was.equals(now) || old.isAdmin(name) != next.isAdmin(name)) {
                String narrowed = PolicyChange.narrowing(was, now, true, next.isAdmin(name) || !old.isAdmin(name));
                changes.add(narrowed == null ? "login \"" + name + "\" widened: its running sessions go on"
                        : narrowed);
            }
        }
        if (!old.startupTimeout().equals(next.startupTimeout())) {
            changes.add("startup_timeout is now " + next.startupTimeout().toMillis() + " ms");
        }
        return changes;
    }

    /** The top-level keys that differ in the file but keep their running values until a restart. */
    private static List<String> needsRestart(PgwardConfig running, PgwardConfig file) {
        List<String> keys = new ArrayList<>();
        differs(keys, "listen", running.listen(), file.listen());
        differs(keys, "tls", running.tls(), file.tls());
        differs(keys, "backend", running.backend(), file.backend());
        differs(keys, "pool", running.pool(), file.pool());
        differs(keys, "audit", running.audit(), file.audit());
        differs(keys, "arango", running.arango(), file.arango());
        differs(keys, "nl", running.nl(), file.nl());
        differs(keys, "metrics", running.metrics(), file.metrics());
        differs(keys, "drain_timeout", running.drainTimeout(), file.drainTimeout());
        differs(keys, "mcp", running.mcp(), file.mcp());
        differs(keys, "io", running.io(), file.io());
        return keys;
    }

    private static void differs(List<String> keys, String key, Object running, Object file) {
        if (!Objects.equals(running, file)) {
            keys.add(key);
        }
    }
}
