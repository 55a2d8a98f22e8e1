package io.pgward.arango;

import com.arangodb.ArangoCollection;
import com.arangodb.ArangoCursor;
import com.arangodb.ArangoDBException;
import com.arangodb.ArangoDatabase;
import com.arangodb.entity.CollectionEntity;
import com.arangodb.entity.CollectionType;
import com.arangodb.entity.GraphEntity;
import com.arangodb.entity.IndexEntity;
import com.arangodb.entity.IndexType;
import com.arangodb.entity.InvertedIndexEntity;
import com.arangodb.entity.InvertedIndexField;
import com.arangodb.entity.ViewEntity;
import com.arangodb.entity.ViewType;
import com.arangodb.entity.arangosearch.CollectionLink;
import com.arangodb.entity.arangosearch.FieldLink;
import com.arangodb.entity.arangosearch.SearchAliasIndex;
import com.arangodb.model.AqlQueryOptions;
import com.arangodb.model.CollectionsReadOptions;
import com.fasterxml.jackson.databind.JsonNode;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Reads the schema of the configured database with the same credentials and limits as every statement. Fields
 * come from a small sample per collection ({@code FOR d IN @@collection LIMIT n RETURN d}, a read); the primary
 * and edge indexes are left out, as every collection of that kind has them.
 */
final class SchemaReflector {

    static final int SAMPLE_SIZE = 5;
    private static final Set<String> HIDDEN_FIELDS = Set.of("_id", "_rev");
    private static final Set<IndexType> IMPLICIT_INDEXES = Set.of(IndexType.primary, IndexType.edge);

    private final ArangoDatabase db;
    private final AqlLimits limits;

    SchemaReflector(ArangoDatabase db, AqlLimits limits) {
        this.db = db;
        this.limits = limits;
    }

    ArangoSchema reflect() {
        try {
            List<ArangoSchema.CollectionInfo> collections = new ArrayList<>();
            List<CollectionEntity> entities = new ArrayList<>(
                    db.getCollections(new CollectionsReadOptions().excludeSystem(true)));
            entities.sort(Comparator.comparing(CollectionEntity::getName));
            for (CollectionEntity entity : entities) {
                if (Boolean.TRUE.equals(entity.getIsSystem())) {
                    continue;
                }
                collections.add(collection(entity));
            }
            return new ArangoSchema(db.name(), collections, graphs(), views());
        } catch (ArangoDBException e) {
            throw ArangoErrors.translate(e);
        }
    }

    private ArangoSchema.CollectionInfo collection(CollectionEntity entity) {
        ArangoSchema.CollectionKind kind = entity.getType() == CollectionType.EDGES
                ? ArangoSchema.CollectionKind.EDGE : ArangoSchema.CollectionKind.DOCUMENT;
        return new ArangoSchema.CollectionInfo(entity.getName(), kind, sampledFields(entity.getName()),
                indexes(db.collection(entity.getName())));
    }

