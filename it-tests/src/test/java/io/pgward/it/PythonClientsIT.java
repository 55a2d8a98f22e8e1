package io.pgward.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.pgward.testkit.PostgresTest;
import io.pgward.testkit.TestDatabase;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * psycopg2 (text format), psycopg 3 in binary mode and asyncpg (binary, prepared statements), each running
 * the scenarios in {@code it-tests/clients/python} with Debian's {@code /usr/bin/python3} and the drivers from
 * Debian's packages. The scripts print values in one canonical text form (see {@code scenario_main.py}), so
 * the three drivers can be held to the same expectations wherever they agree.
 */
@PostgresTest
@ExtendWith(Targets.StopAfterClass.class)
class PythonClientsIT {

    static final ClientScript PSYCOPG2 = ClientScript.python("psycopg2", "psycopg2_scenarios.py",
            "psycopg2", "python3-psycopg2", "types", "params", "error");
    static final ClientScript PSYCOPG = ClientScript.python("psycopg", "psycopg_scenarios.py",
            "psycopg", "python3-psycopg", "types", "params", "error");
    static final ClientScript ASYNCPG = ClientScript.python("asyncpg", "asyncpg_scenarios.py",
            "asyncpg", "python3-asyncpg", "types", "params", "error");
    private static final List<ClientScript> DRIVERS = List.of(PSYCOPG2, PSYCOPG, ASYNCPG);

    private static final byte[] ALL_BYTES = new byte[256];

    static {
        for (int i = 0; i < ALL_BYTES.length; i++) {
            ALL_BYTES[i] = (byte) i;
        }
    }

    /** What every driver decodes alike from TYPES_SQL (json and jsonb aside). */
    private static final String DECODED = """
            {"numeric_long": "123456789012345678901234567890.123456789012345678901234567890",
             "numeric_tiny": "-1E-21", "numeric_nan": "NaN",
             "float8_tenth": "0.1", "float8_max": "1.7976931348623157e+308", "float8_negative_zero": "-0.0",
             "float8_negative_infinity": "-inf", "float8_nan": "nan",
             "int8_max": 9223372036854775807, "int8_min": -9223372036854775808,
             "int_array": [1, null, 3], "int_matrix": [[1, 2], [3, 4]],
             "text_array": ["a", null, "with \\"quotes\\"", "comma,here", "NULL", "", "back\\\\slash", "{brace}", "ü"],
             "bytea_all": "\\\\x%s",
             "uuid": "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"}
            """.formatted(HexFormat.of().formatHex(ALL_BYTES));

    private static final String DECODED_TYPES = """
            {"numeric_long": "Decimal", "numeric_tiny": "Decimal", "numeric_nan": "Decimal",
             "float8_tenth": "float", "float8_max": "float", "float8_negative_zero": "float",
             "float8_negative_infinity": "float", "float8_nan": "float", "int8_max": "int", "int8_min": "int",
             "int_array": "list[int]", "int_matrix": "list[list[int]]", "text_array": "list[str]",
             "bytea_all": "%s", "uuid": "UUID", "json": "%s", "jsonb": "%s"}
            """;

    /** json and jsonb parsed into Python objects (floats in repr form, see canonical()). */
    private static final String PARSED_JSON = """
            {"json": {"b": {"c": "ü"}, "a": [1, "2.5", null, true]},
             "jsonb": {"a": [1, "2.5", null, true], "b": {"c": "ü"}}}
            """;

    /** json and jsonb as text: json keeps its input verbatim, jsonb prints its normalised form. */
    private static final String JSON_TEXT = """
            {"json": "{\\"b\\": {\\"c\\": \\"ü\\"},  \\"a\\": [1, 2.5, null, true]}",
             "jsonb": "{\\"a\\": [1, 2.5, null, true], \\"b\\": {\\"c\\": \\"ü\\"}}"}
            """;

