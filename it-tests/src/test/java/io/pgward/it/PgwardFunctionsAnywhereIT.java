package io.pgward.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.pgward.nl.NlSettings;
import io.pgward.nl.ProviderConfig;
import io.pgward.testkit.PostgresTest;
import io.pgward.testkit.SampleData;
import io.pgward.testkit.TestDatabase;
import io.pgward.wire.config.PgwardConfig;
import java.io.IOException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLWarning;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The {@code pgward.*} functions wherever a SELECT may call a function, on a read-only login with a table selection
 * ({@code analyst}) and a read-write one ({@code app}): in FROM with aliases, joined, filtered, grouped, in a CTE, a
 * subquery, as a scalar and under EXPLAIN, from pgjdbc in both protocols and psql; with bound arguments from pgjdbc
 * (a PreparedStatement re-executed past its prepare threshold), psycopg 3 and node-postgres.
 */
@PostgresTest(sampleData = SampleData.SMALL)
class PgwardFunctionsAnywhereIT {

    static final List<String> SELECTION = List.of("public.orders", "public.customers", "public.products",
            "public.order_items", "public.v_sales", "public.mv_region_revenue");
    static final List<String> LOGINS = List.of("analyst", "app");
    static final String TOP_CUSTOMERS = "top 3 customers by revenue";
    static final String TOP_CUSTOMERS_SQL = "SELECT c.name, sum(o.total) AS revenue FROM public.customers AS c "
            + "JOIN public.orders AS o ON o.customer_id = c.id GROUP BY c.name ORDER BY revenue DESC LIMIT 3";

    static final String PRICIEST = "the 2 most expensive products";
    static final String PRICIEST_SQL = "SELECT name, unit_price FROM public.products ORDER BY unit_price DESC, name "
            + "LIMIT 2";
    /** What pgward tells the model when the statement fixes a question's columns. */
    static final String COLUMNS = "\n\nThe result must have exactly these columns, in this order: name text, "
            + "revenue numeric.";

    static final ClientScript PSYCOPG = ClientScript.python("psycopg", "pgward_functions.py", "psycopg",
            "python3-psycopg", "describe", "joined", "unknown", "ask");
    static final ClientScript NODE_POSTGRES = ClientScript.node("node-postgres", "pgward-functions.mjs",
            "describe", "joined", "unknown", "ask");

    private static ScriptedLlmServer llm;
    private static ProxyFixture proxy;
    private static TestDatabase database;

    @BeforeAll
    static void start(TestDatabase db) throws IOException {
        database = db;
        llm = new ScriptedLlmServer();
        llm.script(TOP_CUSTOMERS, ScriptedLlmServer.sql(TOP_CUSTOMERS_SQL));
        llm.script(TOP_CUSTOMERS + COLUMNS, ScriptedLlmServer.sql(TOP_CUSTOMERS_SQL));
        llm.script(PRICIEST + COLUMNS, ScriptedLlmServer.sql(PRICIEST_SQL));
        NlSettings settings = NlSettings.defaults()
                .withProvider(new ProviderConfig.OpenAiCompatible(llm.baseUrl(), ScriptedLlmServer.MODEL,
                        Optional.empty(), Duration.ofSeconds(20), true));
        proxy = ProxyFixture.start(db, ProxyFixture.STANDARD_GATES, null, PgwardConfig.TlsMode.DISABLE, 4,
                config -> {
                    Map<String, PgwardConfig.Login> logins = new LinkedHashMap<>(config.logins());
                    PgwardConfig.Login analyst = logins.get("analyst");
                    logins.put("analyst", analyst.withPolicy(analyst.policy().withTables(SELECTION)));
                    return config.withLogins(logins).withNl(settings);
                });
    }

    @AfterAll
    static void stop() throws IOException {
        proxy.close();
        llm.close();
    }

    private static List<List<String>> rows(ResultSet rs) throws SQLException {
        List<List<String>> rows = new ArrayList<>();
        int columns = rs.getMetaData().getColumnCount();
        while (rs.next()) {
            List<String> row = new ArrayList<>();
            for (int i = 1; i <= columns; i++) {
                row.add(rs.getString(i));
            }
            rows.add(row);
        }
        return rows;
    }

