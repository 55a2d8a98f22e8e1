package io.pgward.arango;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;

import javax.net.ssl.SSLContext;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * An in-process stand-in for ArangoDB's HTTP API, answering the driver's calls (HTTP/1.1, JSON) with the
 * response shapes ArangoDB documents: version, explain, cursor with batches and follow-up batch calls, cursor
 * delete, collections, indexes, named graphs, views and view properties, and the error body
 * {@code {"error":true,"code":..,"errorNum":..,"errorMessage":..}}. Every request is recorded with its parsed
 * body, so tests assert on what the driver sent.
 *
 * <p>Statements are scripted by their exact text: {@link #plan} sets what EXPLAIN answers, {@link #rows} what the
 * cursor returns. The fake fails closed: EXPLAIN of an unscripted statement is an error (HTTP 500, errorNum 4),
 * never a read plan, so a test cannot pass by a plan nobody wrote; an unscripted cursor returns no rows;
 * {@code RETURN 1} returns 1; the schema sample query returns the documents given with {@link #documents}.
 *
 * <p>Access errors are ArangoDB's: bad credentials, and for a user other than root a database that does not
 * exist, are HTTP 401 with errorNum 11 (the server does not tell an unknown database from a missing grant);
 * root gets 404 with errorNum 1228 for a missing database.
 */
public final class FakeArango implements AutoCloseable {

    public static final ObjectMapper JSON = new ObjectMapper();
    public static final String READ_PLAN = """
            {"nodes":[{"type":"SingletonNode","dependencies":[],"id":1,"estimatedCost":1,"estimatedNrItems":1},
             {"type":"CalculationNode","dependencies":[1],"id":2,"estimatedCost":2,"estimatedNrItems":1,
              "expression":{"type":"value","value":1},"outVariable":{"id":0,"name":"#0"},"canThrow":false,
              "expressionType":"json"},
             {"type":"ReturnNode","dependencies":[2],"id":3,"estimatedCost":3,"estimatedNrItems":1,
              "inVariable":{"id":0,"name":"#0"},"count":true}],
             "rules":[],"collections":[],"variables":[{"id":0,"name":"#0"}],"estimatedCost":3,
             "estimatedNrItems":1,"isModificationQuery":false}""";
    private static final Pattern DB_PATH = Pattern.compile("^/_db/([^/]+)(/.*)$");
    private static final String SAMPLE_QUERY = "FOR d IN @@collection LIMIT @n RETURN d";

    public record Recorded(String method, String database, String path, String query, Map<String, List<String>> headers,
                    JsonNode body) {
        public String header(String name) {
            List<String> values = headers.get(name);
            return values == null || values.isEmpty() ? null : values.get(0);
        }
    }

    private record Cursor(List<JsonNode> remaining, int batchSize, AtomicInteger batch) {
    }

    private record Failure(int status, int errorNum, String message) {
    }

    private final HttpServer server;
    private final ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor();
    private final List<Recorded> requests = new CopyOnWriteArrayList<>();
    private final Map<String, Cursor> cursors = new ConcurrentHashMap<>();
    private final AtomicInteger cursorIds = new AtomicInteger(76);

    private final Set<String> databases = new HashSet<>(Set.of("_system", "shop"));
    private final Map<String, JsonNode> plans = new HashMap<>();
    private final List<Map.Entry<java.util.function.Predicate<String>, JsonNode>> planRules = new ArrayList<>();
    private final Map<String, Failure> explainFailures = new HashMap<>();
    private final Map<String, List<JsonNode>> rows = new HashMap<>();
    private final Map<String, Long> writes = new HashMap<>();
    private final Map<String, Failure> cursorFailures = new HashMap<>();
    private final Map<String, JsonNode> warnings = new HashMap<>();
    private final Map<String, List<JsonNode>> documents = new HashMap<>();
    private final Map<String, Integer> collections = new LinkedHashMap<>();
    private final Map<String, JsonNode> indexes = new HashMap<>();
    private final List<JsonNode> graphs = new ArrayList<>();
    private final Map<String, JsonNode> views = new LinkedHashMap<>();
    private final Map<String, java.time.Duration> delays = new ConcurrentHashMap<>();
    private String basicAuth;
    private String basicUser;
    /** Further accounts, by their Authorization header: the user name. */
    private final Map<String, String> otherAccounts = new HashMap<>();
    private String jwt;
    private String versionBody = "{\"server\":\"arango\",\"license\":\"community\",\"version\":\"3.12.4\"}";
    private boolean omitCount;

    private FakeArango(SSLContext tls) throws IOException {
        InetSocketAddress loopback = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
        if (tls == null) {
            server = HttpServer.create(loopback, 0);
        } else {
            HttpsServer https = HttpsServer.create(loopback, 0);
            https.setHttpsConfigurator(new HttpsConfigurator(tls));
            server = https;
        }
        server.setExecutor(executor);
        server.createContext("/", this::handle);
        server.start();
    }

    public static FakeArango start() {
        return startTls(null);
    }

    /** Serves https with the key and certificate of {@code tls}; plain http when null. */
    public static FakeArango startTls(SSLContext tls) {
        try {
            return new FakeArango(tls);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    public String endpoint() {
        return (server instanceof HttpsServer ? "https" : "http") + "://127.0.0.1:" + server.getAddress().getPort();
    }

    // ---- scripting

    public synchronized FakeArango requireBasic(String user, String password) {
        basicUser = user;
        basicAuth = "Basic " + Base64.getEncoder().encodeToString((user + ":" + password)
                .getBytes(StandardCharsets.UTF_8));
        return this;
    }

    /** Also accepts this user and password (an account of its own for a login), besides the required one. */
    public synchronized FakeArango allowBasic(String user, String password) {
        otherAccounts.put("Basic " + Base64.getEncoder().encodeToString((user + ":" + password)
                .getBytes(StandardCharsets.UTF_8)), user);
        return this;
    }

    public synchronized FakeArango requireJwt(String token) {
        jwt = token;
        return this;
    }

    public synchronized FakeArango withoutDatabase(String name) {
        databases.remove(name);
        return this;
    }

    public synchronized FakeArango versionBody(String body) {
        versionBody = body;
        return this;
    }

    public synchronized FakeArango omitCount() {
        omitCount = true;
        return this;
    }

    /** EXPLAIN of {@code aql} answers with this {@code plan} object. */
    public synchronized FakeArango plan(String aql, String planJson) {
        plans.put(aql, parse(planJson));
        return this;
    }

    /** EXPLAIN of every text {@code which} accepts (and no exact script covers) answers with this plan. */
    public synchronized FakeArango planWhere(java.util.function.Predicate<String> which, String planJson) {
        planRules.add(Map.entry(which, parse(planJson)));
        return this;
    }

    /** EXPLAIN of {@code aql} answers with {@link #READ_PLAN}, a plain read of no collection. */
    public synchronized FakeArango reads(String aql) {
        return plan(aql, READ_PLAN);
    }

    public synchronized FakeArango explainError(String aql, int status, int errorNum, String message) {
        explainFailures.put(aql, new Failure(status, errorNum, message));
        return this;
    }

    /** The cursor of {@code aql} returns these values (a JSON array). */
    public synchronized FakeArango rows(String aql, String jsonArray) {
        List<JsonNode> values = new ArrayList<>();
        parse(jsonArray).forEach(values::add);
        rows.put(aql, values);
        return this;
    }

    /**
     * The cursor of {@code aql} answers only after {@code delay}, like a slow query; other requests are served
     * meanwhile.
     */
    public FakeArango delay(String aql, java.time.Duration delay) {
        delays.put(aql, delay);
        return this;
    }

    public synchronized FakeArango writes(String aql, long writesExecuted) {
        writes.put(aql, writesExecuted);
        return this;
    }

    /** The cursor of {@code aql} reports these warnings (JSON array of {code, message}). */
    public synchronized FakeArango warnings(String aql, String warningsJson) {
        warnings.put(aql, parse(warningsJson));
        return this;
    }

    public synchronized FakeArango cursorError(String aql, int status, int errorNum, String message) {
        cursorFailures.put(aql, new Failure(status, errorNum, message));
        return this;
    }

    /** A collection: type 2 document, 3 edge; with its documents (JSON array) for the schema sample. */
    public synchronized FakeArango collection(String name, int type, String documentsJson) {
        collections.put(name, type);
        List<JsonNode> docs = new ArrayList<>();
        parse(documentsJson).forEach(docs::add);
        documents.put(name, docs);
        return this;
    }

    /** The extra indexes of a collection (JSON array), besides its primary (and edge) index. */
    public synchronized FakeArango indexes(String collection, String indexesJson) {
        indexes.put(collection, parse(indexesJson));
        return this;
    }

    public synchronized FakeArango graph(String graphJson) {
        graphs.add(parse(graphJson));
        return this;
    }

    /** A view: its entry in the view list (name, type) plus the rest of its properties. */
    public synchronized FakeArango view(String name, String type, String propertiesJson) {
        ObjectNode properties = (ObjectNode) parse(propertiesJson);
        properties.put("name", name);
        properties.put("type", type);
        properties.put("id", String.valueOf(100 + views.size()));
        properties.put("globallyUniqueId", "h" + name);
        views.put(name, properties);
        return this;
    }

    public List<Recorded> requests() {
        return List.copyOf(requests);
    }

    public List<Recorded> requests(String method, String path) {
        return requests.stream().filter(r -> r.method().equals(method) && r.path().equals(path)).toList();
    }

    public List<Recorded> explains(String aql) {
        return requests("POST", "/_api/explain").stream()
                .filter(r -> aql.equals(r.body().path("query").asText())).toList();
    }

    public List<Recorded> cursorRequests(String aql) {
        return requests("POST", "/_api/cursor").stream()
                .filter(r -> aql.equals(r.body().path("query").asText())).toList();
    }

    public int openCursors() {
        return cursors.size();
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }

    // ---- serving

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            String method = exchange.getRequestMethod();
            URI uri = exchange.getRequestURI();
            String path = uri.getPath();
            String database = "_system";
            Matcher m = DB_PATH.matcher(path);
            if (m.matches()) {
                database = m.group(1);
                path = m.group(2);
            }
            byte[] raw = exchange.getRequestBody().readAllBytes();
            JsonNode body = raw.length == 0 ? JSON.nullNode() : JSON.readTree(raw);
            requests.add(new Recorded(method, database, path, uri.getRawQuery(),
                    Map.copyOf(exchange.getRequestHeaders()), body));
            java.time.Duration delay = method.equals("POST") && path.equals("/_api/cursor")
                    ? delays.get(body.path("query").asText()) : null;
            if (delay != null) {
                try {
                    Thread.sleep(delay);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
            synchronized (this) {
                if (!authorized(exchange.getRequestHeaders().getFirst("Authorization"))) {
                    error(exchange, 401, 11, "not authorized to execute this request");
                    return;
                }
                if (!databases.contains(database)) {
                    if ("root".equals(basicUser) || (basicUser == null && jwt == null)) {
                        error(exchange, 404, 1228, "database not found");
                    } else {
                        error(exchange, 401, 11, "not authorized to execute this request");
                    }
                    return;
                }
                route(exchange, method, path, body);
            }
        }
    }

    private boolean authorized(String header) {
        if (jwt != null) {
            return header != null && header.regionMatches(true, 0, "bearer ", 0, 7)
                    && header.substring(7).equals(jwt);
        }
        return basicAuth == null || basicAuth.equals(header) || otherAccounts.containsKey(header);
    }

    private void route(HttpExchange exchange, String method, String path, JsonNode body) throws IOException {
        String key = method + " " + path;
        if (key.equals("GET /_api/version")) {
            send(exchange, 200, versionBody);
        } else if (key.equals("POST /_api/explain")) {
            explain(exchange, body);
        } else if (key.equals("POST /_api/cursor")) {
            openCursor(exchange, body);
        } else if (method.equals("POST") && path.startsWith("/_api/cursor/")) {
            nextBatch(exchange, path.substring("/_api/cursor/".length()).split("/")[0]);
        } else if (method.equals("DELETE") && path.startsWith("/_api/cursor/")) {
            String id = path.substring("/_api/cursor/".length());
            if (cursors.remove(id) == null) {
                error(exchange, 404, 1600, "cursor not found");
            } else {
                send(exchange, 202, "{\"id\":\"" + id + "\",\"error\":false,\"code\":202}");
            }
        } else if (key.equals("GET /_api/collection")) {
            listCollections(exchange);
        } else if (key.equals("GET /_api/index")) {
            listIndexes(exchange, exchange.getRequestURI().getQuery());
        } else if (key.equals("GET /_api/gharial")) {
            ObjectNode answer = JSON.createObjectNode().put("error", false).put("code", 200);
            answer.putArray("graphs").addAll(graphs);
            send(exchange, 200, answer.toString());
        } else if (key.equals("GET /_api/view")) {
            ArrayNode list = JSON.createArrayNode();
            views.values().forEach(v -> list.addObject().put("id", v.get("id").asText())
                    .put("name", v.get("name").asText()).put("type", v.get("type").asText())
                    .put("globallyUniqueId", v.get("globallyUniqueId").asText()));
            ObjectNode answer = JSON.createObjectNode().put("error", false).put("code", 200);
            answer.set("result", list);
            send(exchange, 200, answer.toString());
        } else if (method.equals("GET") && path.startsWith("/_api/view/") && path.endsWith("/properties")) {
            String name = path.substring("/_api/view/".length(), path.length() - "/properties".length());
            JsonNode view = views.get(name);
            if (view == null) {
                error(exchange, 404, 1203, "collection or view not found");
            } else {
                ObjectNode answer = ((ObjectNode) view).deepCopy().put("error", false).put("code", 200);
                send(exchange, 200, answer.toString());
            }
        } else {
            error(exchange, 404, 404, "unknown path " + path);
        }
    }

    private void explain(HttpExchange exchange, JsonNode body) throws IOException {
        String aql = body.path("query").asText();
        Failure failure = explainFailures.get(aql);
        if (failure != null) {
            error(exchange, failure.status(), failure.errorNum(), failure.message());
            return;
        }
        JsonNode plan = plans.get(aql);
        for (int i = 0; plan == null && i < planRules.size(); i++) {
            plan = planRules.get(i).getKey().test(aql) ? planRules.get(i).getValue() : null;
        }
        if (plan == null) {
            error(exchange, 500, 4, "FakeArango: no plan scripted for " + aql);
            return;
        }
        ObjectNode answer = JSON.createObjectNode();
        answer.set("plan", plan);
        answer.putArray("warnings");
        answer.putObject("stats").put("rulesExecuted", 30).put("rulesSkipped", 0).put("plansCreated", 1)
                .put("peakMemoryUsage", 0).put("executionTime", 0.0001);
        answer.put("cacheable", true).put("error", false).put("code", 200);
        send(exchange, 200, answer.toString());
    }

    private void openCursor(HttpExchange exchange, JsonNode body) throws IOException {
        String aql = body.path("query").asText();
        Failure failure = cursorFailures.get(aql);
        if (failure != null) {
            error(exchange, failure.status(), failure.errorNum(), failure.message());
            return;
        }
        List<JsonNode> values;
        if (aql.equals("RETURN 1")) {
            values = List.of(JSON.getNodeFactory().numberNode(1));
        } else if (aql.equals(SAMPLE_QUERY)) {
            String collection = body.path("bindVars").path("@collection").asText();
            if (!collections.containsKey(collection)) {
                error(exchange, 404, 1203, "AQL: collection or view not found: " + collection);
                return;
            }
            List<JsonNode> docs = documents.getOrDefault(collection, List.of());
            values = docs.subList(0, Math.min(docs.size(), body.path("bindVars").path("n").asInt()));
        } else {
            values = rows.getOrDefault(aql, List.of());
        }
        int batchSize = body.path("batchSize").asInt(1000);
        Cursor cursor = new Cursor(new ArrayList<>(values), batchSize, new AtomicInteger(1));
        ObjectNode answer = batch(cursor, null);
        if (body.path("count").asBoolean(false) && !omitCount) {
            answer.put("count", values.size());
        }
        ObjectNode extra = answer.putObject("extra");
        extra.set("warnings", warnings.getOrDefault(aql, JSON.createArrayNode()));
        extra.putObject("stats").put("writesExecuted", writes.getOrDefault(aql, 0L)).put("writesIgnored", 0)
                .put("scannedFull", 0).put("scannedIndex", 0).put("filtered", 0).put("httpRequests", 0)
                .put("executionTime", 0.0001).put("peakMemoryUsage", 0);
        if (answer.path("hasMore").asBoolean()) {
            cursors.put(answer.get("id").asText(), cursor);
        }
        send(exchange, 201, answer.toString());
    }

    private void nextBatch(HttpExchange exchange, String id) throws IOException {
        Cursor cursor = cursors.get(id);
        if (cursor == null) {
            error(exchange, 404, 1600, "cursor not found");
            return;
        }
        ObjectNode answer = batch(cursor, id);
        if (!answer.path("hasMore").asBoolean()) {
            cursors.remove(id);
        }
        send(exchange, 200, answer.toString());
    }

    private ObjectNode batch(Cursor cursor, String existingId) {
        ObjectNode answer = JSON.createObjectNode();
        ArrayNode result = answer.putArray("result");
        int n = Math.min(cursor.batchSize(), cursor.remaining().size());
        for (int i = 0; i < n; i++) {
            result.add(cursor.remaining().remove(0));
        }
        boolean hasMore = !cursor.remaining().isEmpty();
        answer.put("hasMore", hasMore);
        if (hasMore) {
            answer.put("id", existingId != null ? existingId : String.valueOf(cursorIds.incrementAndGet()));
            answer.put("nextBatchId", String.valueOf(cursor.batch().incrementAndGet()));
        }
        answer.put("cached", false).put("error", false).put("code", existingId == null ? 201 : 200);
        return answer;
    }

    private void listCollections(HttpExchange exchange) throws IOException {
        ObjectNode answer = JSON.createObjectNode().put("error", false).put("code", 200);
        ArrayNode result = answer.putArray("result");
        int id = 10;
        boolean excludeSystem = String.valueOf(exchange.getRequestURI().getQuery()).contains("excludeSystem=true");
        if (!excludeSystem) {
            result.addObject().put("id", "1").put("name", "_graphs").put("status", 3).put("type", 2)
                    .put("isSystem", true).put("globallyUniqueId", "_graphs");
        }
        for (Map.Entry<String, Integer> c : collections.entrySet()) {
            result.addObject().put("id", String.valueOf(id++)).put("name", c.getKey()).put("status", 3)
                    .put("type", c.getValue()).put("isSystem", false).put("globallyUniqueId", "h" + c.getKey());
        }
        send(exchange, 200, answer.toString());
    }

    private void listIndexes(HttpExchange exchange, String query) throws IOException {
        String collection = query == null ? "" : query.replaceFirst("^.*collection=([^&]+).*$", "$1");
        Integer type = collections.get(collection);
        if (type == null) {
            error(exchange, 404, 1203, "collection or view not found");
            return;
        }
        ObjectNode answer = JSON.createObjectNode().put("error", false).put("code", 200);
        ArrayNode list = answer.putArray("indexes");
        ObjectNode primary = list.addObject().put("id", collection + "/0").put("name", "primary")
                .put("type", "primary").put("unique", true).put("sparse", false);
        primary.putArray("fields").add("_key");
        if (type == 3) {
            ObjectNode edge = list.addObject().put("id", collection + "/1").put("name", "edge")
                    .put("type", "edge").put("unique", false).put("sparse", false);
            edge.putArray("fields").add("_from").add("_to");
        }
        JsonNode extra = indexes.get(collection);
        if (extra != null) {
            list.addAll((ArrayNode) extra);
        }
        send(exchange, 200, answer.toString());
    }

    private static void error(HttpExchange exchange, int status, int errorNum, String message) throws IOException {
        ObjectNode body = JSON.createObjectNode().put("code", status).put("error", true)
                .put("errorMessage", message).put("errorNum", errorNum);
        send(exchange, status, body.toString());
    }

    private static void send(HttpExchange exchange, int status, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", "application/json; charset=utf-8");
        exchange.getResponseHeaders().set("Server", "ArangoDB");
        exchange.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }

    private static JsonNode parse(String json) {
        try {
            return JSON.readTree(json);
        } catch (IOException e) {
            throw new IllegalArgumentException("bad JSON in test script: " + json, e);
        }
    }
}
