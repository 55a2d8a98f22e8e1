package io.pgward.demo;

import io.pgward.nl.ProviderConfig;
import io.pgward.sampledb.DatasetSize;
import io.pgward.sampledb.LocalPostgres;
import io.pgward.mcp.McpHttp;
import io.pgward.mcp.TokenHash;
import io.pgward.wire.cli.RunCommand;
import io.pgward.wire.cli.StartupException;
import io.pgward.wire.config.PgwardConfig;
import io.pgward.wire.server.PgwardServer;
import java.io.PrintWriter;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code pgward demo}: the embedded PostgreSQL with the sample shop and pgward in front of it. It lives in the demo's
 * build, which adds it to the production command line ({@link DemoMain}); the production jar carries neither this
 * command nor the PostgreSQL binaries it needs.
 */
@Command(name = "demo",
        mixinStandardHelpOptions = true,
        description = {"Starts an embedded PostgreSQL with the sample shop, pgward in front of it, and prints how "
                + "to connect.",
            "%nThe shop: customers, products, orders, order_items, the view v_sales, the materialized view "
                + "mv_region_revenue, and the sensitive hr.salaries and payment_tokens. pgward offers two logins: "
                + "analyst (read-only) and app (read-write), and ops for its admin console (database pgward). "
                + "Runs until Ctrl-C; everything is deleted on exit.%n"})
final class DemoCommand implements Callable<Integer> {

    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    @Option(names = "--port", paramLabel = "PORT", defaultValue = "6432",
            description = "Port pgward listens on, on 127.0.0.1; 0 picks a free one. Default: ${DEFAULT-VALUE}.")
    private int port;

    @Option(names = "--pg-port", paramLabel = "PORT", defaultValue = "0",
            description = "Port for the embedded PostgreSQL on 127.0.0.1; 0 picks a free one. Default: ${DEFAULT-VALUE}.")
    private int pgPort;

    @Option(names = "--metrics-port", paramLabel = "PORT", defaultValue = "0",
            description = "Port for /metrics, /livez and /readyz over HTTP, on 127.0.0.1; 0 picks a free one. "
                    + "Default: ${DEFAULT-VALUE}.")
    private int metricsPort;

    @Option(names = "--mcp-port", paramLabel = "PORT", defaultValue = "0",
            description = "Port for MCP over HTTP (agents), on 127.0.0.1; 0 picks a free one. Default: ${DEFAULT-VALUE}.")
    private int mcpPort;

    @Option(names = "--scale", paramLabel = "FACTOR", defaultValue = "1.0",
            description = "Size of the sample data: 1.0 is 10,000 customers and 100,000 orders; 0.1 is a tenth. "
                    + "Default: ${DEFAULT-VALUE}.")
    private double scale;

    @Option(names = "--llm-provider", paramLabel = "TYPE",
            description = "LLM for questions in plain language: openai (OpenAI or any OpenAI-compatible server), "
                    + "anthropic or ollama. Default: the variable PGWARD_LLM_PROVIDER, else none. The API key comes "
                    + "from OPENAI_API_KEY or ANTHROPIC_API_KEY.")
    private String llmProvider;

    @Option(names = "--llm-model", paramLabel = "NAME",
            description = "Model name. Default: the variable PGWARD_LLM_MODEL, else gpt-4o-mini, claude-sonnet-4-5 "
                    + "or qwen2.5-coder:7b.")
    private String llmModel;

    @Option(names = "--llm-base-url", paramLabel = "URL",
            description = "Server URL, e.g. http://localhost:8000/v1 (vLLM), http://localhost:8080/v1 (llama.cpp), "
                    + "http://localhost:1234/v1 (LM Studio), http://localhost:11434 (Ollama). Default: "
                    + "the variable PGWARD_LLM_BASE_URL, else the provider's own.")
    private String llmBaseUrl;