    private static List<String> columns(ResultSet rs) throws SQLException {
        List<String> names = new ArrayList<>();
        for (int i = 1; i <= rs.getMetaData().getColumnCount(); i++) {
            names.add(rs.getMetaData().getColumnName(i));
        }
        return names;
    }

    private static List<List<String>> query(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            return rows(rs);
        }
    }

    private static Properties mode(String mode) {
        Properties props = new Properties();
        props.setProperty("preferQueryMode", mode);
        return props;
    }

    /** What the whole-statement form, which pgward answered before, gives the login: the reference. */
    private static List<List<String>> relations(String login) throws SQLException {
        try (Connection c = proxy.connect(login)) {
            return query(c, "SELECT * FROM pgward.relations()");
        }
    }

    @Test
    void fromListFormsKeepPostgresSemanticsOnBothLogins() throws SQLException {
        for (String login : LOGINS) {
            List<List<String>> all = relations(login);
            List<String> views = all.stream().filter(r -> !r.get(1).equals("table")).map(r -> r.getFirst())
                    .sorted().toList();
            assertEquals(List.of("public.mv_region_revenue", "public.v_sales"), views, login);
            for (String mode : List.of("simple", "extended")) {
                String what = login + ", " + mode;
                try (Connection c = proxy.connect(login, mode(mode))) {
                    assertEquals(views.stream().map(List::of).toList(), query(c,
                            "select name from pgward.relations() where kind <> 'table' order by name"), what);
                    assertEquals(List.of(List.of(String.valueOf(all.size()))),
                            query(c, "select count(*) from pgward.relations()"), what);
                    assertEquals(List.of(List.of("public.v_sales")), query(c,
                            "select r.n from pgward.relations() as r(n, k, d) where r.k = 'view'"), what);
                    assertEquals(List.of(List.of("public.v_sales")), query(c,
                            "select v.name from pgward.relations() v where v.kind = 'view'"), what);
                    assertEquals(query(c, "select status from orders where id = 1").getFirst(), query(c,
                            "select o.status from orders o join pgward.describe('orders') d on d.field = 'name' "
                            + "where o.id = 1 and d.value = 'public.orders'").getFirst(), what);
                    List<List<String>> perKind = query(c, "select kind, count(*) from pgward.relations() "
                            + "group by kind having count(*) > 0 order by kind limit 2");
                    assertEquals(List.of(List.of("materialized view", "1"), List.of("table",
                            String.valueOf(all.size() - 2))), perKind, what);
                    assertEquals(List.of(List.of(String.valueOf(all.size()))), query(c,
                            "with r as (select * from pgward.relations()) select count(*) from r"), what);
                    assertEquals(List.of(List.of("t")), query(c, "select exists (select 1 from pgward.relations() "
                            + "where name = 'public.orders') and 'public.orders' in (select name from "
                            + "pgward.relations())"), what);
                    assertEquals(List.of(List.of(String.valueOf(all.size()))), query(c,
                            "SELECT count(*) FROM \"pgward\".\"relations\"()"), what);
                    assertEquals(List.of(List.of(String.valueOf(all.size()))), query(c,
                            "select count(*) from PGWARD . /* a comment */ Relations ( )"), what);
                    assertEquals(List.of(List.of("pgward.nosuch()", "$$pgward.relations()$$")), query(c,
                            "select 'pgward.nosuch()' as s, $x$$$pgward.relations()$$$x$ -- pgward.nosuch()"),
                            what);
                }
            }
        }
    }

    @Test
    void aScalarCallAndExplainWork() throws SQLException {
        for (String login : LOGINS) {
            try (Connection c = proxy.connect(login); Statement s = c.createStatement()) {
                try (ResultSet rs = s.executeQuery("select pgward.dialect(), count(*) from orders")) {
                    assertEquals(List.of("dialect", "count"), columns(rs), login);
                    assertEquals("{\"dialect\": \"postgres\"}", rows(rs).getFirst().getFirst(), login);
                }
                List<List<String>> plan = query(c, "explain select * from pgward.relations() where kind = 'view'");
                assertTrue(plan.getFirst().getFirst().contains("Values Scan"), login + ": " + plan);
                SQLException e = assertThrows(SQLException.class,
                        () -> query(c, "select pgward.relations() from orders"));
                assertEquals("0A000", e.getSQLState(), login);
                assertTrue(e.getMessage().contains("call it in FROM"), e.getMessage());
            }
        }
    }

    @Test
    void anUnknownFunctionListsThoseThatExist() throws SQLException {
        for (String login : LOGINS) {
            for (String mode : List.of("simple", "extended")) {
                try (Connection c = proxy.connect(login, mode(mode))) {
                    SQLException e = assertThrows(SQLException.class,
                            () -> query(c, "select n.* from orders, pgward.nosuch() n"));
                    assertEquals("42883", e.getSQLState(), login + ", " + mode);
                    assertTrue(e.getMessage().contains("pgward.nosuch() does not exist")
                            && e.getMessage().contains("pgward.relations(), pgward.describe()"), e.getMessage());
                    assertEquals(List.of(List.of("1")), query(c, "select 1"), "the session carries on");
                }
            }
        }
    }

    @Test
    void theStatementPgwardWritesPassesTheGuard() throws SQLException {
        try (Connection c = proxy.connect("analyst")) {
            SQLException e = assertThrows(SQLException.class,
                    () -> query(c, "select r.name, s.* from pgward.relations() r, hr.salaries s"));
            assertEquals("42501", e.getSQLState());
            assertTrue(e.getMessage().contains("hr.salaries"), e.getMessage());
            SQLException write = assertThrows(SQLException.class, () -> query(c,
                    "with gone as (delete from orders returning id) select * from pgward.relations()"));
            assertEquals("42501", write.getSQLState(), write.getMessage());
            assertFalse(query(c, "select count(*) from orders").getFirst().getFirst().equals("0"));
        }
    }

    @Test
    void pgjdbcPreparedStatementIsComputedAgainForEachValue() throws SQLException {
        List<String> names = List.of("public.orders", "customers", "products", "orders", "public.customers",
                "order_items", "orders", "customers");
        for (String login : LOGINS) {
            try (Connection c = proxy.connect(login); PreparedStatement ps = c.prepareStatement(
                    "select d.field, d.value from pgward.describe(?) as d where d.field = ? and ? > 0")) {
                assertEquals(List.of("field", "value"), List.of(ps.getMetaData().getColumnName(1),
                        ps.getMetaData().getColumnName(2)), login);
                assertEquals(3, ps.getParameterMetaData().getParameterCount());
                for (String name : names) {
                    ps.setString(1, name);
                    ps.setString(2, "name");
                    ps.setInt(3, 1);
                    try (ResultSet rs = ps.executeQuery()) {
                        String qualified = name.contains(".") ? name : "public." + name;
                        assertEquals(List.of(List.of("name", qualified)), rows(rs), login + ": " + name);
                    }
                }
                ps.setString(1, "hr.salaries");
                ps.setString(2, "name");
                ps.setInt(3, 1);
                if (login.equals("analyst")) {
                    SQLException e = assertThrows(SQLException.class, ps::executeQuery);
                    assertEquals("42P01", e.getSQLState(), e.getMessage());
                    assertFalse(e.getMessage().contains("salary"), e.getMessage());
                } else {
                    try (ResultSet rs = ps.executeQuery()) {
                        assertEquals(List.of(List.of("name", "hr.salaries")), rows(rs));
                    }
                }
                ps.setString(1, "orders");
                try (ResultSet rs = ps.executeQuery()) {
                    assertEquals(List.of(List.of("name", "public.orders")), rows(rs), "after an error: " + login);
                }
            }
            try (Connection c = proxy.connect(login);
                 PreparedStatement ps = c.prepareStatement("select * from pgward.relations(?)")) {
                SQLException e = assertThrows(SQLException.class, ps::getMetaData, "refused when prepared");
                assertEquals("22023", e.getSQLState(), e.getMessage());
                assertTrue(e.getMessage().contains("takes 0 arguments, not 1"), e.getMessage());
            }
        }
    }

    @Test
    void psqlCallsThemInEveryPosition() throws IOException {
        for (String login : LOGINS) {
            RealClients.Result result = RealClients.run(List.of(RealClients.require("psql").toString(), "-X", "-A",
                    "-t", "-F", "|", "-d", proxy.uri(login), "-c", "select name from pgward.relations() "
                    + "where kind = 'view' order by name", "-c", "select d.value from pgward.describe('orders') d "
                    + "where d.field = 'primaryKey'", "-c", "select count(*) > 0 from orders o, "
                    + "pgward.relations() r where r.name = 'public.orders'"));
            assertEquals(0, result.exit(), result.err());
            assertEquals(List.of("public.v_sales", "id", "t"), result.out().strip().lines().toList(), login);
        }
    }

    @Test
    void aReadWriteSessionInAnotherEncodingGetsAnErrorNotPgwardsText() throws IOException {
        RealClients.Result result = RealClients.run(List.of(RealClients.require("psql").toString(), "-X", "-A",
                "-t", "-q", "-d", proxy.uri("app"), "-c", "set client_encoding = 'SJIS'", "-c",
                "select count(*) from pgward.relations()", "-c", "select 'still here'"));
        assertTrue(result.err().contains("only in sessions whose client_encoding is UTF8, not SJIS"), result.err());
        assertEquals("still here", result.out().strip(), result.out());
    }

    private static Target target(String login) {
        return new Target("pgward-" + login, "127.0.0.1", proxy.port(), database.name(), login,
                ProxyFixture.PASSWORD);
    }

    @Test
    void psycopgAndNodePostgresBindTheArguments() throws IOException {
        for (ClientScript driver : List.of(PSYCOPG, NODE_POSTGRES)) {
            for (String login : LOGINS) {
                String what = driver + " as " + login;
                JsonNode describe = driver.output("describe", target(login)).get("describe");
                assertEquals(7, describe.size(), what);
                for (JsonNode row : describe) {
                    String name = row.get(0).asText();
                    int columns = name.endsWith("customers") ? 7 : 6;
                    assertEquals(columns, row.get(1).asInt(), what + ": " + name);
                    assertEquals("[\"value\",\"columns\"]", row.get(2).toString(), what);
                }
                assertEquals("[[\"public.orders\",true]]",
                        driver.output("joined", target(login)).get("rows").toString(), what);
                JsonNode unknown = driver.output("unknown", target(login));
                assertEquals("42883", unknown.get("code").asText(), what);
            }
        }
        JsonNode prepared = PSYCOPG.output("describe", target("analyst"));
        assertEquals("[[\"name\",\"public.orders\"]]", prepared.get("prepared").toString());
        assertEquals("[[\"name\",\"public.customers\"]]", prepared.get("again").toString());
    }

    @Test
    void aQuestionStandsInFromAndItsSqlCanBeFiltered() throws SQLException {
        for (String login : LOGINS) {
            try (Connection c = proxy.connect(login); Statement s = c.createStatement()) {
                try (ResultSet rs = s.executeQuery("select count(*), max(a.revenue) > 0 from pgward.ask('"
                        + TOP_CUSTOMERS + "') as a")) {
                    assertEquals(List.of(List.of("3", "t")), rows(rs), login);
                    StringBuilder notices = new StringBuilder();
                    for (SQLWarning w = s.getWarnings(); w != null; w = w.getNextWarning()) {
                        notices.append(w.getMessage());
                    }
                    assertTrue(notices.toString().contains(TOP_CUSTOMERS_SQL), notices.toString());
                }
                assertEquals(List.of(List.of(TOP_CUSTOMERS_SQL)), query(c, "select q.sql from pgward.sql('"
                        + TOP_CUSTOMERS + "') q where q.valid = 'true'"), login);
            }
            try (Connection c = proxy.connect(login);
                 PreparedStatement ps = c.prepareStatement("select s.sql from pgward.sql(?) s")) {
                ps.setString(1, TOP_CUSTOMERS);
                try (ResultSet rs = ps.executeQuery()) {
                    assertEquals(List.of(List.of(TOP_CUSTOMERS_SQL)), rows(rs), login);
                }
            }
        }
    }

    @Test
    void aBoundQuestionWithAColumnDefinitionListIsAskedAgainForEachValue() throws SQLException, IOException {
        List<List<String>> top = new ArrayList<>();
        List<List<String>> priciest = new ArrayList<>();
        try (Connection c = database.connect()) {
            top.addAll(query(c, TOP_CUSTOMERS_SQL));
            priciest.addAll(query(c, PRICIEST_SQL));
        }
        for (String login : LOGINS) {
            try (Connection c = proxy.connect(login); PreparedStatement ps = c.prepareStatement(
                    "select t.name, t.revenue from pgward.ask(?) as t(name text, revenue numeric) order by 2 desc")) {
                assertEquals(List.of("name", "revenue"), List.of(ps.getMetaData().getColumnName(1),
                        ps.getMetaData().getColumnName(2)), login);
                for (int i = 0; i < 8; i++) {
                    boolean even = i % 2 == 0;
                    ps.setString(1, even ? TOP_CUSTOMERS : PRICIEST);
                    try (ResultSet rs = ps.executeQuery()) {
                        assertEquals(even ? top : priciest, rows(rs), login + ", execution " + i);
                    }
                }
            }
            try (Connection c = proxy.connect(login); PreparedStatement ps = c.prepareStatement(
                    "select * from pgward.ask(?)")) {
                ps.setString(1, TOP_CUSTOMERS);
                SQLException e = assertThrows(SQLException.class, ps::executeQuery);
                assertEquals("42601", e.getSQLState(), login);
                assertTrue(e.getMessage().contains("column definition list"), e.getMessage());
            }
        }
        for (ClientScript driver : List.of(PSYCOPG, NODE_POSTGRES)) {
            for (String login : LOGINS) {
                JsonNode asked = driver.output("ask", target(login)).get("rows");
                assertEquals(5, asked.size(), driver + " as " + login + ": " + asked);
                assertEquals(top.getFirst().getFirst(), asked.get(0).get(0).asText(), driver + " as " + login);
                assertEquals(priciest.getFirst().getFirst(), asked.get(3).get(0).asText(), driver + " as " + login);
            }
        }
    }

    @Test
    void valuesAreQuotedSafelyWhateverStandardConformingStringsSays() throws SQLException {
        String table = "public.\"it's\\ pgward\"";
        try (Connection owner = database.connect(); Statement s = owner.createStatement()) {
            s.execute("CREATE TABLE " + table + " (id int)");
        }
        try {
            for (String setting : List.of("on", "off")) {
                try (Connection c = proxy.connect("app"); Statement s = c.createStatement()) {
                    s.execute("SET standard_conforming_strings = " + setting);
                    try (ResultSet rs = s.executeQuery("select name from pgward.relations() where name like "
                            + "'%pgward%'")) {
                        assertEquals(List.of(List.of(table)), rows(rs), setting);
                    }
                    try (ResultSet rs = s.executeQuery("select value from pgward.describe(E'" + table
                            .replace("\\", "\\\\").replace("'", "\\'") + "') where field = 'name'")) {
                        assertEquals(List.of(List.of(table)), rows(rs), setting);
                    }
                }
            }
        } finally {
            try (Connection owner = database.connect(); Statement s = owner.createStatement()) {
                s.execute("DROP TABLE " + table);
            }
        }
    }

    @Test
    void tooManyRowsForOneStatementIsAClearError() throws SQLException {
        try (Connection owner = database.connect(); Statement s = owner.createStatement()) {
            s.execute("CREATE SCHEMA many; DO $$ BEGIN FOR i IN 1..1500 LOOP EXECUTE format("
                    + "'CREATE TABLE many.%I (id int)', 'a_table_with_a_name_long_enough_to_fill_the_statement_' "
                    + "|| i); END LOOP; END $$");
        }
        try (Connection c = proxy.connect("app")) {
            SQLException e = assertThrows(SQLException.class,
                    () -> query(c, "select count(*) from pgward.relations()"));
            assertEquals("54000", e.getSQLState(), e.getMessage());
            assertTrue(e.getMessage().contains("call it alone"), e.getMessage());
            assertTrue(query(c, "SELECT * FROM pgward.relations()").size() > 1500, "the whole-statement form");
        } finally {
            try (Connection owner = database.connect(); Statement s = owner.createStatement()) {
                s.execute("DROP SCHEMA many CASCADE");
            }
        }
    }
}
