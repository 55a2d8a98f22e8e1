package io.pgward.arango;

import com.arangodb.ArangoDB;
import com.arangodb.ArangoDatabase;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * One configured ArangoDB database, as pgward serves it. Built by {@link #start}, which checks connectivity and
 * fails with an {@link ArangoStartupException} naming what is wrong. Thread-safe: one instance serves every
 * session on its database. Every call blocks on ArangoDB, so callers run it off the event loop.
 *
 * <pre>
 *   statement ──▶ run(aql, READ_ONLY) ──▶ ReadOnlyGate (keywords, EXPLAIN plan) ──▶ AqlExecutor (limits) ──▶ RowSink
 *             └─▶ run(aql, RAW) ─────────────────────────────────────────────────▶ AqlExecutor (limits) ──▶ RowSink
 * </pre>
 * Failures of a statement are {@link AqlException}s with a SQLSTATE.
 *
 * <p>A login listed in the configuration's {@code loginAuth} runs as its own ArangoDB account (its own driver,
 * probed at start), so ArangoDB's grants apply to it; every other login, the startup probe and schema reflection
 * use the entry's account.
 */
public final class ArangoBridge implements AutoCloseable {

    /** What {@code pgward.dialect()} answers on an ArangoDB database. */
    public static final String DIALECT_JSON = "{\"dialect\": \"arango\"}";

    private final ArangoConfig config;
    private final ArangoDB arango;
    private final ArangoDatabase db;
    /** The databases as each login with an account of its own reaches them. */
    private final Map<String, ArangoDatabase> loginDatabases;
    private final ServerInfo serverInfo;
    private final ReadOnlyGate gate;
    private final AqlExecutor executor;
    private final SchemaReflector reflector;
    private volatile ArangoSchema schema;

    private ArangoBridge(ArangoConfig config, ArangoDB arango, ArangoDatabase db,
                         Map<String, ArangoDatabase> loginDatabases, ServerInfo serverInfo) {
        this.config = config;
        this.arango = arango;
        this.db = db;
        this.loginDatabases = Map.copyOf(loginDatabases);
        this.serverInfo = serverInfo;
        this.gate = new ReadOnlyGate(config.limits());
        this.executor = new AqlExecutor();
        this.reflector = new SchemaReflector(db, config.limits());
    }

    /**
     * Connects and runs the startup probe (server version, then {@code RETURN 1} on the configured database).
     *
     * @throws ArangoStartupException when the endpoint, the credentials or the database is wrong
     */
    public static ArangoBridge start(ArangoConfig config) {
        List<ArangoDB> drivers = new ArrayList<>();
        try {
            ArangoDB arango = DriverFactory.build(config);
            drivers.add(arango);
            ArangoDatabase db = arango.db(config.database());
            ServerInfo info = ConnectivityProbe.check(db, config);
            Map<String, ArangoDatabase> loginDatabases = new LinkedHashMap<>();
            for (Map.Entry<String, ArangoAuth> account : config.loginAuth().entrySet()) {
                ArangoConfig own = config.withAuth(account.getValue());
                ArangoDB driver = DriverFactory.build(own);
                drivers.add(driver);
                ArangoDatabase loginDb = driver.db(config.database());
                ConnectivityProbe.check(loginDb, own, "logins." + account.getKey());
                loginDatabases.put(account.getKey(), loginDb);
            }
            return new ArangoBridge(config, arango, db, loginDatabases, info);
        } catch (RuntimeException e) {
            drivers.forEach(ArangoDB::shutdown);
            throw e;
        }
    }

    public ArangoConfig config() {
        return config;
    }

    public ServerInfo serverInfo() {
        return serverInfo;
    }

    /**
     * Runs one statement with the database's limits and no selection, streaming its rows to {@code sink}.
     *
     * @throws AqlException when the gate refuses it, ArangoDB rejects it, or it goes past a limit
     */
    public AqlCompletion run(String aql, Map<String, Object> bindVars, ExecutionMode mode, RowSink sink) {
        return run(aql, bindVars, mode, AqlPolicy.UNRESTRICTED, sink);
    }