    @Override
    public Integer call() throws Exception {
        for (int p : new int[] {port, pgPort, metricsPort, mcpPort}) {
            if (p < 0 || p > 65535) {
                throw new CommandLine.ParameterException(spec.commandLine(), "ports must be 0 to 65535, was " + p);
            }
        }
        DatasetSize size;
        try {
            size = DatasetSize.scaled(scale);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--scale: " + e.getMessage());
        }
        Optional<ProviderConfig> model;
        try {
            model = DemoModel.choose(llmProvider, llmModel, llmBaseUrl, System::getenv);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
        }
        PrintWriter out = spec.commandLine().getOut();
        DemoDatabase database;
        try {
            if (port != 0) {
                LocalPostgres.ensurePortFree(port);
            }
            out.println("pgward demo: starting PostgreSQL and loading the sample shop...");
            out.flush();
            database = DemoDatabase.start(pgPort, size);
        } catch (LocalPostgres.PortInUseException e) {
            throw new StartupException(e.getMessage());
        }
        PgwardServer server;
        McpHttp mcp;
        String token = TokenHash.newToken();
        PgwardConfig config = DemoSetup.withAgents(DemoSetup.config(database, port, model)
                .withMetrics(new PgwardConfig.Listen("127.0.0.1", metricsPort)), mcpPort, token);
        try {
            server = RunCommand.start(config);
        } catch (RuntimeException e) {
            database.close();
            throw e;
        }
        try {
            mcp = RunCommand.startMcp(config, server);
        } catch (RuntimeException e) {
            server.close();
            database.close();
            throw e;
        }
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            mcp.close();
            server.close();
            database.close();
            stopped.countDown();
        }, "pgward-demo-stop"));
        out.println(banner(database, server.port(), server.metricsPort().orElseThrow(),
                agents(RunCommand.mcpEndpoint(config, mcp), token) + questions(model)));
        out.flush();
        stopped.await();
        return 0;
    }

    /** The MCP endpoint and the analyst's token, made for this run. */
    static String agents(String endpoint, String token) {
        return String.format(Locale.ROOT, """
                Agents (MCP, Streamable HTTP), as the analyst:
                  Endpoint:  %s
                  Header:    Authorization: Bearer %s
                  Try:       npx @modelcontextprotocol/inspector --cli %s --transport http --header "Authorization: Bearer %s" --method tools/list

                """, endpoint, token, endpoint, token);
    }

    /** How to ask a question, or how to make the demo answer them. */
    static String questions(Optional<ProviderConfig> model) {
        if (model.isPresent()) {
            return String.format(Locale.ROOT, """
                    Questions in plain language go to %s at %s. As the analyst, try:
                      select * from pgward.ask('top 5 customers by revenue');
                      /* nl: orders per status */
                      select * from pgward.sql('average order value per region');
                    pgward shows the SQL it ran in a NOTICE; that SQL passed every guard layer first.
                    """, model.get().model(), baseUrl(model.get()));
        }
        return """
                Questions in plain language are off: no LLM was given (pgward.schema() answers anyway).
                To ask questions, start the demo with one of:
                  OPENAI_API_KEY=... pgward demo --llm-provider openai [--llm-model gpt-4o-mini]
                  ANTHROPIC_API_KEY=... pgward demo --llm-provider anthropic
                  pgward demo --llm-provider ollama --llm-model qwen2.5-coder:7b [--llm-base-url http://localhost:11434]
                  pgward demo --llm-provider openai --llm-base-url http://localhost:8000/v1 --llm-model <name>
                (or set PGWARD_LLM_PROVIDER, PGWARD_LLM_MODEL and PGWARD_LLM_BASE_URL).
                """;
    }

    private static String baseUrl(ProviderConfig model) {
        return switch (model) {
            case ProviderConfig.OpenAiCompatible openAi -> openAi.baseUrl().toString();
            case ProviderConfig.Anthropic anthropic -> anthropic.baseUrl().map(Object::toString)
                    .orElse("Anthropic's API");
            case ProviderConfig.Ollama ollama -> ollama.baseUrl().toString();
        };
    }

    static String banner(DemoDatabase demo, int port, int metricsPort, String questions) {
        return String.format(Locale.ROOT, """

                pgward is listening on 127.0.0.1:%d in front of PostgreSQL %s (127.0.0.1:%d),
                which holds the sample shop (%,d customers, %,d orders) in the database "%s".

                  Analyst, read-only:   psql "postgresql://%s:%s@127.0.0.1:%d/%s"
                  App, read-write:      psql "postgresql://%s:%s@127.0.0.1:%d/%s"
                  PostgreSQL directly:  psql "%s"
                  Metrics:              curl http://127.0.0.1:%d/metrics   (health: /livez, /readyz)
                  Admin console:        psql "postgresql://%s:%s@127.0.0.1:%d/pgward" -c 'SHOW CLIENTS'

                  Try:  select count(*) from orders;

                The analyst login is read-only: every statement is checked by pgward's guard, and its backend
                session is read-only too. Its table selection leaves out hr.salaries and payment_tokens.
                Every decision is logged below as a JSON line. TLS is offered (sslmode=require works) with a
                self-signed certificate made for this run.

                %s
                Press Ctrl-C to stop; the database is deleted on exit.""",
                port, demo.serverVersion(), demo.postgres().port(), demo.size().customers(), demo.size().orders(),
                DemoDatabase.DATABASE, DemoSetup.ANALYST, DemoSetup.ANALYST, port, DemoDatabase.DATABASE,
                DemoSetup.APP, DemoSetup.APP, port, DemoDatabase.DATABASE, demo.uri(), metricsPort, DemoSetup.OPS,
                DemoSetup.OPS, port, questions);
    }
}
