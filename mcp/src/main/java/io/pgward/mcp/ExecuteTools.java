package io.pgward.mcp;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.util.List;
import java.util.Map;
import org.postgresql.core.BaseConnection;
import org.postgresql.core.TransactionState;

/**
 * Seed 000's raw-SQL tools for a read-write login with {@code allow_execute}: {@code execute}, {@code begin},
 * {@code commit}, {@code rollback}. The statement runs as written on a session of the login through pgward, so
 * whatever the login's policy refuses is refused here too; the seed's rules shape the answers:
 * <ul>
 *   <li>outside a session, a result over {@link #ROW_CAP} rows fails and is rolled back, never truncated;
 *       inside one, the transaction stays open for the caller to roll back;</li>
 *   <li>a failure is {@code SQL execution failed: <PostgreSQL's primary message>}, without the statement echo,
 *       LINE, DETAIL, HINT or CONTEXT;</li>
 *   <li>a commit of a transaction an earlier statement aborted is refused and rolled back, never reported as
 *       committed (PostgreSQL would answer COMMIT with ROLLBACK).</li>
 * </ul>
 */
final class ExecuteTools {

    static final int ROW_CAP = 25_000;
    static final String EXECUTE_DESCRIPTION = "Runs one SQL statement as written (no SELECT-only check; the login's "
            + "policy still applies) and returns {\"rows\": [...], \"affected_rows\": N}. Optional: params (values "
            + "for $1..$n), session_id (from begin; without it the statement commits on its own), row_mode "
            + "(\"object\", the default, or \"array\" for positional rows). Outside a session a result over "
            + String.format("%,d", ROW_CAP) + " rows fails and is rolled back." + Fence.NOTE;
    static String beginDescription(java.time.Duration idle) {
        return "Opens a transaction and returns {\"session_id\"} for execute, commit and rollback. A session "
                + "without a call for " + idle.toSeconds() + " seconds is rolled back.";
    }
    static final String COMMIT_DESCRIPTION = "Commits the session's transaction: {\"ok\": true}. A transaction in "
            + "which a statement failed is rolled back instead, and the call is an error.";
    static final String ROLLBACK_DESCRIPTION = "Rolls the session's transaction back: {\"ok\": true}.";

    private final Loopback loopback;
    private final String login;
    private final Transactions transactions;

    ExecuteTools(Loopback loopback, String login, Transactions transactions) {
        this.loopback = loopback;
        this.login = login;
        this.transactions = transactions;
    }

    ObjectNode execute(Args args) {
        String sql = args.text("sql", "statement", "query");
        if (sql == null || sql.isBlank()) {
            throw new ToolError("sql is required: one SQL statement.");
        }
        List<?> params = params(args.raw("params"));
        boolean arrays = rowMode(args.text("row_mode"));
        String sessionId = args.text("session_id");
        DollarParameters statement = DollarParameters.of(sql, params.size());
        if (sessionId != null) {
            Transactions.Held held = transactions.find(sessionId);
            synchronized (held) {
                return run(held.session, statement, params, arrays);
            }
        }
        try (Connection session = loopback.connect(login)) {
            session.setAutoCommit(false);
            try {
                ObjectNode result = run(session, statement, params, arrays);
                session.commit();
                return result;
            } finally {
                session.rollback();
            }
        } catch (SQLException e) {
            throw failed(e);
        }
    }

    ObjectNode begin() {
        try {
            return JsonRows.JSON.createObjectNode().put("session_id", transactions.begin());
        } catch (SQLException e) {
            throw failed(e);
        }
    }

    ObjectNode commit(Args args) {
        String id = args.text("session_id");
        Transactions.Held held = transactions.find(id);
        synchronized (held) {
            try {
                if (held.session.unwrap(BaseConnection.class).getTransactionState() == TransactionState.FAILED) {
                    held.session.rollback();
                    throw new ToolError("Commit refused: a statement of this session failed, so PostgreSQL would "
                            + "roll the transaction back; it was rolled back and nothing was committed.");
                }
                held.session.commit();
                return JsonRows.JSON.createObjectNode().put("ok", true);
            } catch (SQLException e) {
                throw failed(e);
            } finally {
                transactions.end(id);
            }
        }
    }

    ObjectNode rollback(Args args) {
        String id = args.text("session_id");
        Transactions.Held held = transactions.find(id);
        synchronized (held) {
            try {
                held.session.rollback();
                return JsonRows.JSON.createObjectNode().put("ok", true);
            } catch (SQLException e) {
                throw failed(e);
            } finally {
                transactions.end(id);
            }
        }
    }

    private static ObjectNode run(Connection session, DollarParameters statement, List<?> params, boolean arrays) {
        try (PreparedStatement prepared = session.prepareStatement(statement.text())) {
            for (int i = 0; i < statement.order().size(); i++) {
                bind(prepared, i + 1, params.get(statement.order().get(i)));
            }
            ObjectNode out = JsonRows.JSON.createObjectNode();
            ArrayNode rows = out.putArray("rows");
            if (prepared.execute()) {
                try (ResultSet result = prepared.getResultSet()) {
                    while (result.next()) {
                        if (rows.size() == ROW_CAP) {
                            throw new ToolError("SQL execution failed: the result has more than "
                                    + String.format("%,d", ROW_CAP) + " rows, the row cap; nothing was returned.");
                        }
                        rows.add(arrays ? JsonRows.array(result) : JsonRows.object(result));
                    }
                }
                out.put("affected_rows", rows.size());
            } else {
                out.put("affected_rows", Math.max(0, prepared.getUpdateCount()));
            }
            return out;
        } catch (SQLException e) {
            throw failed(e);
        }
    }

    private static void bind(PreparedStatement prepared, int index, Object value) throws SQLException {
        switch (value) {
            case null -> prepared.setNull(index, Types.OTHER);
            case Boolean b -> prepared.setBoolean(index, b);
            case Integer n -> prepared.setLong(index, n);
            case Long n -> prepared.setLong(index, n);
            case BigDecimal n -> prepared.setBigDecimal(index, n);
            case Number n -> prepared.setBigDecimal(index, new BigDecimal(n.toString()));
            case String s -> prepared.setString(index, s);
            default -> prepared.setString(index, JsonRows.JSON.valueToTree(value).toString());
        }
    }

    private static List<?> params(Object raw) {
        if (raw == null) {
            return List.of();
        }
        if (raw instanceof List<?> list) {
            return list;
        }
        throw new ToolError("params must be an array of values for $1..$n.");
    }

    private static boolean rowMode(String mode) {
        if (mode == null || mode.equals("object")) {
            return false;
        }
        if (mode.equals("array")) {
            return true;
        }
        throw new ToolError("row_mode must be \"object\" or \"array\".");
    }

    static ToolError failed(SQLException e) {
        return ToolError.fromDatabase("SQL execution failed: " + PsqlText.primary(e));
    }

    static Map<String, Object> noArguments() {
        return Map.of("type", "object", "properties", Map.of());
    }
}
