package io.pgward.demo;

import io.pgward.nl.NlSettings;
import io.pgward.nl.ProviderConfig;
import io.pgward.wire.config.PgwardConfig;
import io.pgward.wire.config.Secret;
import io.pgward.wire.net.SelfSignedCertificate;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import io.pgward.mcp.McpSettings;
import io.pgward.mcp.TokenHash;

/**
 * The configuration {@code pgward demo} runs with: pgward on 127.0.0.1 in front of the demo database, TLS
 * offered with a fresh self-signed certificate, and two logins:
 * {@code analyst} (password {@code analyst}, read-only) and {@code app} (password {@code app}, read-write).
 */
final class DemoSetup {

    /** Small enough that {@code select * from orders} shows the cap, large enough for any real question. */
    static final long ANALYST_ROW_CAP = 10_000;
    /**
     * What a security team sets for analysts: without one, a runaway query (a cross join, an endless recursive CTE)
     * holds a backend and a CPU until someone cancels it.
     */
    static final Duration ANALYST_STATEMENT_TIMEOUT = Duration.ofSeconds(30);

    /** The shop without the sensitive data: not hr.salaries, not payment_tokens. */
    static final List<String> ANALYST_TABLES = List.of("public.orders", "public.customers", "public.products",
            "public.order_items", "public.v_sales", "public.mv_region_revenue");

    /** What the questions' prompts say about the shop; the setting that most improves the SQL. */
    static final String DESCRIPTION = "The sample web shop. customers (region, country, segment) place orders; "
            + "each order has order_items, one per product line (quantity and unit_price at the time of the "
            + "order). orders.status is an enum: pending, paid, shipped, delivered, cancelled, refunded; revenue "
            + "counts orders that are neither cancelled nor refunded, orders.total is the order's amount. v_sales "
            + "is one row per order line with customer and product details; mv_region_revenue is monthly revenue "
            + "and order count per customer region.";

    /** The analyst's rules, shown to the LLM inside {@code <analyst_rules>}. */
    static final String ANALYST_RULES = "Refer to customers by name, never by email. Round amounts to two decimals.";

    public static final String ANALYST = "analyst";
    public static final String APP = "app";
    /** The admin console's login (database pgward); read-only on the shop, as nothing more is needed there. */
    public static final String OPS = "ops";

    private DemoSetup() {
    }

    /** Without an LLM: the schema functions answer, questions say how to configure one. */
    public static PgwardConfig config(DemoDatabase database, int port) {
        return config(database, port, Optional.empty());
    }

    /** With {@code model}, the analyst can ask questions ({@code pgward.ask}, the {@code nl:} comment form). */
    /**
     * MCP for agents on 127.0.0.1:{@code mcpPort} (0: a free port), as the analyst with {@code token}, whose hash
     * alone is in the configuration, as a security team's file would hold it.
     */
    public static PgwardConfig withAgents(PgwardConfig config, int mcpPort, String token) {
        PgwardConfig.Login analyst = config.logins().get(ANALYST);
        return config.withMcp(new McpSettings("127.0.0.1", mcpPort, DemoDatabase.DATABASE,
                McpSettings.DEFAULT_PAGE_ROWS, Map.of(ANALYST, new McpSettings.AgentLogin(ANALYST, true, false,
                        List.of(TokenHash.hash(token)), analyst.policy().tables(), analyst.policy().rowCap()))));
    }

    public static PgwardConfig config(DemoDatabase database, int port, Optional<ProviderConfig> model) {
        Path certificates;
        try {
            certificates = Files.createTempDirectory("pgward-demo-tls-");
            certificates.toFile().deleteOnExit();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        SelfSignedCertificate.PemFiles pem = SelfSignedCertificate.write(certificates);
        pem.certificate().toFile().deleteOnExit();
        pem.key().toFile().deleteOnExit();
        Secret backendPassword = new Secret(database.postgres().password());
        Map<String, PgwardConfig.Login> logins = new LinkedHashMap<>();
        logins.put(ANALYST, new PgwardConfig.Login(ANALYST, PgwardConfig.AuthMethod.SCRAM_SHA_256,
                new Secret(ANALYST), null, DemoDatabase.ANALYST_ROLE, backendPassword,
                new PgwardConfig.Policy(PgwardConfig.Mode.READ_ONLY, ANALYST_STATEMENT_TIMEOUT, ANALYST_ROW_CAP,
                        ANALYST_TABLES, ANALYST_RULES)));
        logins.put(APP, new PgwardConfig.Login(APP, PgwardConfig.AuthMethod.SCRAM_SHA_256,
                new Secret(APP), null, DemoDatabase.APP_ROLE, backendPassword, PgwardConfig.Mode.READ_WRITE));
        logins.put(OPS, new PgwardConfig.Login(OPS, PgwardConfig.AuthMethod.SCRAM_SHA_256,
                new Secret(OPS), null, DemoDatabase.ANALYST_ROLE, backendPassword,
                new PgwardConfig.Policy(PgwardConfig.Mode.READ_ONLY, ANALYST_STATEMENT_TIMEOUT, ANALYST_ROW_CAP,
                        ANALYST_TABLES, null)));
        return new PgwardConfig(new PgwardConfig.Listen("127.0.0.1", port), Duration.ofSeconds(10),
                new PgwardConfig.Tls(PgwardConfig.TlsMode.ALLOW, pem.certificate(), pem.key()),
                new PgwardConfig.Backend(database.postgres().host(), database.postgres().port(),
                        PgwardConfig.SslMode.DISABLE, null),
                new PgwardConfig.Pool(50, Duration.ofSeconds(5)), logins, PgwardConfig.Audit.STDOUT, List.of(),
                Optional.of(new NlSettings(model, DESCRIPTION, NlSettings.DEFAULT_MAX_ATTEMPTS,
                        NlSettings.DEFAULT_PROMPT_BUDGET_CHARS, NlSettings.DEFAULT_TOP_K, NlSettings.DEFAULT_ROW_LIMIT,
                        NlSettings.MAX_ROW_LIMIT, NlSettings.DEFAULT_EXPLAIN_TIMEOUT)))
                .withAdmins(List.of(OPS));
    }
}
