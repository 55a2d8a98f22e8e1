package io.pgward.mcp;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.modelcontextprotocol.server.McpServerFeatures.SyncToolSpecification;
import io.modelcontextprotocol.server.McpSyncServer;
import io.modelcontextprotocol.spec.McpSchema;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The tools one login's agents get. A read-only login: {@code query}, {@code describe} (with a selection),
 * {@code get_data}, {@code get_sql}, {@code get_schema}, {@code refresh_schema}, {@code dialect}. A read-write
 * login: {@code query}, which runs in a read-only transaction, and with {@code allow_execute} seed 000's
 * {@code execute}, {@code begin}, {@code commit}, {@code rollback}, {@code insert_rows}. On an ArangoDB database:
 * seed 002's {@code get_data}, {@code get_aql}, {@code get_schema}, {@code dialect}. Every tool is a client of
 * pgward's wire listener as this login, so nothing here decides what may run.
 */
final class LoginTools {

    private static final Logger log = LoggerFactory.getLogger(LoginTools.class);

    private final Loopback loopback;
    private final McpSettings.AgentLogin login;
    private final QueryTool query;
    private final boolean arango;
    private final Duration sessionIdle;
    private final Transactions transactions;
    private volatile McpSyncServer server;

    LoginTools(Loopback loopback, McpSettings.AgentLogin login, int pageRows, boolean arango, Duration sessionIdle) {
        this.arango = arango;
        this.sessionIdle = sessionIdle;
        this.loopback = loopback;
        this.login = login;
        this.query = new QueryTool(loopback, login, pageRows);
        this.transactions = !login.readOnly() && login.allowExecute()
                ? new Transactions(loopback, login.name(), sessionIdle) : null;
    }

    /** Rolls back and releases the sessions begin opened. */
    void close() {
        if (transactions != null) {
            transactions.close();
        }
    }

    /** The server these tools are registered with, so that {@code refresh_schema} can renew query's description. */
    void attach(McpSyncServer server) {
        this.server = server;
    }

    List<SyncToolSpecification> specifications() {
        if (arango) {
            return arangoSpecifications();
        }
        List<SyncToolSpecification> tools = new ArrayList<>();
        tools.add(queryTool(selectionBlock()));
        if (!login.readOnly()) {
            if (login.allowExecute()) {
                tools.addAll(executeSpecifications());
            }
            return tools;
        }
        Describe describe = new Describe(loopback, login.name());
        QuestionTools questions = new QuestionTools(loopback, login.name(), false);
        SchemaTools schema = new SchemaTools(loopback, login.name());
        if (!login.selection().isEmpty()) {
            tools.add(tool(Describe.NAME, Describe.DESCRIPTION, schema(
                    "name", string("A selected table or view, with or without the schema.")),
                    true, args -> describe.call(args)));
        }
        tools.add(tool(QuestionTools.GET_DATA, QuestionTools.GET_DATA_DESCRIPTION, schema(
                "question", string("The question, in plain language."),
                "limit", integer("Most rows to return: 1 to 25,000 (default 250).")), true, questions::getData));
        tools.add(tool(QuestionTools.GET_SQL, QuestionTools.GET_SQL_DESCRIPTION, schema(
                "question", string("The question, in plain language.")), true, questions::getSql));
        tools.add(tool(SchemaTools.GET_SCHEMA, SchemaTools.GET_SCHEMA_DESCRIPTION, schema(
                "table", string("One table or view; without it, every one this login may read.")), true,
                schema::getSchema));
        tools.add(tool(SchemaTools.REFRESH_SCHEMA, SchemaTools.REFRESH_SCHEMA_DESCRIPTION, schema(), true, args -> {
            ObjectNode refreshed = schema.refreshSchema();
            renewQuery();
            return refreshed;
        }));
        tools.add(tool(SchemaTools.DIALECT, SchemaTools.DIALECT_DESCRIPTION, schema(), false,
                args -> schema.dialect()));
        return tools;
    }

    /** Seed 000's raw-SQL and insert tools, for a read-write login with {@code allow_execute}. */
    private List<SyncToolSpecification> executeSpecifications() {
        List<SyncToolSpecification> tools = new ArrayList<>();
        ExecuteTools execute = new ExecuteTools(loopback, login.name(), transactions);
        InsertRows insert = new InsertRows(loopback, login.name());
        tools.add(tool("execute", ExecuteTools.EXECUTE_DESCRIPTION, schema(
                "sql", string("One SQL statement; $1..$n for params."),
                "params", Map.of("type", "array", "description", "Values for $1..$n."),
                "session_id", string("From begin: run inside that transaction."),
                "row_mode", Map.of("type", "string", "enum", List.of("object", "array"),
                        "description", "object (default) or array: positional rows, duplicate names kept.")),
                true, execute::execute));
        tools.add(tool("begin", ExecuteTools.beginDescription(sessionIdle), schema(), false,
                args -> execute.begin()));
        tools.add(tool("commit", ExecuteTools.COMMIT_DESCRIPTION, schema(
                "session_id", string("From begin.")), false, execute::commit));
        tools.add(tool("rollback", ExecuteTools.ROLLBACK_DESCRIPTION, schema(
                "session_id", string("From begin.")), false, execute::rollback));
        tools.add(tool(InsertRows.NAME, InsertRows.DESCRIPTION, schema(
                "table", string("The table; created from the rows when it does not exist."),
                "rows", Map.of("type", "array", "items", Map.of("type", "object"),
                        "description", "The rows, as objects keyed by column name.")),
                false, insert::call));
        return tools;
    }

