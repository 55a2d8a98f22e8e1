package io.pgward.arango;

import com.fasterxml.jackson.databind.JsonNode;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * Reads one expression of an EXPLAIN plan (ArangoDB's AST as {@code {"type": ..., "subNodes": [...]}}) for a
 * read-only login. Refuses what would run code or read data the plan does not declare:
 * <ul>
 *   <li>{@code user function call} (a UDF runs JavaScript the security team never reviewed), and the built-in
 *       {@code CALL} and {@code APPLY}, which call a function chosen at run time, UDFs included;</li>
 *   <li>functions that read documents from a collection named at run time ({@code DOCUMENT} with an id that is
 *       not a constant, {@code COLLECTIONS()}, {@code PREGEL_RESULT}); with constant names they are allowed, and
 *       the names count as data sources of the plan;</li>
 *   <li>any expression type not in {@link #KNOWN_TYPES}: a newer server's construct is refused until pgward
 *       knows what it does.</li>
 * </ul>
 * Collections and views named in expressions ({@code LENGTH(users)}, {@code FULLTEXT(users, ...)}) are added to
 * the data sources, so the login's selection applies to them too.
 */
final class ExpressionCheck {

    /** AstNode type names of ArangoDB 3.12 that may appear inside a plan's expressions and only compute. */
    static final Set<String> KNOWN_TYPES = Set.of(
            "value", "array", "object", "object element", "calculated object element", "reference", "variable",
            "attribute access", "bound attribute access", "indexed access", "expansion", "iterator",
            "array limit", "array filter", "passthru", "no-op", "range", "ternary", "quantifier",
            "unary plus", "unary minus", "unary not", "logical and", "logical or", "n-ary and", "n-ary or",
            "plus", "minus", "times", "division", "modulus",
            "compare ==", "compare !=", "compare <", "compare <=", "compare >", "compare >=", "compare in",
            "compare not in", "array compare ==", "array compare !=", "array compare <", "array compare <=",
            "array compare >", "array compare >=", "array compare in", "array compare not in",
            "function call", "collection", "view");

    static final String USER_FUNCTION_CALL = "user function call";

    /** Built-ins that call another function by a name computed at run time. */
    private static final Set<String> INDIRECT_CALLS = Set.of("CALL", "APPLY", "V8");
    /** Built-ins that list or read data sources not named in the query text. */
    private static final Set<String> UNDECLARED_READS = Set.of("COLLECTIONS", "PREGEL_RESULT");
    /** Built-ins whose first argument names the collection they read. */
    private static final Set<String> READS_NAMED_COLLECTION = Set.of("COLLECTION_COUNT", "FULLTEXT", "NEAR",
            "WITHIN", "WITHIN_RECTANGLE", "SCHEMA_GET");
    private static final int MAX_DEPTH = 500;

    private final Set<String> dataSources;

    /** @param dataSources where the collections and views named in expressions are added */
    ExpressionCheck(Set<String> dataSources) {
        this.dataSources = dataSources;
    }

    /** Empty when the expression only computes over declared data; otherwise why it may not run. */
    Optional<String> check(JsonNode expression) {
        return check(expression, 0);
    }

    private Optional<String> check(JsonNode node, int depth) {
        if (depth > MAX_DEPTH) {
            return Optional.of("the plan has an expression nested deeper than pgward reads");
        }
        if (!node.isObject()) {
            return Optional.of("the plan has an expression pgward cannot read");
        }
        String type = node.path("type").asText("");
        if (USER_FUNCTION_CALL.equals(type)) {
            return Optional.of("the plan calls the user-defined function " + node.path("name").asText("?")
                    + " (user-defined functions run JavaScript)");
        }
        if (!KNOWN_TYPES.contains(type)) {
            return Optional.of("the plan has an expression of type \"" + type + "\" that pgward does not know");
        }
        switch (type) {
            case "collection", "view" -> dataSources.add(node.path("name").asText(""));
            case "function call" -> {
                Optional<String> call = functionCall(node);
                if (call.isPresent()) {
                    return call;
                }
            }
            default -> {
            }
        }
        JsonNode subNodes = node.get("subNodes");
        if (subNodes != null) {
            if (!subNodes.isArray()) {
                return Optional.of("the plan has an expression pgward cannot read");
            }
            for (JsonNode sub : subNodes) {
                Optional<String> inner = check(sub, depth + 1);
                if (inner.isPresent()) {
                    return inner;
                }
            }
        }
        return Optional.empty();
    }

    private Optional<String> functionCall(JsonNode node) {
        String name = node.path("name").asText("").toUpperCase(Locale.ROOT);
        if (INDIRECT_CALLS.contains(name)) {
            return Optional.of("the plan calls " + name + ", which can call any function, user-defined ones "
                    + "included");
        }
        if (UNDECLARED_READS.contains(name)) {
            return Optional.of("the plan calls " + name + ", which reads data sources the query does not name");
        }
        List<JsonNode> arguments = arguments(node);
        if (name.equals("DOCUMENT")) {
            return document(arguments);
        }
        if (READS_NAMED_COLLECTION.contains(name)) {
            Optional<String> collection = arguments.isEmpty() ? Optional.empty() : constantName(arguments.get(0));
            if (collection.isEmpty()) {
                return Optional.of("the plan calls " + name + " on a collection named at run time");
            }
            dataSources.add(collection.get());
        }
        return Optional.empty();
    }

    /**
     * {@code DOCUMENT(id)}, {@code DOCUMENT([ids])} and {@code DOCUMENT(collection, key)} may read any collection
     * of the database; they are allowed only when the collection is a constant, so it can be checked.
     */
    private Optional<String> document(List<JsonNode> arguments) {
        String runtime = "the plan calls DOCUMENT with a document id computed at run time, which can read any "
                + "collection; name the collection in the query (FOR ... IN collection FILTER ...)";
        if (arguments.size() == 2) {
            Optional<String> collection = constantName(arguments.get(0));
            if (collection.isEmpty()) {
                return Optional.of(runtime);
            }
            dataSources.add(collection.get());
            return Optional.empty();
        }
        if (arguments.size() != 1) {
            return Optional.of(runtime);
        }
        JsonNode id = arguments.get(0);
        List<JsonNode> ids = "array".equals(id.path("type").asText()) ? elements(id) : List.of(id);
        for (JsonNode one : ids) {
            Optional<String> collection = constantString(one).filter(s -> s.indexOf('/') > 0)
                    .map(s -> s.substring(0, s.indexOf('/')));
            if (collection.isEmpty()) {
                return Optional.of(runtime);
            }
            dataSources.add(collection.get());
        }
        return Optional.empty();
    }

    /** A function call's arguments: its one sub node is an array of them. */
    private static List<JsonNode> arguments(JsonNode call) {
        JsonNode subNodes = call.path("subNodes");
        if (subNodes.size() == 1 && "array".equals(subNodes.get(0).path("type").asText())) {
            return elements(subNodes.get(0));
        }
        return elements(call);
    }

    private static List<JsonNode> elements(JsonNode node) {
        List<JsonNode> items = new ArrayList<>();
        node.path("subNodes").forEach(items::add);
        return items;
    }

    private static Optional<String> constantName(JsonNode argument) {
        String type = argument.path("type").asText();
        if ("collection".equals(type) || "view".equals(type)) {
            return Optional.of(argument.path("name").asText("")).filter(s -> !s.isEmpty());
        }
        return constantString(argument).filter(s -> !s.isEmpty());
    }

    private static Optional<String> constantString(JsonNode argument) {
        if ("value".equals(argument.path("type").asText()) && argument.path("value").isTextual()) {
            return Optional.of(argument.path("value").textValue());
        }
        return Optional.empty();
    }
}
