package io.pgward.guard.catalog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.pgward.testkit.PostgresTest;
import io.pgward.testkit.TestDatabase;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The check judges only a function body of the shape it wrote: bodies PostgreSQL stores for texts that closed the
 * check's parentheses early, and so put something of their own beside the EXISTS, are not judged at all.
 */
@PostgresTest
class CheckFunctionBodyTest {

    private static TestDatabase db;

    @BeforeAll
    static void start(TestDatabase database) {
        db = database;
    }

    /** The tree PostgreSQL stores for {@code RETURN <expression>}, read as the check reads it. */
    private static TreeValue stored(String returns, String expression) throws SQLException {
        try (Connection c = db.connect(); Statement s = c.createStatement()) {
            c.setAutoCommit(false);
            s.execute("CREATE FUNCTION pg_temp.pgward_body_test() RETURNS " + returns + " LANGUAGE sql RETURN "
                    + expression);
            try (ResultSet rs = s.executeQuery("SELECT prosqlbody::pg_catalog.text FROM pg_catalog.pg_proc "
                    + "WHERE proname = 'pgward_body_test' AND pronamespace = pg_catalog.pg_my_temp_schema()")) {
                rs.next();
                return NodeTreeParser.parse(rs.getString(1));
            } finally {
                c.rollback();
            }
        }
    }

    @Test
    void theBodyAsWrittenGivesItsSublinksQuery() throws SQLException {
        TreeValue.Node query = CheckFunctionBody.query(stored("bool",
                "EXISTS (SELECT 1 FROM (\nSELECT 2 AS two\n) AS pgward_query)"));
        assertEquals("QUERY", query.tag());
        TreeValue.NodeList rtable = (TreeValue.NodeList) query.field("rtable").orElseThrow();
        assertEquals(1, rtable.items().size());
    }

    @Test
    void aBodyWithMoreBesideTheExistsIsNotJudged() throws SQLException {
        for (String[] body : new String[][] {
                {"bool", "EXISTS (SELECT 1 FROM (SELECT 1) AS pgward_query) OR (SELECT true FROM (SELECT 1) AS q)"},
                {"bool", "EXISTS (SELECT 1 FROM (SELECT 1) AS pgward_query) AND pg_catalog.now() IS NOT NULL"},
                {"bool", "NOT EXISTS (SELECT 1 FROM (SELECT 1) AS pgward_query)"},
                {"bool", "(SELECT true FROM (SELECT 1) AS pgward_query)"},
                {"bool", "true IN (SELECT true FROM (SELECT 1) AS pgward_query)"},
                {"bool", "EXISTS (SELECT 1 FROM (SELECT 1) AS pgward_query) IS TRUE"},
                {"int", "1"}}) {
            assertThrows(NodeTreeException.class, () -> CheckFunctionBody.query(stored(body[0], body[1])),
                    body[1]);
        }
    }

    @Test
    void anOuterQueryWithAClauseOfItsOwnIsNotJudged() throws SQLException {
        TreeValue.Node written = (TreeValue.Node) stored("bool", "EXISTS (SELECT 1 FROM (SELECT 1) AS pgward_query)");
        CheckFunctionBody.query(written);
        assertThrows(NodeTreeException.class, () -> CheckFunctionBody.query(with(written, "havingQual",
                new TreeValue.Node("CONST", Map.of()))));
        assertThrows(NodeTreeException.class, () -> CheckFunctionBody.query(with(written, "resultRelation",
                new TreeValue.Scalar("1"))));
        assertThrows(NodeTreeException.class, () -> CheckFunctionBody.query(with(written, "hasForUpdate",
                new TreeValue.Scalar("true"))));
    }

    private static TreeValue.Node with(TreeValue.Node node, String field, TreeValue value) {
        Map<String, TreeValue> fields = new LinkedHashMap<>(node.fields());
        fields.put(field, value);
        return new TreeValue.Node(node.tag(), fields);
    }
}