    /**
     * Runs one statement of a login, streaming its rows to {@code sink}: a read-only statement passes the gate
     * and the login's selection; both modes run under the database's limits lowered by the login's.
     *
     * @throws AqlException when the gate or the selection refuses it, ArangoDB rejects it, or it goes past a
     *                      limit
     */
    public AqlCompletion run(String aql, Map<String, Object> bindVars, ExecutionMode mode, AqlPolicy policy,
                             RowSink sink) {
        Map<String, Object> vars = bindVars == null ? Map.of() : bindVars;
        ArangoDatabase asLogin = databaseOf(policy);
        if (mode == ExecutionMode.READ_ONLY) {
            gate.check(asLogin, aql, vars, policy);
        }
        return executor.run(asLogin, aql, vars, mode == ExecutionMode.RAW, policy.applyTo(config.limits()), sink);
    }

    /** Runs one statement without bind variables and returns the whole result. */
    public AqlResult run(String aql, ExecutionMode mode) {
        return run(aql, mode, AqlPolicy.UNRESTRICTED);
    }

    /** Runs one statement of a login without bind variables and returns the whole result. */
    public AqlResult run(String aql, ExecutionMode mode, AqlPolicy policy) {
        AqlResult.Collector collector = new AqlResult.Collector();
        AqlCompletion completion = run(aql, Map.of(), mode, policy, collector);
        return collector.result(completion);
    }

    /** {@link #validate(String, AqlPolicy)} with no selection. */
    public Validation validate(String aql) {
        return validate(aql, AqlPolicy.UNRESTRICTED);
    }

    /**
     * What the question loop asks before running generated AQL: the read-only gate and the login's selection,
     * including EXPLAIN, without running the statement. A fault other than a rejection (ArangoDB unreachable,
     * credentials refused) is thrown, not returned: it is nothing the model could fix.
     */
    public Validation validate(String aql, AqlPolicy policy) {
        try {
            gate.check(databaseOf(policy), aql, Map.of(), policy);
            return new Validation.Valid(aql);
        } catch (AqlException e) {
            return switch (e.reason()) {
                case SERVER_ERROR, REFUSED, NOT_SELECTED -> new Validation.Invalid(aql,
                        e.arangoMessage() != null ? e.arangoMessage() : e.getMessage(), e.errorNum(), e.sqlState());
                case ROW_CAP, RUNTIME_LIMIT, MEMORY_LIMIT, UNREACHABLE, ACCESS -> throw e;
            };
        }
    }

    /** The database as the policy's login reaches it: with its own account when it has one. */
    private ArangoDatabase databaseOf(AqlPolicy policy) {
        return loginDatabases.getOrDefault(policy.login(), db);
    }

    /** The schema, reflected on first use and then kept until {@link #refreshSchema}. */
    public ArangoSchema schema() {
        ArangoSchema current = schema;
        return current != null ? current : refreshSchema();
    }

    public synchronized ArangoSchema refreshSchema() {
        schema = reflector.reflect();
        return schema;
    }

    /** The schema and the configured description as text for the prompt that turns questions into AQL. */
    public String schemaPrompt() {
        return schemaPrompt(AqlPolicy.UNRESTRICTED);
    }

    /** {@link #schemaPrompt()} with only what {@code policy} may read. */
    public String schemaPrompt(AqlPolicy policy) {
        return SchemaText.prompt(schema().visible(policy::mayRead), config.description());
    }

    /**
     * {@code pgward.schema()} and {@code pgward.schema('collection')}: rows of kind, name and definition (JSON).
     *
     * @param collection one collection, with the graphs and views it takes part in; empty for everything
     * @throws AqlException 42P01 when there is no such collection
     */
    public AqlResult schemaRows(Optional<String> collection) {
        return schemaRows(collection, AqlPolicy.UNRESTRICTED);
    }

    /** {@link #schemaRows(Optional)} as {@code policy} sees it: what it may not read is not named. */
    public AqlResult schemaRows(Optional<String> collection, AqlPolicy policy) {
        ArangoSchema visible = schema().visible(policy::mayRead);
        ArangoSchema selected = collection.isEmpty() ? visible : visible.only(collection.get())
                .orElseThrow(() -> AqlException.unknownCollection(collection.get()));
        List<List<String>> rows = SchemaText.rows(selected);
        return new AqlResult(SchemaText.ROW_COLUMNS, rows,
                new AqlCompletion("SELECT " + rows.size(), rows.size(), OptionalLong.empty(), List.of()));
    }

    @Override
    public void close() {
        loginDatabases.values().forEach(d -> d.arango().shutdown());
        arango.shutdown();
    }
}
