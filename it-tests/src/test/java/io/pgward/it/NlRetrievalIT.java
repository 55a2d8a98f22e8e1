package io.pgward.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgward.nl.NlSettings;
import io.pgward.nl.ProviderConfig;
import io.pgward.nl.RetrievalSettings;
import io.pgward.testkit.PostgresTest;
import io.pgward.testkit.SampleData;
import io.pgward.testkit.TestDatabase;
import io.pgward.wire.config.PgwardConfig;
import java.io.IOException;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A question whose prompt shows only some relations: the login's six selected relations are over
 * {@code nl.retrieval.relation_limit} (here 3), so the prompt holds the best matches and the join table between
 * them, says how many more exist, and the generated query still runs from psql and pgjdbc.
 */
@PostgresTest(sampleData = SampleData.SMALL)
class NlRetrievalIT {

    private static final String QUESTION = "the shipped_at date and the sku of what was shipped";
    private static final String SQL = "SELECT o.shipped_at, p.sku FROM public.orders AS o "
            + "JOIN public.order_items AS i ON i.order_id = o.id JOIN public.products AS p ON p.id = i.product_id "
            + "WHERE o.shipped_at IS NOT NULL ORDER BY 1, 2 LIMIT 5";

    private static ScriptedLlmServer llm;
    private static ProxyFixture proxy;

    @BeforeAll
    static void start(TestDatabase db) throws IOException {
        llm = new ScriptedLlmServer();
        llm.script(QUESTION, ScriptedLlmServer.sql(SQL), ScriptedLlmServer.sql(SQL));
        NlSettings defaults = NlSettings.defaults();
        NlSettings settings = new NlSettings(Optional.of(new ProviderConfig.OpenAiCompatible(llm.baseUrl(),
                ScriptedLlmServer.MODEL, Optional.empty(), Duration.ofSeconds(20), true)), "", 3,
                defaults.promptBudgetChars(), 2, defaults.defaultRowLimit(), defaults.maxRowLimit(),
                defaults.explainTimeout(), new RetrievalSettings(3, true, RetrievalSettings.Expansion.BRIDGES, true,
                true));
        proxy = ProxyFixture.start(db, ProxyFixture.STANDARD_GATES, null, PgwardConfig.TlsMode.DISABLE, 4,
                config -> {
                    Map<String, PgwardConfig.Login> logins = new LinkedHashMap<>(config.logins());
                    PgwardConfig.Login analyst = logins.get("analyst");
                    PgwardConfig.Policy policy = analyst.policy();
                    logins.put("analyst", analyst.withPolicy(new PgwardConfig.Policy(policy.mode(),
                            policy.statementTimeout(), 0, NaturalLanguageIT.SELECTION, "")));
                    return config.withLogins(logins).withNl(settings);
                });
    }

    @AfterAll
    static void stop() throws IOException {
        proxy.close();
        llm.close();
    }

    @Test
    void thePromptShowsTheChosenRelationsAndTheJoinTablesAndTheQueryRuns() throws Exception {
        try (Connection c = proxy.connect("analyst"); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT * FROM pgward.ask('" + QUESTION + "')")) {
            int rows = 0;
            while (rs.next()) {
                rows++;
            }
            assertEquals(5, rows);
        }
        RealClients.Result psql = RealClients.run(new ArrayList<>(List.of(RealClients.require("psql").toString(),
                "-X", "-A", "-t", "-d", proxy.uri("analyst"), "-c", "select * from pgward.ask('" + QUESTION + "')")));
        assertEquals(0, psql.exit(), psql.err());
        assertEquals(5, psql.out().strip().lines().count(), psql.out());

        String prompt = llm.requestsFor(QUESTION).getFirst().at("/messages/0/content").asText();
        List<String> shown = new ArrayList<>();
        Matcher relation = Pattern.compile("(?m)^(?:table|view|materialized view) (\\S+)").matcher(prompt);
        while (relation.find()) {
            shown.add(relation.group(1));
        }
        // shipped_at and sku are words of orders and products only; order_items joins the two.
        assertEquals(List.of("public.orders", "public.products", "public.order_items"), shown, prompt);
        assertTrue(prompt.contains((NaturalLanguageIT.SELECTION.size() - shown.size()) + " more relation"), prompt);
        for (String name : shown) {
            assertTrue(NaturalLanguageIT.SELECTION.contains(name), name + " is not in the selection");
        }
        assertFalse(prompt.contains("payment_tokens") || prompt.contains("salaries"), "nothing outside the selection");
    }
}