    /** Seed 002: an ArangoDB database served by pgward answers questions, AQL, its schema and its dialect. */
    private List<SyncToolSpecification> arangoSpecifications() {
        QuestionTools questions = new QuestionTools(loopback, login.name(), true);
        SchemaTools schema = new SchemaTools(loopback, login.name());
        return List.of(
                tool(QuestionTools.GET_DATA, QuestionTools.GET_DATA_ARANGO_DESCRIPTION, schema(
                        "question", string("The data you want, in plain language."),
                        "limit", integer("Most rows to return: 1 to 25,000 (default 250).")), true,
                        questions::getData),
                tool(QuestionTools.GET_AQL, QuestionTools.GET_AQL_DESCRIPTION, schema(
                        "question", string("The question, in plain language.")), true, questions::getSql),
                tool(SchemaTools.GET_SCHEMA, SchemaTools.GET_SCHEMA_ARANGO_DESCRIPTION, schema(
                        "collection", string("One collection; without it, everything this login may read.")), true,
                        schema::getArangoSchema),
                tool(SchemaTools.DIALECT, SchemaTools.DIALECT_ARANGO_DESCRIPTION, schema(), false,
                        args -> schema.dialect()));
    }

    private SyncToolSpecification queryTool(String block) {
        return tool(QueryTool.NAME, QueryTool.BASE_DESCRIPTION + block, schema(
                "sql", string("One SQL statement (statement and query are accepted too)."),
                "cursor", string("The cursor of a capped result: repeats that statement for its next page."),
                "page", integer("The page to read: the next page, or 1. Stable only when the page line names one.")),
                true, query::call);
    }

    private void renewQuery() {
        McpSyncServer current = server;
        if (current != null) {
            current.removeTool(QueryTool.NAME);
            current.addTool(queryTool(selectionBlock()));
        }
    }

    private String selectionBlock() {
        if (login.selection().isEmpty()) {
            return "";
        }
        try (Connection session = loopback.connect(login.name())) {
            return SelectionBlock.of(login.selection(), session);
        } catch (SQLException e) {
            log.warn("the query tool of login \"{}\" lists its selection by name only: {}", login.name(),
                    e.getMessage());
            return SelectionBlock.of(login.selection(), null);
        }
    }

    private interface Body {
        ObjectNode call(Args args);
    }

    private SyncToolSpecification tool(String name, String description, Map<String, Object> input, boolean fenced,
                                       Body body) {
        McpSchema.Tool tool = McpSchema.Tool.builder().name(name).description(description).inputSchema(input)
                .build();
        return SyncToolSpecification.builder().tool(tool)
                .callHandler((exchange, request) -> answer(name, () -> body.call(new Args(request.arguments())),
                        fenced))
                .build();
    }

    private McpSchema.CallToolResult answer(String name, Supplier<ObjectNode> body, boolean fenced) {
        try {
            String json = body.get().toString();
            return McpSchema.CallToolResult.builder().addTextContent(fenced ? Fence.wrap(json) : json)
                    .isError(false).build();
        } catch (ToolError e) {
            String text = e.quotesDatabase() ? Fence.wrapError(e.getMessage()) : e.getMessage();
            return McpSchema.CallToolResult.builder().addTextContent(text).isError(true).build();
        } catch (RuntimeException e) {
            log.warn("tool {} of login \"{}\" failed", name, login.name(), e);
            return McpSchema.CallToolResult.builder().addTextContent("pgward could not answer: " + e.getMessage())
                    .isError(true).build();
        }
    }

    private static Map<String, Object> schema(Object... properties) {
        Map<String, Object> props = new LinkedHashMap<>();
        for (int i = 0; i < properties.length; i += 2) {
            props.put((String) properties[i], properties[i + 1]);
        }
        Map<String, Object> schema = new LinkedHashMap<>();
        schema.put("type", "object");
        schema.put("properties", props);
        return schema;
    }

    private static Map<String, Object> string(String description) {
        return Map.of("type", "string", "description", description);
    }

    private static Map<String, Object> integer(String description) {
        return Map.of("type", "integer", "description", description);
    }
}