    private List<ArangoSchema.Field> sampledFields(String collection) {
        AqlQueryOptions options = new AqlQueryOptions()
                .batchSize(SAMPLE_SIZE)
                .memoryLimit(limits.memoryLimitBytes())
                .maxRuntime(limits.maxRuntimeSeconds());
        Map<String, String> types = new LinkedHashMap<>();
        try (ArangoCursor<JsonNode> sample = db.query("FOR d IN @@collection LIMIT @n RETURN d", JsonNode.class,
                Map.of("@collection", collection, "n", SAMPLE_SIZE), options)) {
            while (sample.hasNext()) {
                JsonNode document = sample.next();
                if (document == null || !document.isObject()) {
                    continue;
                }
                document.properties().forEach(field -> {
                    if (!HIDDEN_FIELDS.contains(field.getKey())) {
                        String type = jsonType(field.getValue());
                        types.merge(field.getKey(), type, (seen, now) -> "null".equals(seen) ? now : seen);
                    }
                });
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        List<ArangoSchema.Field> fields = new ArrayList<>();
        types.forEach((name, type) -> fields.add(new ArangoSchema.Field(name, type)));
        return fields;
    }

    private static String jsonType(JsonNode value) {
        return switch (value.getNodeType()) {
            case STRING, BINARY -> "string";
            case NUMBER -> "number";
            case BOOLEAN -> "boolean";
            case ARRAY -> "array";
            case OBJECT, POJO -> "object";
            case NULL, MISSING -> "null";
        };
    }

    private static List<ArangoSchema.Index> indexes(ArangoCollection collection) {
        List<ArangoSchema.Index> indexes = new ArrayList<>();
        for (IndexEntity index : collection.getIndexes()) {
            if (!IMPLICIT_INDEXES.contains(index.getType())) {
                indexes.add(new ArangoSchema.Index(index.getName(), String.valueOf(index.getType()),
                        index.getFields() == null ? List.of() : List.copyOf(index.getFields()),
                        Boolean.TRUE.equals(index.getUnique()), Boolean.TRUE.equals(index.getSparse())));
            }
        }
        for (InvertedIndexEntity index : collection.getInvertedIndexes()) {
            List<String> fields = new ArrayList<>();
            if (index.getFields() != null) {
                for (InvertedIndexField field : index.getFields()) {
                    fields.add(field.getName());
                }
            }
            indexes.add(new ArangoSchema.Index(index.getName(), "inverted", fields, false,
                    Boolean.TRUE.equals(index.getSparse())));
        }
        return indexes;
    }

    private List<ArangoSchema.GraphInfo> graphs() {
        List<ArangoSchema.GraphInfo> graphs = new ArrayList<>();
        for (GraphEntity graph : db.getGraphs()) {
            List<ArangoSchema.EdgeDefinition> definitions = new ArrayList<>();
            for (com.arangodb.entity.EdgeDefinition d : nonNull(graph.getEdgeDefinitions())) {
                definitions.add(new ArangoSchema.EdgeDefinition(d.getCollection(), List.copyOf(nonNull(d.getFrom())),
                        List.copyOf(nonNull(d.getTo()))));
            }
            graphs.add(new ArangoSchema.GraphInfo(graph.getName(), definitions,
                    List.copyOf(nonNull(graph.getOrphanCollections()))));
        }
        graphs.sort(Comparator.comparing(ArangoSchema.GraphInfo::name));
        return graphs;
    }

    private List<ArangoSchema.ViewInfo> views() {
        List<ArangoSchema.ViewInfo> views = new ArrayList<>();
        for (ViewEntity view : db.getViews()) {
            Map<String, List<String>> links = new LinkedHashMap<>();
            if (view.getType() == ViewType.ARANGO_SEARCH) {
                for (CollectionLink link : nonNull(db.arangoSearch(view.getName()).getProperties().getLinks())) {
                    List<String> fields = new ArrayList<>();
                    if (Boolean.TRUE.equals(link.getIncludeAllFields())) {
                        fields.add("*");
                    }
                    for (FieldLink field : nonNull(link.getFields())) {
                        fields.add(field.getAnalyzers() == null || field.getAnalyzers().isEmpty() ? field.getName()
                                : field.getName() + " " + field.getAnalyzers());
                    }
                    links.put(link.getName(), fields);
                }
                views.add(new ArangoSchema.ViewInfo(view.getName(), "arangosearch", links));
            } else if (view.getType() == ViewType.SEARCH_ALIAS) {
                for (SearchAliasIndex index : nonNull(db.searchAlias(view.getName()).getProperties().getIndexes())) {
                    links.computeIfAbsent(index.getCollection(), c -> new ArrayList<>()).add(index.getIndex());
                }
                views.add(new ArangoSchema.ViewInfo(view.getName(), "search-alias", links));
            }
        }
        views.sort(Comparator.comparing(ArangoSchema.ViewInfo::name));
        return views;
    }

    private static <T> Collection<T> nonNull(Collection<T> items) {
        return items == null ? List.of() : items;
    }
}
