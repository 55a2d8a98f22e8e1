package io.pgward.wire.cli;

import io.pgward.arango.ArangoStartupException;
import io.pgward.wire.arango.ArangoServing;
import io.pgward.mcp.AgentDoor;
import io.pgward.mcp.McpHttp;
import io.pgward.mcp.McpSettings;
import io.pgward.wire.config.ConfigLoader;
import io.pgward.wire.config.PgwardConfig;
import io.pgward.wire.gate.Gates;
import io.pgward.wire.server.PgwardServer;
import io.pgward.wire.local.LocalDatabase;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(name = "run",
        mixinStandardHelpOptions = true,
        description = "Starts pgward with a configuration file and serves until stopped.")
public final class RunCommand implements Callable<Integer> {

    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    @Option(names = {"-c", "--config"}, paramLabel = "FILE", defaultValue = "pgward.yaml",
            description = "The YAML configuration: where to listen, the PostgreSQL server behind pgward, "
                    + "and each login's policy. Values may be ${ENV_VAR}. Default: ${DEFAULT-VALUE}.")
    private Path config;

    @Override
    public Integer call() throws InterruptedException {
        PgwardConfig loaded = ConfigLoader.load(config);
        ArangoServing arango = startArango(loaded);
        PgwardServer server;
        try {
            server = start(loaded, arango.localDatabases());
        } catch (RuntimeException e) {
            arango.close();
            throw e;
        }
        McpHttp mcp;
        try {
            mcp = startMcp(loaded, server);
        } catch (RuntimeException e) {
            server.close();
            arango.close();
            throw e;
        }
        server.reloadFrom(() -> ConfigLoader.load(config), changed -> checkArango(arango, changed));
        ReloadSignal.install(server);
        spec.commandLine().getOut().println("pgward: listening on " + server.address() + " with "
                + loaded.logins().size() + " logins, forwarding to " + loaded.backend().host() + ":"
                + loaded.backend().port() + arangoSummary(loaded));
        if (mcp != null) {
            spec.commandLine().getOut().println("pgward: serving MCP for agents on " + mcpEndpoint(loaded, mcp)
                    + " (logins " + loaded.mcp().get().logins().keySet() + ")");
        }
        spec.commandLine().getOut().flush();
        CountDownLatch stopped = new CountDownLatch(1);
        // SIGTERM and SIGINT: running statements finish within drain_timeout.
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            if (mcp != null) {
                mcp.close();
            }
            server.drain(loaded.drainTimeout());
            arango.close();
            stopped.countDown();
        }, "pgward-stop"));
        stopped.await();
        return 0;
    }

    /**
     * Starts pgward with a configuration already checked, as {@code run} does but without ArangoDB; a reason it
     * cannot start (its port taken, for one) is a {@link StartupException}.
     */
    public static PgwardServer start(PgwardConfig config) {
        return start(config, Map.of());
    }

    static PgwardServer start(PgwardConfig config, Map<String, LocalDatabase> localDatabases) {
        try {
            return PgwardServer.start(config, audit -> Gates.standard(config, audit), localDatabases);
        } catch (IllegalStateException e) {
            throw new StartupException(e.getMessage());
        }
    }

    /** A reloaded login must fit each served ArangoDB database as at start (its selection, for one). */
    private static void checkArango(ArangoServing arango, PgwardConfig changed) {
        arango.check(changed.logins().values());
    }

    /**
     * Serves MCP when the configuration has an {@code mcp:} section: its tools are sessions through the running
     * server's agent listener. Null without the section.
     */
    public static McpHttp startMcp(PgwardConfig config, PgwardServer server) {
        if (config.mcp().isEmpty()) {
            return null;
        }
        McpSettings settings = config.mcp().get();
        AgentDoor door = server.openAgentDoor(settings.logins().keySet(), settings.database());
        try {
            return McpHttp.start(settings, door, Main.version());
        } catch (IllegalStateException e) {
            throw new StartupException(e.getMessage());
        }
    }

    /** The URL agents connect to. */
    public static String mcpEndpoint(PgwardConfig config, McpHttp mcp) {
        String host = config.mcp().get().host();
        return "http://" + (host.contains(":") ? "[" + host + "]" : host) + ":" + mcp.port() + McpSettings.PATH;
    }

    /** Connects to every configured ArangoDB database; one that cannot be used stops pgward. */
    static ArangoServing startArango(PgwardConfig config) {
        try {
            return ArangoServing.start(config.arango(), config.logins().values(),
                    config.nl().orElse(io.pgward.nl.NlSettings.defaults()), null);
        } catch (ArangoStartupException | IllegalArgumentException e) {
            throw new StartupException(e.getMessage());
        }
    }

    private static String arangoSummary(PgwardConfig config) {
        if (config.arango().isEmpty()) {
            return "";
        }
        return "; ArangoDB databases " + config.arango().stream()
                .map(a -> a.name() + " -> " + a.endpoint() + "/" + a.database()).toList();
    }
}
