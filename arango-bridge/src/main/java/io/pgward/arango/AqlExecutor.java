package io.pgward.arango;

import com.arangodb.ArangoCursor;
import com.arangodb.ArangoDBException;
import com.arangodb.ArangoDatabase;
import com.arangodb.entity.CursorStats;
import com.arangodb.entity.CursorWarning;
import com.arangodb.model.AqlQueryOptions;
import com.fasterxml.jackson.databind.JsonNode;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Runs one AQL statement under the limits and streams its rows. The cursor request carries {@code maxRuntime}
 * and {@code memoryLimit}, so ArangoDB itself stops a statement that goes past them, and {@code count}, so a
 * result over the row cap fails before a single row is sent; the cap is checked again while streaming for
 * servers that leave the count out. Write statistics are read right after the cursor opens: the driver keeps
 * them with the first batch only.
 */
final class AqlExecutor {

    AqlExecutor() {
    }

    /**
     * @param db  the database as the login reaches it
     * @param raw true for a read-write login's statement: the completion then reports affected rows, and a write
     *            that returns nothing gets a write command tag
     * @param limits the database's limits, lowered by the login's
     */
    AqlCompletion run(ArangoDatabase db, String aql, Map<String, Object> bindVars, boolean raw, AqlLimits limits,
                      RowSink sink) {
        AqlQueryOptions options = new AqlQueryOptions()
                .count(true)
                .batchSize(limits.batchSize())
                .memoryLimit(limits.memoryLimitBytes())
                .maxRuntime(limits.maxRuntimeSeconds());
        try (ArangoCursor<JsonNode> cursor = db.query(aql, JsonNode.class, bindVars, options)) {
            long writes = writesExecuted(cursor.getStats());
            List<String> warnings = warnings(cursor.getWarnings());
            Integer count = cursor.getCount();
            if (count != null && count > limits.maxRows()) {
                throw AqlException.rowCap(limits.maxRows());
            }
            List<JsonNode> firstBatch = new ArrayList<>();
            while (firstBatch.size() < limits.batchSize() && cursor.hasNext()) {
                firstBatch.add(cursor.next());
            }
            OptionalLong affected = raw ? OptionalLong.of(writes) : OptionalLong.empty();
            Optional<String> writeTag = raw && firstBatch.isEmpty() ? writeTag(aql, writes) : Optional.empty();
            if (writeTag.isPresent()) {
                return new AqlCompletion(writeTag.get(), 0, affected, warnings);
            }
            ResultShape shape = ResultShape.of(firstBatch);
            sink.columns(shape.columns());
            long rows = 0;
            for (JsonNode value : firstBatch) {
                sink.row(shape.row(value));
                rows++;
            }
            while (cursor.hasNext()) {
                if (rows >= limits.maxRows()) {
                    throw AqlException.rowCap(limits.maxRows());
                }
                sink.row(shape.row(cursor.next()));
                rows++;
            }
            return new AqlCompletion("SELECT " + rows, rows, affected, warnings);
        } catch (ArangoDBException e) {
            throw ArangoErrors.translate(e);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The tag PostgreSQL would give the write, chosen by the statement's first write operation. */
    private static Optional<String> writeTag(String aql, long writes) {
        Optional<String> operation = WriteKeywords.operation(aql);
        if (operation.isEmpty()) {
            return writes > 0 ? Optional.of("UPDATE " + writes) : Optional.empty();
        }
        return Optional.of(switch (operation.get()) {
            case "INSERT" -> "INSERT 0 " + writes;
            case "REMOVE" -> "DELETE " + writes;
            default -> "UPDATE " + writes;
        });
    }

    private static long writesExecuted(CursorStats stats) {
        return stats == null || stats.getWritesExecuted() == null ? 0 : stats.getWritesExecuted();
    }

    private static List<String> warnings(Collection<CursorWarning> warnings) {
        List<String> texts = new ArrayList<>();
        if (warnings != null) {
            for (CursorWarning w : warnings) {
                texts.add(w.getCode() + ": " + w.getMessage());
            }
        }
        return texts;
    }
}
