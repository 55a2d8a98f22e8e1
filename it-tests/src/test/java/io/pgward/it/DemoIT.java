package io.pgward.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.Socket;
import java.net.URI;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * {@code pgward demo} as a user runs it: a separate process that prints psql commands for its logins, answers
 * psql through pgward (the analyst read-only, over TLS), and on SIGTERM (what Ctrl-C's shutdown path shares)
 * stops pgward and PostgreSQL and exits.
 */
class DemoIT {

    private static final Pattern APP = Pattern.compile("App, read-write:\\s+psql \"(postgresql://[^\"]+)\"");
    private static final Pattern ANALYST = Pattern.compile("Analyst, read-only:\\s+psql \"(postgresql://[^\"]+)\"");

    @Test
    void demoAnswersPsqlAndStopsCleanly() throws Exception {
        Path psql = RealClients.require("psql");
        try (DemoProcess demo = DemoProcess.start("0.1")) {
            List<String> uris = awaitConnectLines(demo);
            String app = uris.get(0);
            String analyst = uris.get(1);

            RealClients.Result count = RealClients.run(List.of(psql.toString(), app, "-At", "-c",
                    "select count(*) from orders"));
            assertEquals(0, count.exit(), count.err());
            assertEquals("10000", count.out().strip());

            RealClients.Result write = RealClients.run(List.of(psql.toString(), analyst + "?sslmode=require", "-At",
                    "-c", "insert into products (sku, name, category, unit_price) values ('x', 'y', 'z', 1)"));
            assertEquals(1, write.exit(), write.out());
            assertTrue(write.err().contains(
                    "pgward refused this query: INSERT is not allowed for the read-only login \"analyst\""),
                    write.err());

            RealClients.Result analystCount = RealClients.run(List.of(psql.toString(), analyst + "?sslmode=require",
                    "-At", "-c", "select count(*) from orders"));
            assertEquals(0, analystCount.exit(), analystCount.err());
            assertEquals("10000", analystCount.out().strip());

            RealClients.Result salaries = RealClients.run(List.of(psql.toString(), analyst + "?sslmode=require",
                    "-At", "-c", "select * from hr.salaries"));
            assertEquals(1, salaries.exit(), salaries.out());
            assertTrue(salaries.err().contains("pgward refused this query: it reads hr.salaries, which this login's "
                    + "table selection does not include. Selected: public.orders, public.customers, public.products, "
                    + "public.order_items, public.v_sales, public.mv_region_revenue."), salaries.err());

            int port = URI.create(app).getPort();
            demo.stop();
            assertFalse(accepts(port), "PostgreSQL stopped with the demo");
        }
    }

    @Test
    void demoAnswersQuestionsWithTheModelGivenOnTheCommandLine() throws Exception {
        Path psql = RealClients.require("psql");
        String question = "how many orders are there";
        String sql = "SELECT count(*) AS orders FROM public.orders LIMIT 1";
        try (ScriptedLlmServer llm = new ScriptedLlmServer()) {
            llm.script(question, ScriptedLlmServer.sql(sql));
            try (DemoProcess demo = DemoProcess.start("0.01", DemoProcess.modelOptions(llm))) {
                String analyst = awaitConnectLines(demo).get(1);
                RealClients.Result asked = RealClients.run(List.of(psql.toString(), analyst, "-At", "-c",
                        "select * from pgward.ask('" + question + "')"));
                assertEquals(0, asked.exit(), asked.err());
                assertEquals("1000", asked.out().strip());
                assertTrue(asked.err().contains(sql), asked.err());
                String prompt = llm.requestsFor(question).getFirst().at("/messages/0/content").asText();
                assertTrue(prompt.contains("orders.status is an enum"), "the demo's description:\n" + prompt);
                assertTrue(prompt.contains("<analyst_rules>"), prompt);
                assertFalse(prompt.contains("salaries"), prompt);
                demo.stop();
            }
        }
    }

    /** The app and analyst connection strings the demo prints. */
    private static List<String> awaitConnectLines(DemoProcess demo) throws IOException {
        return demo.awaitPrinted("how to connect", APP, ANALYST);
    }

    private static boolean accepts(int port) {
        try (Socket ignored = new Socket("127.0.0.1", port)) {
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
