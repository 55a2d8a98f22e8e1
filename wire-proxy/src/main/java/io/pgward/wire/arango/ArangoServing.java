package io.pgward.wire.arango;

import io.pgward.arango.AqlLimits;
import io.pgward.arango.AqlPolicy;
import io.pgward.arango.ArangoBridge;
import io.pgward.arango.ArangoConfig;
import io.pgward.arango.ArangoDatabases;
import dev.langchain4j.model.chat.ChatModel;
import io.pgward.nl.NlSettings;
import io.pgward.wire.config.PgwardConfig;
import io.pgward.wire.local.LocalDatabase;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The configured ArangoDB databases, connected and probed, as the {@link LocalDatabase}s the server serves by
 * name. Started before pgward listens, so a wrong endpoint, credential or database stops the start; closed after
 * the server stops.
 */
public final class ArangoServing implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(ArangoServing.class);

    private final ArangoDatabases databases;
    private final Map<String, LocalDatabase> byName;
    /** Where the databases' statements run, each on a virtual thread (they wait on ArangoDB's HTTP replies). */
    private final ExecutorService statements = Executors.newThreadPerTaskExecutor(
            Thread.ofVirtual().name("pgward-arango-", 0).factory());

    private ArangoServing(ArangoDatabases databases, Collection<PgwardConfig.Login> logins, NlSettings nl,
                          ChatModel model) {
        this.databases = databases;
        Map<String, PgwardConfig.Login> byLogin = new LinkedHashMap<>();
        logins.forEach(login -> byLogin.put(login.name(), login));
        Map<String, LocalDatabase> local = new LinkedHashMap<>();
        for (ArangoBridge bridge : databases.all()) {
            for (String account : bridge.config().loginAuth().keySet()) {
                if (!byLogin.containsKey(account)) {
                    throw new IllegalArgumentException("arango." + bridge.config().name() + ".logins." + account
                            + ": there is no login " + account);
                }
            }
            LoginPolicies policies = new LoginPolicies(bridge);
            logins.forEach(policies::check);
            local.put(bridge.config().name(), new ArangoLocalDatabase(bridge,
                    new ArangoQuestions(bridge, nl, model, policies), policies, statements));
        }
        this.byName = Map.copyOf(local);
    }

    /**
     * Connects to every entry and runs its startup probe, then logs what is served.
     *
     * @throws io.pgward.arango.ArangoStartupException naming the entry and the part of it that is wrong
     * @throws IllegalArgumentException naming a login setting that cannot apply to an ArangoDB database
     */
    public static ArangoServing start(List<ArangoConfig> configs, Collection<PgwardConfig.Login> logins) {
        return start(configs, logins, NlSettings.defaults(), null);
    }

    /**
     * As {@link #start(List, Collection)}, with the {@code nl:} settings questions use, and the chat model to use
     * (null: made from the settings' provider; no provider, no questions).
     */
    public static ArangoServing start(List<ArangoConfig> configs, Collection<PgwardConfig.Login> logins,
                                      NlSettings nl, ChatModel model) {
        ArangoDatabases databases = ArangoDatabases.start(configs);
        ArangoServing serving;
        try {
            serving = new ArangoServing(databases, logins, nl, model);
        } catch (RuntimeException e) {
            databases.close();
            throw e;
        }
        serving.logServed(logins);
        return serving;
    }

    /**
     * Refuses logins that cannot apply to a served database, as at start.
     *
     * @throws IllegalArgumentException naming the login's key
     */
    public void check(Collection<PgwardConfig.Login> logins) {
        for (ArangoBridge bridge : databases.all()) {
            LoginPolicies policies = new LoginPolicies(bridge);
            logins.forEach(policies::check);
        }
    }

    /** The local databases by pgward database name, for {@code PgwardServer.start}. */
    public Map<String, LocalDatabase> localDatabases() {
        return byName;
    }

    private void logServed(Collection<PgwardConfig.Login> logins) {
        List<String> readOnly = logins.stream().filter(l -> l.mode() == PgwardConfig.Mode.READ_ONLY)
                .map(PgwardConfig.Login::name).toList();
        List<String> raw = logins.stream().filter(l -> l.mode() == PgwardConfig.Mode.READ_WRITE)
                .map(PgwardConfig.Login::name).toList();
        for (ArangoBridge bridge : databases.all()) {
            ArangoConfig config = bridge.config();
            AqlLimits limits = config.limits();
            log.info("serving database \"{}\" from ArangoDB {} ({} edition) at {} database \"{}\" as {} over {}; "
                            + "limits: runtime {}, memory {} bytes, {} rows",
                    config.name(), bridge.serverInfo().version(), bridge.serverInfo().license(),
                    config.endpoint(), config.database(), config.auth().describe(), config.protocol().key(),
                    limits.maxRuntime(), limits.memoryLimitBytes(), limits.maxRows());
            log.info("database \"{}\": read-only logins {} run AQL through the plan gate; read-write logins {} "
                    + "run AQL as written", config.name(), readOnly, raw);
            config.loginAuth().forEach((login, account) -> log.info("database \"{}\": login \"{}\" runs as {}",
                    config.name(), login, account.describe()));
            for (PgwardConfig.Login login : logins) {
                if (login.mode() == PgwardConfig.Mode.READ_ONLY) {
                    AqlPolicy policy = LoginPolicies.translate(config.name(), login.name(), login.policy());
                    AqlLimits applied = policy.applyTo(limits);
                    Object reads = policy.selection().map(s -> (Object) new java.util.TreeSet<>(s))
                            .orElse("every collection and view");
                    log.info("database \"{}\": login \"{}\" reads {}, no system collections; runtime {}, {} rows",
                            config.name(), login.name(), reads, applied.maxRuntime(), applied.maxRows());
                }
            }
        }
    }

    @Override
    public void close() {
        statements.shutdownNow();
        databases.close();
    }
}
