package io.pgward.wire.relay;

import io.pgward.wire.gate.StatementGate;
import io.pgward.wire.protocol.BackendMessage;
import io.pgward.wire.protocol.Wire;
import java.util.Set;

/**
 * Tells a gate that {@link StatementGate#watchesSchemaChanges() watches the schema} when DDL ran: at once (others
 * may see it if it commits) and again when the transaction that ran it ends.
 *
 * <p>DDL is known by its CommandComplete tag: what a cached catalog verdict may depend on (relations, functions,
 * types, domains, operators, policies, privileges, comments). {@code CREATE TABLE AS} and {@code SELECT INTO}
 * report {@code SELECT n} and are not seen here; the catalog check's own schema poll covers them within its
 * interval.
 */
final class SchemaWatch {

    private static final Set<String> FIRST_WORDS = Set.of("CREATE", "ALTER", "DROP", "COMMENT", "GRANT", "REVOKE",
            "SECURITY", "IMPORT");

    private final StatementGate gate;
    /** DDL ran in the open transaction: its end changes the schema others see. */
    private boolean ddlInTransaction;

    SchemaWatch(StatementGate gate) {
        this.gate = gate;
    }

    /** A CommandComplete ({@code 'C' | int32 len | str tag}) on its way to the client. */
    void commandComplete(BackendMessage.Frame frame) {
        if (gate.watchesSchemaChanges() && changesSchema(Wire.readCString(frame.body()))) {
            ddlInTransaction = true;
            gate.schemaChanged();
        }
    }

    /** A ReadyForQuery reported the transaction status. */
    void transactionStatus(char status) {
        if (ddlInTransaction && status == 'I') {
            ddlInTransaction = false;
            gate.schemaChanged();
        }
    }

    static boolean changesSchema(String tag) {
        int space = tag.indexOf(' ');
        return FIRST_WORDS.contains(space < 0 ? tag : tag.substring(0, space));
    }
}
