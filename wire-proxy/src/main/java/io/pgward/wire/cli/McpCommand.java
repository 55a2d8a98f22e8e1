package io.pgward.wire.cli;

import io.pgward.mcp.AgentDoor;
import io.pgward.mcp.McpSettings;
import io.pgward.mcp.McpStdio;
import io.pgward.wire.config.ConfigLoader;
import io.pgward.wire.config.PgwardConfig;
import io.pgward.wire.server.PgwardServer;
import java.io.FileInputStream;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code pgward mcp --login NAME}: MCP over stdin and stdout for a local agent, as one login. The process runs
 * pgward without a clients' listener; its tools reach PostgreSQL through pgward's guard exactly as over HTTP.
 */
@Command(name = "mcp",
        mixinStandardHelpOptions = true,
        description = "Serves MCP over stdin/stdout for a local agent, as one login, through pgward's guard.")
public final class McpCommand implements Callable<Integer> {

    @Option(names = {"-c", "--config"}, paramLabel = "FILE", defaultValue = "pgward.yaml",
            description = "The YAML configuration, as for run. Default: ${DEFAULT-VALUE}.")
    private Path config;

    @Option(names = "--login", required = true, paramLabel = "NAME",
            description = "The login whose policy the agent gets.")
    private String login;

    @Option(names = "--database", paramLabel = "NAME",
            description = "The database the tools query. Default: mcp.database of the configuration.")
    private String database;

    @Override
    public Integer call() throws InterruptedException {
        // stdout carries MCP messages alone: whatever else would print there (an audit to stdout) goes to stderr.
        PrintStream protocol = new PrintStream(new FileOutputStream(FileDescriptor.out), true);
        System.setOut(System.err);
        PgwardConfig loaded = ConfigLoader.load(config);
        PgwardConfig.Login chosen = loaded.logins().get(login);
        if (chosen == null) {
            throw new StartupException("--login " + login + " is not one of the logins: " + loaded.logins().keySet());
        }
        String target = database != null ? database
                : loaded.mcp().map(McpSettings::database).orElseThrow(() -> new StartupException(
                        "--database is required when the configuration has no mcp.database"));
        McpSettings.AgentLogin agent = loaded.mcp().map(m -> m.logins().get(login)).orElse(null);
        if (agent == null) {
            agent = new McpSettings.AgentLogin(login, chosen.mode() == PgwardConfig.Mode.READ_ONLY, false, List.of(),
                    chosen.policy().tables(), chosen.policy().rowCap());
        }
        int pageRows = loaded.mcp().map(McpSettings::pageRows).orElse(McpSettings.DEFAULT_PAGE_ROWS);
        boolean arango = loaded.arango().stream().anyMatch(a -> a.name().equals(target));
        McpSettings settings = new McpSettings(null, 0, target, pageRows, java.util.Map.of(login, agent), arango,
                loaded.mcp().map(McpSettings::sessionIdle).orElse(McpSettings.DEFAULT_SESSION_IDLE));
        io.pgward.wire.arango.ArangoServing arangoServing = RunCommand.startArango(loaded);
        PgwardServer server;
        try {
            server = PgwardServer.startForAgentsOnly(loaded, arangoServing.localDatabases());
        } catch (IllegalStateException e) {
            arangoServing.close();
            throw new StartupException(e.getMessage());
        }
        try {
            AgentDoor door = server.openAgentDoor(List.of(login), target);
            McpStdio.serve(settings, agent, door, Main.version(),
                    new FileInputStream(FileDescriptor.in), protocol);
        } finally {
            server.close();
            arangoServing.close();
        }
        return 0;
    }
}
