package io.pgward.mcp;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.modelcontextprotocol.json.jackson2.JacksonMcpJsonMapper;
import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.transport.StdioServerTransportProvider;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.concurrent.CountDownLatch;

/**
 * MCP over stdio for one login, for an agent that starts pgward itself ({@code pgward mcp --login NAME}). Who can
 * start the process can read its configuration, so no token is asked for; the login's policy applies as over HTTP.
 */
public final class McpStdio {

    private McpStdio() {
    }

    /** Serves until {@code in} ends. */
    public static void serve(McpSettings settings, McpSettings.AgentLogin login, AgentDoor door, String version,
                             InputStream in, OutputStream out) throws InterruptedException {
        CountDownLatch ended = new CountDownLatch(1);
        InputStream watched = new FilterInputStream(in) {
            @Override
            public int read() throws IOException {
                return ended(super.read());
            }

            @Override
            public int read(byte[] b, int off, int len) throws IOException {
                return ended(super.read(b, off, len));
            }

            private int ended(int n) {
                if (n < 0) {
                    ended.countDown();
                }
                return n;
            }
        };
        JacksonMcpJsonMapper mapper = new JacksonMcpJsonMapper(new ObjectMapper());
        try (Loopback loopback = new Loopback(door, !settings.arango())) {
            McpServers.Served served = McpServers.build(
                    McpServer.sync(new StdioServerTransportProvider(mapper, watched, out)), mapper, loopback, login,
                    settings, version);
            ended.await();
            served.close();
        }
    }
}
