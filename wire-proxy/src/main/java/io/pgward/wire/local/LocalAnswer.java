package io.pgward.wire.local;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.Channel;
import io.pgward.guard.Verdict;
import io.pgward.wire.protocol.PgError;
import io.pgward.wire.protocol.SqlState;
import io.pgward.wire.protocol.Wire;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The one encoder for results pgward produces itself: RowDescription (every column {@code text}, OID 25, text
 * format), DataRows and CommandComplete, preceded by any notices.
 */
public final class LocalAnswer {

    private static final int TEXT_OID = 25;

    private LocalAnswer() {
    }

    public static void write(Channel client, Verdict.Answer answer) {
        write(client, answer, true);
    }

    /** @param resultSet false for a statement without a result set (an INSERT): no RowDescription */
    static void write(Channel client, Verdict.Answer answer, boolean resultSet) {
        ByteBufAllocator alloc = client.alloc();
        for (String notice : answer.notices()) {
            client.write(notice(alloc, notice));
        }
        if (resultSet) {
            client.write(rowDescription(alloc, answer.columns()));
        }
        for (List<String> row : answer.rows()) {
            client.write(dataRow(alloc, row));
        }
        client.write(commandComplete(alloc, answer.commandTag()));
    }

    public static ByteBuf notice(ByteBufAllocator alloc, String message) {
        return new PgError("NOTICE", SqlState.SUCCESSFUL_COMPLETION, message, null, null, 0).encode(alloc, 'N');
    }

    static ByteBuf rowDescription(ByteBufAllocator alloc, List<String> columns) {
        return Wire.message(alloc, 'T', buf -> {
            buf.writeShort(columns.size());
            for (String column : columns) {
                Wire.writeCString(buf, column);
                buf.writeInt(0).writeShort(0).writeInt(TEXT_OID).writeShort(-1).writeInt(-1).writeShort(0);
            }
        });
    }

    static ByteBuf dataRow(ByteBufAllocator alloc, List<String> row) {
        return Wire.message(alloc, 'D', buf -> {
            buf.writeShort(row.size());
            for (String value : row) {
                if (value == null) {
                    buf.writeInt(-1);
                } else {
                    byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
                    buf.writeInt(bytes.length).writeBytes(bytes);
                }
            }
        });
    }

    static ByteBuf commandComplete(ByteBufAllocator alloc, String tag) {
        return Wire.message(alloc, 'C', buf -> Wire.writeCString(buf, tag));
    }

    /**
     * The answer as a query PostgreSQL can run: {@code SELECT * FROM (VALUES ...) AS pgward_answer(...)}, every
     * value a text literal. In the extended protocol pgward hands this to the backend in place of the
     * statement, so Describe, result formats (binary included), portal suspension, Close and Sync all behave as
     * PostgreSQL's own. {@code parameters} {@code $n} references are kept (compared with nothing) so that the
     * client's Bind still fits the statement it prepared.
     */
    public static String asQuery(Verdict.Answer answer, int parameters) {
        StringBuilder sql = new StringBuilder("SELECT * FROM (");
        if (answer.rows().isEmpty()) {
            sql.append("SELECT ");
            for (int i = 0; i < answer.columns().size(); i++) {
                sql.append(i == 0 ? "" : ", ").append("NULL::text");
            }
            sql.append(" WHERE false");
        } else {
            sql.append("VALUES ");
            for (int r = 0; r < answer.rows().size(); r++) {
                sql.append(r == 0 ? "(" : ", (");
                List<String> row = answer.rows().get(r);
                for (int c = 0; c < row.size(); c++) {
                    sql.append(c == 0 ? "" : ", ").append(literal(row.get(c))).append("::text");
                }
                sql.append(')');
            }
        }
        sql.append(") AS pgward_answer(");
        for (int i = 0; i < answer.columns().size(); i++) {
            sql.append(i == 0 ? "" : ", ").append('"').append(answer.columns().get(i).replace("\"", "\"\"")).append('"');
        }
        sql.append(')');
        for (int p = 1; p <= parameters; p++) {
            sql.append(p == 1 ? " WHERE " : " AND ").append("($").append(p).append("::text IS NULL OR true)");
        }
        return sql.toString();
    }

    /** An E'' literal: reads the same whatever standard_conforming_strings says. */
    private static String literal(String value) {
        if (value == null) {
            return "NULL";
        }
        return "E'" + value.replace("\\", "\\\\").replace("'", "''") + "'";
    }
}