    /** TIMESTAMPTZ_SQL's values with the session in each zone, as drivers that honour the zone return them. */
    private static final Map<String, String> IN_SESSION_ZONE = Map.of(
            "America/New_York", """
                    {"leap_day": "2024-02-29T18:59:59.999999-05:00", "y2k_eve": "1999-12-31T23:30:00-05:00",
                     "year_1900": "1900-01-01T07:00:00-05:00",
                     "leap_day_text": "2024-02-29 18:59:59.999999-05", "year_1900_text": "1900-01-01 07:00:00-05"}
                    """,
            "Asia/Kolkata", """
                    {"leap_day": "2024-03-01T05:29:59.999999+05:30", "y2k_eve": "2000-01-01T10:00:00+05:30",
                     "year_1900": "1900-01-01T17:21:10+05:21:10",
                     "leap_day_text": "2024-03-01 05:29:59.999999+05:30",
                     "year_1900_text": "1900-01-01 17:21:10+05:21:10"}
                    """);

    /** The same instants in UTC, as asyncpg returns every timestamptz. */
    private static final String IN_UTC = """
            {"leap_day": "2024-02-29T23:59:59.999999+00:00", "y2k_eve": "2000-01-01T04:30:00+00:00",
             "year_1900": "1900-01-01T12:00:00+00:00"}
            """;

    private final TestDatabase database;

    PythonClientsIT(TestDatabase database) {
        this.database = database;
    }

    @Test
    void psycopg2DecodesNumbersArraysJsonByteaAndUuidFromText() throws Exception {
        assertDecodes(PSYCOPG2, "memoryview", "dict", PARSED_JSON);
    }

    @Test
    void psycopgDecodesNumbersArraysJsonByteaAndUuidFromBinary() throws Exception {
        assertDecodes(PSYCOPG, "bytes", "dict", PARSED_JSON);
        Targets.forEach(database, target -> assertEquals("[1]",
                PSYCOPG.output("types", target).at("/types/formats").toString(), "every column in binary format"));
    }

    @Test
    void asyncpgDecodesNumbersArraysJsonByteaAndUuidFromBinary() throws Exception {
        assertDecodes(ASYNCPG, "bytes", "str", JSON_TEXT);
    }

    @Test
    void timestamptzFollowsTheSessionTimeZone() throws Exception {
        Targets.forEach(database, target -> {
            for (String zone : IN_SESSION_ZONE.keySet()) {
                JsonNode expected = json(IN_SESSION_ZONE.get(zone));
                SameOutput.assertSameJson("psycopg2 in " + zone, expected,
                        PSYCOPG2.output("types", target).get(zone).get("values"));
                JsonNode psycopg = PSYCOPG.output("types", target).get(zone);
                SameOutput.assertSameJson("psycopg in " + zone, expected, psycopg.get("values"));
                assertEquals(zone, psycopg.get("connectionTimeZone").asText(),
                        "psycopg took the zone from the ParameterStatus that followed SET");
                ((ObjectNode) expected).setAll((ObjectNode) json(IN_UTC));
                SameOutput.assertSameJson("asyncpg in " + zone, expected,
                        ASYNCPG.output("types", target).get(zone).get("values"));
            }
        });
    }

