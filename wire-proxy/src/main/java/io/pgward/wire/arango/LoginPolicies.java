package io.pgward.wire.arango;

import io.pgward.arango.AqlPolicy;
import io.pgward.arango.ArangoBridge;
import io.pgward.arango.ArangoSchema;
import io.pgward.guard.selection.RelationName;
import io.pgward.guard.selection.SelectedNames;
import io.pgward.wire.config.PgwardConfig;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A login's policy as it applies to one ArangoDB database served as {@code <name>}.
 *
 * <p><b>Selection.</b> A login's {@code tables} names the collections and views of an ArangoDB database with the
 * database's pgward name as the schema: {@code shopdocs.users}, {@code shopdocs."Orders2026"} (PostgreSQL's
 * identifier rules: unquoted names fold to lower case). A login with {@code tables} reads on this database only
 * what they name here, so a selection written for PostgreSQL alone reads nothing on ArangoDB. A login without
 * {@code tables} reads every collection and view but the system ones.
 *
 * <p><b>Limits.</b> {@code row_cap} and {@code statement_timeout} lower the database's {@code limits.rows} and
 * {@code limits.runtime} for the login's statements and questions; they never raise them.
 *
 * <p>What cannot apply stops pgward at start ({@link #check}): a selected system collection, a selected name
 * that is a named graph (a graph is walked through its collections, which are what a selection names), and an
 * entry whose schema is the database's name in another case (it would fold and select nothing).
 */
final class LoginPolicies {

    private final ArangoBridge bridge;
    private final Map<PgwardConfig.Policy, Map<String, AqlPolicy>> byPolicy = new ConcurrentHashMap<>();

    LoginPolicies(ArangoBridge bridge) {
        this.bridge = bridge;
    }

    /** The AQL policy of {@code login} with {@code policy} on this database. */
    AqlPolicy of(String login, PgwardConfig.Policy policy) {
        return byPolicy.computeIfAbsent(policy, p -> new ConcurrentHashMap<>())
                .computeIfAbsent(login, l -> translate(bridge.config().name(), l, policy));
    }

    static AqlPolicy translate(String database, String login, PgwardConfig.Policy policy) {
        Optional<Set<String>> selection = policy.mode() == PgwardConfig.Mode.READ_ONLY && !policy.tables().isEmpty()
                ? Optional.of(selected(database, SelectedNames.parse("tables", policy.tables())))
                : Optional.empty();
        long rowCap = policy.mode() == PgwardConfig.Mode.READ_ONLY ? policy.rowCap() : 0;
        return new AqlPolicy(login, selection, rowCap, policy.statementTimeout());
    }

    private static Set<String> selected(String database, SelectedNames names) {
        Set<String> selected = new LinkedHashSet<>();
        for (RelationName name : names.names()) {
            if (name.schema().filter(database::equals).isPresent()) {
                selected.add(name.name());
            }
        }
        return selected;
    }

    /**
     * Refuses a login setting that cannot apply to this database.
     *
     * @throws IllegalArgumentException naming the login's key and the entry
     */
    void check(PgwardConfig.Login login) {
        if (login.mode() != PgwardConfig.Mode.READ_ONLY || login.policy().tables().isEmpty()) {
            return;
        }
        String key = "logins." + login.name() + ".tables";
        String database = bridge.config().name();
        SelectedNames names = SelectedNames.parse(key, login.policy().tables());
        for (int i = 0; i < names.names().size(); i++) {
            String schema = names.names().get(i).schema().orElse("");
            if (!schema.equals(database) && schema.equalsIgnoreCase(database)) {
                // PostgreSQL's rules fold an unquoted name to lower case: this entry would select nothing here.
                throw new IllegalArgumentException(key + ": " + names.texts().get(i) + " names " + schema
                        + ", not the ArangoDB database " + database + "; quote it: \"" + database + "\"."
                        + names.names().get(i).name());
            }
        }
        Set<String> selection = of(login.name(), login.policy()).selection().orElse(Set.of());
        for (String name : selection) {
            if (name.startsWith("_")) {
                throw new IllegalArgumentException(key + ": " + bridge.config().name() + "." + name
                        + " is an ArangoDB system collection, which read-only logins never read");
            }
        }
        if (selection.isEmpty()) {
            return;
        }
        ArangoSchema schema = bridge.schema();
        for (ArangoSchema.GraphInfo graph : schema.graphs()) {
            boolean alsoADataSource = schema.collection(graph.name()).isPresent()
                    || schema.views().stream().anyMatch(v -> v.name().equals(graph.name()));
            if (selection.contains(graph.name()) && !alsoADataSource) {
                throw new IllegalArgumentException(key + ": " + bridge.config().name() + "." + graph.name()
                        + " is a named graph; select its edge and vertex collections instead");
            }
        }
    }
}
