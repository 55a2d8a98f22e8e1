package io.pgward.wire.cli;

import io.pgward.mcp.TokenHash;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code pgward mcp-token}: a new bearer token for an agent and the hash that goes into {@code mcp.logins.NAME.tokens}.
 * With {@code --hash-stdin}, the hash of a token read from stdin (never from the command line, where other users
 * could see it in the process list).
 */
@Command(name = "mcp-token",
        mixinStandardHelpOptions = true,
        description = "Prints a new MCP bearer token and its hash for mcp.logins.<login>.tokens; "
                + "--hash-stdin hashes a token read from stdin instead.")
public final class McpTokenCommand implements Callable<Integer> {

    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    @Option(names = "--hash-stdin", description = "Read one token from stdin and print only its hash.")
    private boolean hashStdin;

    @Override
    public Integer call() throws IOException {
        PrintWriter out = spec.commandLine().getOut();
        if (hashStdin) {
            String token = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
            if (token == null || token.strip().isEmpty()) {
                throw new StartupException("no token on stdin");
            }
            out.println(TokenHash.hash(token.strip()));
        } else {
            String token = TokenHash.newToken();
            out.println("token: " + token);
            out.println("hash:  " + TokenHash.hash(token));
            out.println("Give the token to the agent (Authorization: Bearer <token>); put the hash, never the token, "
                    + "under mcp.logins.<login>.tokens.");
        }
        out.flush();
        return 0;
    }
}