    @Test
    void everyDriverSendsParametersThatPostgresReadsExactly() throws Exception {
        JsonNode expected = json("""
                {"numeric_text": "-123456789012345678901234567890.000000000000000000000000000001",
                 "numeric": "-123456789012345678901234567890.000000000000000000000000000001",
                 "float8_text": "0.1", "float8": "0.1",
                 "int8_text": "9223372036854775807", "int8": 9223372036854775807,
                 "text": "héllo \\"wörld\\" \\\\ 'quoted'",
                 "timestamptz_text": "2024-02-29 18:29:59.123456+00", "timestamptz": "2024-02-29T18:29:59.123456+00:00",
                 "int_array_text": "{1,NULL,3}", "int_array": [1, null, 3],
                 "text_array_text": "{a,NULL,\\"with \\\\\\"quotes\\\\\\"\\",\\"comma,here\\",\\"NULL\\",\\"\\"}",
                 "text_array": ["a", null, "with \\"quotes\\"", "comma,here", "NULL", ""],
                 "json_text": "{\\"a\\": [1, 2.5, null, true], \\"b\\": {\\"c\\": \\"ü\\"}}",
                 "bytea_md5": "%s", "bytea_length": 256,
                 "uuid_text": "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11", "uuid": "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"}
                """.formatted(HexFormat.of().formatHex(MessageDigest.getInstance("MD5").digest(ALL_BYTES))));
        Targets.forEach(database, target -> {
            for (ClientScript driver : DRIVERS) {
                SameOutput.assertSameJson(driver + " parameters", expected,
                        driver.output("params", target).get("values"));
                assertEquals("Decimal", driver.output("params", target).at("/types/numeric").asText());
            }
        });
    }

    @Test
    void everyDriverReportsSqlstateAndPositionAndStaysUsable() throws Exception {
        JsonNode expected = json("""
                {"code": "42703", "severity": "ERROR", "message": "column \\"no_such_column\\" does not exist",
                 "position": 30, "afterwards": 7}
                """);
        Targets.forEach(database, target -> {
            for (ClientScript driver : DRIVERS) {
                SameOutput.assertSameJson(driver + " error", expected, driver.output("error", target));
            }
        });
    }

    @Test
    void everyScenarioPrintsTheSameOutputOnEveryTarget() throws Exception {
        Target reference = Targets.reference(database);
        for (Target other : Targets.comparedWithReference(database)) {
            for (ClientScript driver : DRIVERS) {
                SameOutput.assertSameOutputs(driver, reference, other);
            }
        }
    }

    /**
     * psycopg 3.1's TypeInfo, EnumInfo and CompositeInfo ({@code t.oid = %(name)s::regtype}) through a login with a
     * table selection: visible types are found, and each hidden type's name gives exactly what an absent name
     * gives (None from the lookups; by hand, unnamed and prepared, the same error, CONTEXT and routine: 42704, or
     * 3F000 for a name in a hidden schema), the name itself aside.
     */
    @Test
    void psycopgTypeLookupsSeeOnlyTheSelection() throws Exception {
        assertTypeLookups(ClientScript.python("psycopg", "type_lookups.py", "psycopg", "python3-psycopg",
                "lookups", "enum column"), false);
    }

    /**
     * The same with psycopg 3.2 and newer, whose lookups pass the name to to_regtype ({@code t.oid =
     * to_regtype(%(name)s)}, a text parameter): a hidden type's name binds as a name nothing has, so to_regtype
     * answers NULL as for an absent one. Debian ships 3.1; .ci/run installs a newer psycopg with pip into the
     * directory {@code PGWARD_PSYCOPG_LATEST} names.
     */
    @Test
    void psycopgLatestTypeLookupsSeeOnlyTheSelection() throws Exception {
        assertTypeLookups(ClientScript.pythonFrom("PGWARD_PSYCOPG_LATEST", "psycopg (latest)", "type_lookups.py",
                "psycopg", "pip install --target DIR 'psycopg>=3.2' and set PGWARD_PSYCOPG_LATEST=DIR (.ci/run does)",
                "lookups", "enum column"), true);
    }

