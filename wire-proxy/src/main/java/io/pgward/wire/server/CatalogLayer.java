package io.pgward.wire.server;

import com.zaxxer.hikari.HikariDataSource;
import io.pgward.guard.catalog.CatalogCheck;
import io.pgward.guard.selection.SelectedNames;
import io.pgward.wire.config.PgwardConfig;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Layer L3 for a whole pgward: one {@link CatalogCheck} per (backend role, database), each on a control pool that
 * logs in as that role, and one {@link LoginCatalog} per (read-only login, database). They are made on first use,
 * off the event loop; one that cannot be made (the database is down) is forgotten, so the next statement tries
 * again, and meanwhile statements are refused (fail closed).
 */
final class CatalogLayer implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(CatalogLayer.class);

    private final PgwardConfig config;
    private final ExecutorService executor = Executors.newThreadPerTaskExecutor(
            Thread.ofVirtual().name("pgward-catalog-setup-", 0).factory());
    private final ConcurrentHashMap<String, CompletableFuture<Pools>> pools = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, CompletableFuture<LoginCatalog>> logins = new ConcurrentHashMap<>();
    private volatile boolean closed;

    private record Pools(CatalogCheck check, HikariDataSource control) {
    }

    CatalogLayer(PgwardConfig config) {
        this.config = config;
    }

    CompletableFuture<LoginCatalog> forLogin(PgwardConfig.Login login, String database) {
        String key = login.name() + "\0" + database;
        return logins.computeIfAbsent(key, k -> pools(login, database).thenApplyAsync(p -> {
            try {
                return new LoginCatalog(login.name(), p.check(), p.control(),
                        SelectedNames.parse("logins." + login.name() + ".tables", login.policy().tables()));
            } catch (java.sql.SQLException e) {
                throw new IllegalStateException("resolving the table selection failed: " + e.getMessage(), e);
            }
        }, executor).whenComplete((made, failure) -> {
            if (failure != null) {
                log.warn("the catalog check for login \"{}\" on database \"{}\" is not available: {}", login.name(),
                        database, failure.getMessage());
                logins.remove(k);
            }
        }));
    }

    private CompletableFuture<Pools> pools(PgwardConfig.Login login, String database) {
        String key = login.backendUser() + "\0" + database;
        return pools.computeIfAbsent(key, k -> CompletableFuture.supplyAsync(() -> {
            if (closed) {
                throw new IllegalStateException("pgward is stopping");
            }
            String password = login.backendPassword() == null ? null : login.backendPassword().value();
            String url = jdbcUrl(database);
            HikariDataSource checkPool = CatalogCheck.controlPool(url, login.backendUser(), password,
                    config.backend().catalogCheckConnections());
            try {
                HikariDataSource control = CatalogCheck.controlPool(url, login.backendUser(), password, 2);
                return new Pools(new CatalogCheck(checkPool, CatalogCheck.Options.DEFAULTS), control);
            } catch (RuntimeException e) {
                checkPool.close();
                throw e;
            }
        }, executor).whenComplete((made, failure) -> {
            if (failure != null) {
                pools.remove(k);
            }
        }));
    }

    /** The control connections go where the backend connections go, with the same TLS requirements. */
    private String jdbcUrl(String database) {
        PgwardConfig.Backend backend = config.backend();
        String host = backend.controlHost();
        StringBuilder url = new StringBuilder("jdbc:postgresql://").append(host.contains(":")
                ? "[" + host + "]" : host).append(':').append(backend.controlPort()).append('/')
                .append(URLEncoder.encode(database, StandardCharsets.UTF_8).replace("+", "%20"));
        switch (backend.sslmode()) {
            case DISABLE -> url.append("?sslmode=disable");
            case REQUIRE -> url.append("?sslmode=require");
            case VERIFY_FULL -> url.append("?sslmode=verify-full").append(backend.rootCertificate() == null
                    ? "&sslfactory=org.postgresql.ssl.DefaultJavaSSLFactory"
                    : "&sslrootcert=" + URLEncoder.encode(backend.rootCertificate().toString(), StandardCharsets.UTF_8));
        }
        return url.toString();
    }

    /** A read-write login ran DDL: every check drops its verdicts now (and selections are resolved again). */
    void schemaChanged() {
        for (CompletableFuture<Pools> made : pools.values()) {
            Pools p = made.getNow(null);
            if (p != null) {
                p.check().invalidate();
            }
        }
    }

    @Override
    public void close() {
        closed = true;
        List<CompletableFuture<Pools>> all = new ArrayList<>(pools.values());
        for (CompletableFuture<Pools> made : all) {
            made.thenAccept(p -> {
                p.check().close();
                p.control().close();
            });
        }
        executor.shutdown();
    }
}
