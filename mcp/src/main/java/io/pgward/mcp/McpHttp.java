package io.pgward.mcp;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.modelcontextprotocol.json.jackson2.JacksonMcpJsonMapper;
import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.transport.HttpServletStreamableServerTransportProvider;
import io.modelcontextprotocol.spec.McpSchema;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * MCP over Streamable HTTP at {@code /mcp}. Each request must carry {@code Authorization: Bearer <token>}; the
 * token picks the login ({@link Callers}), and the request goes to that login's own MCP server, so a session
 * made with one login's token is unknown to every other login's. A missing or unknown token is a 401.
 */
public final class McpHttp implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(McpHttp.class);

    private final Server jetty;
    private final Loopback loopback;
    private final List<McpServers.Served> servers;

    private McpHttp(Server jetty, Loopback loopback, List<McpServers.Served> servers) {
        this.jetty = jetty;
        this.loopback = loopback;
        this.servers = servers;
    }

    /** Starts serving {@code settings} through {@code door}. */
    public static McpHttp start(McpSettings settings, AgentDoor door, String version) {
        Loopback loopback = new Loopback(door, !settings.arango());
        JacksonMcpJsonMapper mapper = new JacksonMcpJsonMapper(new ObjectMapper());
        Map<String, HttpServletStreamableServerTransportProvider> providers = new HashMap<>();
        List<McpServers.Served> servers = new java.util.ArrayList<>();
        settings.logins().forEach((name, login) -> {
            HttpServletStreamableServerTransportProvider provider = HttpServletStreamableServerTransportProvider
                    .builder().jsonMapper(mapper).mcpEndpoint(McpSettings.PATH).build();
            servers.add(McpServers.build(McpServer.sync(provider), mapper, loopback, login, settings, version));
            providers.put(name, provider);
        });
        Server jetty = new Server();
        // No "Server: Jetty(version)" header: nothing in a response tells what to attack.
        org.eclipse.jetty.server.HttpConfiguration httpConfig = new org.eclipse.jetty.server.HttpConfiguration();
        httpConfig.setSendServerVersion(false);
        org.eclipse.jetty.server.ServerConnector connector = new org.eclipse.jetty.server.ServerConnector(jetty,
                new org.eclipse.jetty.server.HttpConnectionFactory(httpConfig));
        connector.setHost(settings.host());
        connector.setPort(settings.port());
        jetty.addConnector(connector);
        ServletContextHandler context = new ServletContextHandler();
        context.setContextPath("/");
        ServletHolder holder = new ServletHolder(new Dispatcher(new Callers(settings.logins()), providers));
        holder.setAsyncSupported(true);
        context.addServlet(holder, McpSettings.PATH);
        jetty.setHandler(context);
        try {
            jetty.start();
        } catch (Exception e) {
            servers.forEach(McpServers.Served::close);
            loopback.close();
            throw new IllegalStateException("cannot serve MCP on " + settings.host() + ":" + settings.port() + ": "
                    + e.getMessage(), e);
        }
        McpHttp http = new McpHttp(jetty, loopback, servers);
        log.info("pgward serving MCP on http://{}:{}{} for logins {}", settings.host(), http.port(),
                McpSettings.PATH, settings.logins().keySet());
        return http;
    }

    public int port() {
        return ((org.eclipse.jetty.server.ServerConnector) jetty.getConnectors()[0]).getLocalPort();
    }

    @Override
    public void close() {
        servers.forEach(McpServers.Served::close);
        try {
            jetty.stop();
        } catch (Exception e) {
            log.warn("stopping the MCP listener failed: {}", e.toString());
        }
        loopback.close();
    }

    /** Authenticates each request and hands it to its login's transport. */
    private static final class Dispatcher extends HttpServlet {

        private final transient Callers callers;
        private final transient Map<String, HttpServletStreamableServerTransportProvider> providers;

        Dispatcher(Callers callers, Map<String, HttpServletStreamableServerTransportProvider> providers) {
            this.callers = callers;
            this.providers = providers;
        }

        @Override
        protected void service(HttpServletRequest request, HttpServletResponse response) throws IOException,
                jakarta.servlet.ServletException {
            Optional<McpSettings.AgentLogin> login = callers.loginOf(bearer(request.getHeader("Authorization")));
            if (login.isEmpty()) {
                response.setStatus(HttpServletResponse.SC_UNAUTHORIZED);
                response.setHeader("WWW-Authenticate", "Bearer realm=\"pgward\"");
                response.setContentType("application/json");
                response.getWriter().write("{\"error\":\"invalid_token\",\"error_description\":"
                        + "\"pgward needs a bearer token that belongs to one of its MCP logins\"}");
                return;
            }
            providers.get(login.get().name()).service(request, response);
        }

        private static String bearer(String header) {
            if (header == null || header.length() < 7 || !header.regionMatches(true, 0, "Bearer ", 0, 7)) {
                return null;
            }
            return header.substring(7).strip();
        }
    }

    static McpSchema.Implementation info(String version) {
        return new McpSchema.Implementation("pgward", version);
    }
}
