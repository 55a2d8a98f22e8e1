package io.pgward.it;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The Python and Node clients' items for CatalogOracleIT: {@code clients/python/catalog_oracle.py},
 * {@code clients/node/catalog-oracle.mjs} and {@code drizzle-kit pull}, each run as a process against a target.
 * A missing interpreter or driver skips the test, or fails it with {@code PGWARD_REQUIRE_CLIENTS=1}.
 */
final class OracleScriptItems {

    /** drizzle-kit's progress spinner: redrawn lines that say how far it got, not what it found. */
    private static final Pattern SPINNER = Pattern.compile("^\\[[^\\]]*\\] .*(fetching|fetched)$");
    private static final Pattern ANSI = Pattern.compile("\u001B\\[[0-9;]*[A-Za-z]");

    private OracleScriptItems() {
    }

    /** SQLAlchemy 1.4 over psycopg2, psycopg 3 or asyncpg: {@code client} is the script's argument. */
    static Map<String, String> python(Target target, String client, String module, String debianPackage)
            throws IOException {
        Path python = RealClients.requirePython(module, debianPackage);
        return json(RealClients.run(List.of(python.toString(), "-E", "-s", "-B", "catalog_oracle.py", target.uri(),
                client), ClientScript.clientsDirectory().resolve("python")), client + " on " + target);
    }

    /** postgres.js with its default type fetching, and node-postgres. */
    static Map<String, String> node(Target target) throws IOException {
        Path node = requireNode();
        return json(RealClients.run(List.of(node.toString(), "catalog-oracle.mjs", target.uri()),
                nodeDirectory()), "node clients on " + target);
    }

    /**
     * {@code drizzle-kit pull}: what it printed (spinner left out) and the schema files it generated. It exits 1
     * without a word when a query fails, so {@code report-query-errors.cjs} prints each failed query's error.
     */
    static Map<String, String> drizzle(Target target, Path out) throws IOException {
        Path node = requireNode();
        RealClients.Result result = RealClients.run(List.of(node.toString(), "--require", "./report-query-errors.cjs",
                "node_modules/drizzle-kit/bin.cjs",
                "pull", "--dialect", "postgresql", "--url", target.uri(), "--out", out.toString()), nodeDirectory());
        List<String> printed = new ArrayList<>();
        for (String line : ANSI.matcher(result.out() + "\n" + result.err()).replaceAll("").split("[\r\n]+")) {
            if (!line.isBlank() && !SPINNER.matcher(line.strip()).matches()) {
                printed.add(line.strip());
            }
        }
        Map<String, String> items = new LinkedHashMap<>();
        items.put("pull", "exit " + result.exit() + "\n" + String.join("\n", printed));
        for (String file : List.of("schema.ts", "relations.ts")) {
            Path written = out.resolve(file);
            items.put(file, Files.exists(written) ? Files.readString(written) : "(not written)");
        }
        return items;
    }

    private static Path requireNode() {
        Path node = RealClients.require("node", "Node.js 20 or newer");
        if (!Files.isDirectory(nodeDirectory().resolve("node_modules/drizzle-kit"))) {
            RealClients.missing("the Node clients are not installed: run npm ci in " + nodeDirectory()
                    + " (.ci/run does)");
        }
        return node;
    }

    private static Path nodeDirectory() {
        return ClientScript.clientsDirectory().resolve("node");
    }

    private static Map<String, String> json(RealClients.Result result, String what) throws IOException {
        JsonNode parsed;
        try {
            parsed = ClientScript.JSON.readTree(result.out());
        } catch (IOException e) {
            throw new AssertionError(what + " exited with " + result.exit() + " without JSON:\n" + result.out()
                    + result.err(), e);
        }
        if (result.exit() != 0 || parsed == null || !parsed.isObject()) {
            throw new AssertionError(what + " exited with " + result.exit() + ":\n" + result.out() + result.err());
        }
        Map<String, String> items = new LinkedHashMap<>();
        parsed.fields().forEachRemaining(e -> items.put(e.getKey(), e.getValue().asText()));
        return items;
    }
}