    /** @param toRegtype the driver is psycopg 3.2 or newer, which passes names to to_regtype */
    private void assertTypeLookups(ClientScript lookups, boolean toRegtype) throws Exception {
        try (java.sql.Connection c = database.connect(); java.sql.Statement s = c.createStatement()) {
            s.execute("DROP SCHEMA IF EXISTS pt_hidden CASCADE");
            s.execute("DROP TABLE IF EXISTS public.pt_orders");
            s.execute("DROP TYPE IF EXISTS public.pt_status, public.pt_secret_kind");
            s.execute("CREATE TYPE public.pt_status AS ENUM ('new', 'paid')");
            s.execute("CREATE TABLE public.pt_orders (id integer PRIMARY KEY, status public.pt_status)");
            s.execute("INSERT INTO public.pt_orders VALUES (1, 'new'), (2, 'paid')");
            s.execute("CREATE TYPE public.pt_secret_kind AS ENUM ('secret')");
            s.execute("CREATE SCHEMA pt_hidden");
            s.execute("CREATE TYPE pt_hidden.kind AS ENUM ('secret')");
            s.execute("CREATE TABLE pt_hidden.secrets (id integer, kind pt_hidden.kind)");
        }
        try (ProxyFixture proxy = ProxyFixture.start(database, ProxyFixture.STANDARD_GATES, null,
                io.pgward.wire.config.PgwardConfig.TlsMode.DISABLE, 4,
                ProxyFixture.policy("analyst", p -> p.withTables(List.of("public.pt_orders"))))) {
            Target analyst = new Target("analyst through pgward", "127.0.0.1", proxy.port(), database.name(),
                    "analyst", ProxyFixture.PASSWORD);
            JsonNode out = lookups.output("lookups", analyst);
            String version = out.get("version").asText();
            if (toRegtype) {
                assertTrue(!version.startsWith("3.0") && !version.startsWith("3.1"), version);
            }
            for (String lookup : List.of("TypeInfo", "EnumInfo")) {
                assertEquals("[\"pt_status\",\"pt_status\"]", out.get("pt_status").get(lookup).get("result")
                        .toString(), lookup);
            }
            assertEquals("[\"pt_orders\",\"pt_orders\"]",
                    out.get("pt_orders").get("CompositeInfo").get("result").toString());
            assertEquals("[[\"pt_status\",\"pt_status\"]]", out.get("pt_status").get("prepared").get("result")
                    .toString());
            assertEquals("[\"new\",\"paid\"]", lookups.output("enum column", analyst).get("result").toString());
            Map<String, String> hiddenAndAbsent = Map.of("pt_hidden.kind", "pt_hidden.no_such",
                    "pt_hidden.kind[]", "pt_hidden.no_such[]", "pt_hidden.secrets", "pt_hidden.no_such_tab",
                    "pt_secret_kind", "pt_no_such_kind", "pt_secret_kind(1)", "pt_no_such_kind(1)",
                    "pt_hidden.kind(1)", "pt_hidden.no_such(1)");
            for (Map.Entry<String, String> pair : hiddenAndAbsent.entrySet()) {
                String absent = named(out.get(pair.getValue()).toString(), pair.getValue());
                assertEquals(absent, named(out.get(pair.getKey()).toString(), pair.getKey()), pair.getKey());
                JsonNode error = out.get(pair.getValue()).get("prepared").get("error");
                // a name in the hidden schema answers as in a database without that schema
                assertEquals(pair.getValue().startsWith("pt_hidden.") ? "3F000" : "42704",
                        error.get("sqlstate").asText(), pair.getValue());
                assertEquals("unnamed portal parameter $1 = '...'", error.get("context").asText(), pair.getValue());
            }
        }
    }

    /** {@code output} with the type name (with and without its modifier, as messages show it) replaced by NAME. */
    private static String named(String output, String name) {
        String bare = name.replaceAll("\\(.*", "");
        return output.replace(name, "NAME").replace(bare, "NAME");
    }

    private void assertDecodes(ClientScript driver, String byteaType, String jsonType, String json) throws Exception {
        Targets.forEach(database, target -> {
            JsonNode types = driver.output("types", target).get("types");
            ObjectNode expected = (ObjectNode) json(DECODED);
            expected.setAll((ObjectNode) json(json));
            SameOutput.assertSameJson(driver + " values", expected, types.get("values"));
            SameOutput.assertSameJson(driver + " Python types",
                    json(DECODED_TYPES.formatted(byteaType, jsonType, jsonType)), types.get("types"));
        });
    }

    private static JsonNode json(String text) throws Exception {
        return ClientScript.JSON.readTree(text);
    }
}
