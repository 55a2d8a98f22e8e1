package io.pgward.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
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
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Process demo = new ProcessBuilder(java.toString(), "-cp", System.getProperty("java.class.path"),
                "io.pgward.demo.DemoMain", "demo", "--scale", "0.1", "--port", "0").redirectErrorStream(true).start();
        try {
            String[] uris = awaitConnectLines(demo);
            String app = uris[0];
            String analyst = uris[1];

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
            demo.destroy();
            assertTrue(demo.waitFor(60, TimeUnit.SECONDS), "demo exits on SIGTERM");
            assertFalse(accepts(port), "PostgreSQL stopped with the demo");
        } finally {
            demo.destroyForcibly();
        }
    }

    @Test
    void demoAnswersQuestionsWithTheModelGivenOnTheCommandLine() throws Exception {
        Path psql = RealClients.require("psql");
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        String question = "how many orders are there";
        String sql = "SELECT count(*) AS orders FROM public.orders LIMIT 1";
        try (ScriptedLlmServer llm = new ScriptedLlmServer()) {
            llm.script(question, ScriptedLlmServer.sql(sql));
            ProcessBuilder builder = new ProcessBuilder(java.toString(), "-cp", System.getProperty("java.class.path"),
                    "io.pgward.demo.DemoMain", "demo", "--scale", "0.01", "--port", "0",
                    "--llm-provider", "openai", "--llm-base-url", llm.baseUrl().toString(),
                    "--llm-model", ScriptedLlmServer.MODEL).redirectErrorStream(true);
            builder.environment().keySet().removeIf(name -> name.startsWith("PGWARD_LLM_") || name.endsWith("_API_KEY"));
            Process demo = builder.start();
            try {
                String analyst = awaitConnectLines(demo)[1];
                RealClients.Result asked = RealClients.run(List.of(psql.toString(), analyst, "-At", "-c",
                        "select * from pgward.ask('" + question + "')"));
                assertEquals(0, asked.exit(), asked.err());
                assertEquals("1000", asked.out().strip());
                assertTrue(asked.err().contains(sql), asked.err());
                String prompt = llm.requestsFor(question).getFirst().at("/messages/0/content").asText();
                assertTrue(prompt.contains("orders.status is an enum"), "the demo's description:\n" + prompt);
                assertTrue(prompt.contains("<analyst_rules>"), prompt);
                assertFalse(prompt.contains("salaries"), prompt);
            } finally {
                demo.destroy();
                assertTrue(demo.waitFor(60, TimeUnit.SECONDS), "demo exits on SIGTERM");
            }
        }
    }

    /** The app and analyst connection strings the demo prints. */
    private static String[] awaitConnectLines(Process demo) throws IOException {
        BufferedReader reader = new BufferedReader(new InputStreamReader(demo.getInputStream(), StandardCharsets.UTF_8));
        StringBuilder seen = new StringBuilder();
        String line;
        String app = null;
        String analyst = null;
        while ((line = reader.readLine()) != null) {
            seen.append(line).append('\n');
            Matcher a = APP.matcher(line);
            Matcher r = ANALYST.matcher(line);
            if (a.find()) {
                app = a.group(1);
            } else if (r.find()) {
                analyst = r.group(1);
            }
            if (app != null && analyst != null) {
                Thread drain = new Thread(() -> {
                    try {
                        reader.transferTo(java.io.Writer.nullWriter());
                    } catch (IOException ignored) {
                        // the demo closed its output: nothing left to drain
                    }
                });
                drain.setDaemon(true);
                drain.start();
                return new String[] {app, analyst};
            }
        }
        throw new AssertionError("demo exited before printing how to connect:\n" + seen);
    }

    private static boolean accepts(int port) {
        try (Socket ignored = new Socket("127.0.0.1", port)) {
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
