package io.pgward.arango;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * Two renderings of an {@link ArangoSchema}: plain text for the prompt that turns a question into AQL, and rows
 * for {@code pgward.schema([collection])} with columns {@code kind}, {@code name} and {@code definition} (JSON).
 */
final class SchemaText {

    static final List<String> ROW_COLUMNS = List.of("kind", "name", "definition");
    private static final ObjectMapper JSON = new ObjectMapper();

    private SchemaText() {
    }

    static String prompt(ArangoSchema schema, String description) {
        StringBuilder text = new StringBuilder();
        text.append("ArangoDB database ").append(schema.database()).append(", queried with AQL.\n");
        if (!description.isEmpty()) {
            text.append("About this database: ").append(description).append('\n');
        }
        appendCollections(text, schema, ArangoSchema.CollectionKind.DOCUMENT, "Document collections");
        appendCollections(text, schema, ArangoSchema.CollectionKind.EDGE, "Edge collections (_from, _to)");
        if (!schema.graphs().isEmpty()) {
            text.append("Named graphs (edge collection: from vertex collections -> to vertex collections):\n");
            for (ArangoSchema.GraphInfo graph : schema.graphs()) {
                text.append("- ").append(graph.name()).append(": ").append(graph.edgeDefinitions().stream()
                        .map(e -> e.collection() + ": " + String.join(", ", e.from()) + " -> "
                                + String.join(", ", e.to()))
                        .collect(Collectors.joining("; ")));
                if (!graph.orphanCollections().isEmpty()) {
                    text.append("; orphan collections ").append(String.join(", ", graph.orphanCollections()));
                }
                text.append('\n');
            }
        }
        if (!schema.views().isEmpty()) {
            text.append("ArangoSearch views (query with FOR d IN view SEARCH ...):\n");
            for (ArangoSchema.ViewInfo view : schema.views()) {
                text.append("- ").append(view.name()).append(" (").append(view.type()).append("): ")
                        .append(view.links().entrySet().stream()
                                .map(l -> l.getKey() + " [" + String.join(", ", l.getValue()) + "]")
                                .collect(Collectors.joining("; ")))
                        .append('\n');
            }
        }
        return text.toString();
    }

    private static void appendCollections(StringBuilder text, ArangoSchema schema, ArangoSchema.CollectionKind kind,
                                          String heading) {
        List<ArangoSchema.CollectionInfo> ofKind = schema.collections().stream().filter(c -> c.kind() == kind)
                .toList();
        if (ofKind.isEmpty()) {
            return;
        }
        text.append(heading).append(":\n");
        for (ArangoSchema.CollectionInfo c : ofKind) {
            text.append("- ").append(c.name()).append(": fields ");
            text.append(c.fields().isEmpty() ? "(no documents sampled)" : c.fields().stream()
                    .map(f -> f.name() + " (" + f.type() + ")").collect(Collectors.joining(", ")));
            if (!c.indexes().isEmpty()) {
                text.append("; indexes ").append(c.indexes().stream()
                        .map(i -> i.type() + " on " + String.join(", ", i.fields()) + (i.unique() ? " unique" : ""))
                        .collect(Collectors.joining(", ")));
            }
            text.append('\n');
        }
    }

    static List<List<String>> rows(ArangoSchema schema) {
        List<List<String>> rows = new ArrayList<>();
        for (ArangoSchema.CollectionInfo c : schema.collections()) {
            Map<String, Object> definition = new LinkedHashMap<>();
            definition.put("fields", c.fields());
            definition.put("indexes", c.indexes());
            rows.add(List.of(c.kind() == ArangoSchema.CollectionKind.EDGE ? "edge collection" : "document collection",
                    c.name(), json(definition)));
        }
        for (ArangoSchema.GraphInfo g : schema.graphs()) {
            Map<String, Object> definition = new LinkedHashMap<>();
            definition.put("edgeDefinitions", g.edgeDefinitions());
            definition.put("orphanCollections", g.orphanCollections());
            rows.add(List.of("graph", g.name(), json(definition)));
        }
        for (ArangoSchema.ViewInfo v : schema.views()) {
            Map<String, Object> definition = new LinkedHashMap<>();
            definition.put("type", v.type());
            definition.put("links", new TreeMap<>(v.links()));
            rows.add(List.of("view", v.name(), json(definition)));
        }
        return rows;
    }

    private static String json(Object value) {
        try {
            return JSON.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("schema records always serialize", e);
        }
    }
}
