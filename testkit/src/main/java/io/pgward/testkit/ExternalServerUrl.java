package io.pgward.testkit;

import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

/**
 * Reads {@code PGWARD_TEST_PG_URL}: a libpq URI ({@code postgresql://user:password@host:port/database}) or a
 * pgjdbc URL ({@code jdbc:postgresql://host:port/database?user=...&password=...}). The role needs CREATEDB.
 */
final class ExternalServerUrl {

    private ExternalServerUrl() {
    }

    static PostgresServer parse(String url) {
        String text = url.strip();
        boolean jdbc = text.startsWith("jdbc:");
        URI uri = URI.create(jdbc ? text.substring("jdbc:".length()) : text);
        if (!"postgresql".equals(uri.getScheme()) && !"postgres".equals(uri.getScheme())) {
            throw new IllegalArgumentException("PGWARD_TEST_PG_URL must start with postgresql://, postgres:// or "
                    + "jdbc:postgresql:// (was " + uri.getScheme() + "://...)");
        }
        Map<String, String> query = query(uri.getRawQuery());
        String user = "postgres";
        String password = "";
        if (uri.getRawUserInfo() != null) {
            String[] parts = uri.getRawUserInfo().split(":", 2);
            user = decode(parts[0]);
            password = parts.length > 1 ? decode(parts[1]) : "";
        }
        user = query.getOrDefault("user", user);
        password = query.getOrDefault("password", password);
        String path = uri.getPath() == null ? "" : uri.getPath().replaceFirst("^/", "");
        String database = path.isEmpty() ? "postgres" : path;
        String host = uri.getHost() == null ? "127.0.0.1" : uri.getHost();
        int port = uri.getPort() == -1 ? 5432 : uri.getPort();
        return new PostgresServer(host, port, user, password, database, "external PostgreSQL (PGWARD_TEST_PG_URL)");
    }

    private static Map<String, String> query(String raw) {
        Map<String, String> result = new HashMap<>();
        if (raw == null || raw.isEmpty()) {
            return result;
        }
        for (String pair : raw.split("&")) {
            String[] kv = pair.split("=", 2);
            result.put(decode(kv[0]), kv.length > 1 ? decode(kv[1]) : "");
        }
        return result;
    }

    private static String decode(String text) {
        return URLDecoder.decode(text, StandardCharsets.UTF_8);
    }
}
