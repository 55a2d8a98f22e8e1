package io.pgward.arango;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * The multi-model schema of one ArangoDB database as reflected at start: collections (document or edge) with the
 * fields seen in a sample of their documents and their indexes, named graphs with their edge definitions, and
 * ArangoSearch views with what they index. ArangoDB has no declared schema, so the fields are a sample, not a
 * guarantee.
 */
public record ArangoSchema(String database, List<CollectionInfo> collections, List<GraphInfo> graphs,
                           List<ViewInfo> views) {

    public ArangoSchema {
        collections = List.copyOf(collections);
        graphs = List.copyOf(graphs);
        views = List.copyOf(views);
    }

    public enum CollectionKind { DOCUMENT, EDGE }

    /** A top-level attribute and the JSON type of the first non-null value seen for it. */
    public record Field(String name, String type) {
    }

    public record Index(String name, String type, List<String> fields, boolean unique, boolean sparse) {
        public Index {
            fields = List.copyOf(fields);
        }
    }

    public record CollectionInfo(String name, CollectionKind kind, List<Field> fields, List<Index> indexes) {
        public CollectionInfo {
            fields = List.copyOf(fields);
            indexes = List.copyOf(indexes);
        }
    }

    public record EdgeDefinition(String collection, List<String> from, List<String> to) {
        public EdgeDefinition {
            from = List.copyOf(from);
            to = List.copyOf(to);
        }

        boolean mentions(String name) {
            return collection.equals(name) || from.contains(name) || to.contains(name);
        }
    }

    public record GraphInfo(String name, List<EdgeDefinition> edgeDefinitions, List<String> orphanCollections) {
        public GraphInfo {
            edgeDefinitions = List.copyOf(edgeDefinitions);
            orphanCollections = List.copyOf(orphanCollections);
        }

        boolean mentions(String collection) {
            return orphanCollections.contains(collection)
                    || edgeDefinitions.stream().anyMatch(e -> e.mentions(collection));
        }
    }

    /**
     * @param type  {@code arangosearch} or {@code search-alias}
     * @param links per linked collection, the indexed fields ({@code name [analyzers]}, {@code *} for all
     *              fields) of an arangosearch view, or the inverted index names of a search-alias view
     */
    public record ViewInfo(String name, String type, Map<String, List<String>> links) {
        public ViewInfo {
            links = Map.copyOf(links);
        }
    }

    /**
     * The part of the schema a login may see: the collections and views it may read (a view's links only to
     * those collections), and the graphs all of whose collections it may read.
     */
    public ArangoSchema visible(Predicate<String> mayRead) {
        List<CollectionInfo> readable = collections.stream().filter(c -> mayRead.test(c.name())).toList();
        List<GraphInfo> walkable = graphs.stream().filter(g -> g.orphanCollections().stream().allMatch(mayRead)
                && g.edgeDefinitions().stream().allMatch(e -> mayRead.test(e.collection())
                && e.from().stream().allMatch(mayRead) && e.to().stream().allMatch(mayRead))).toList();
        List<ViewInfo> searchable = new ArrayList<>();
        for (ViewInfo v : views) {
            if (mayRead.test(v.name()) && v.links().keySet().stream().allMatch(mayRead)) {
                searchable.add(v);
            }
        }
        return new ArangoSchema(database, readable, walkable, searchable);
    }

    public Optional<CollectionInfo> collection(String name) {
        return collections.stream().filter(c -> c.name().equals(name)).findFirst();
    }

    /**
     * The part of the schema about one collection: the collection, the graphs it takes part in and the views
     * that index it; empty when there is no such collection.
     */
    public Optional<ArangoSchema> only(String collection) {
        Optional<CollectionInfo> info = collection(collection);
        if (info.isEmpty()) {
            return Optional.empty();
        }
        List<GraphInfo> usedIn = new ArrayList<>();
        for (GraphInfo g : graphs) {
            if (g.mentions(collection)) {
                usedIn.add(g);
            }
        }
        List<ViewInfo> indexedBy = new ArrayList<>();
        for (ViewInfo v : views) {
            if (v.links().containsKey(collection)) {
                indexedBy.add(v);
            }
        }
        return Optional.of(new ArangoSchema(database, List.of(info.get()), usedIn, indexedBy));
    }
}
