package io.pgward.wire.session;

import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.Channel;
import io.pgward.wire.protocol.PgError;
import io.pgward.wire.protocol.SqlState;
import io.pgward.wire.protocol.Wire;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The one encoder for results pgward produces itself: RowDescription (every column {@code text}, OID 25, text
 * format), DataRows and CommandComplete, preceded by any notices.
 */
final class LocalAnswer {

    private static final int TEXT_OID = 25;

    private LocalAnswer() {
    }

    static void write(Channel client, Verdict.Answer answer) {
        ByteBufAllocator alloc = client.alloc();
        for (String notice : answer.notices()) {
            client.write(new PgError("NOTICE", "00000", notice, null, null, 0).encode(alloc, 'N'));
        }
        client.write(Wire.message(alloc, 'T', buf -> {
            buf.writeShort(answer.columns().size());
            for (String column : answer.columns()) {
                Wire.writeCString(buf, column);
                buf.writeInt(0).writeShort(0).writeInt(TEXT_OID).writeShort(-1).writeInt(-1).writeShort(0);
            }
        }));
        for (List<String> row : answer.rows()) {
            client.write(Wire.message(alloc, 'D', buf -> {
                buf.writeShort(row.size());
                for (String value : row) {
                    if (value == null) {
                        buf.writeInt(-1);
                    } else {
                        byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
                        buf.writeInt(bytes.length).writeBytes(bytes);
                    }
                }
            }));
        }
        client.write(Wire.message(alloc, 'C', buf -> Wire.writeCString(buf, answer.commandTag())));
    }

    static PgError notInExtendedProtocol() {
        return PgError.error(SqlState.FEATURE_NOT_SUPPORTED,
                "pgward answers this statement itself, which it does only in the simple query protocol for now");
    }
}
