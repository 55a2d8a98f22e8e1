package io.pgward.wire.cli;

import io.pgward.wire.config.ConfigLoader;
import io.pgward.wire.config.PgwardConfig;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.SQLWarning;
import java.sql.Statement;
import java.util.Properties;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code pgward reload}: asks a running pgward to read its configuration file again, through its admin console
 * (database {@code pgward}, a login of {@code admin.logins}), so it works wherever the client port is reachable,
 * from another host or container as well as from the same one. SIGHUP to the process does the same.
 */
@Command(name = "reload",
        mixinStandardHelpOptions = true,
        description = "Makes a running pgward read its configuration file again (RELOAD on its admin console). "
                + "Prints what changed; exit status 1 when the file was rejected (the old configuration stays).")
public final class ReloadCommand implements Callable<Integer> {

    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    @Option(names = {"-c", "--config"}, paramLabel = "FILE",
            description = "The running pgward's configuration: its listen address is where to connect.")
    private Path config;

    @Option(names = {"-h", "--host"}, paramLabel = "HOST", description = "pgward's host; default: from --config, "
            + "else 127.0.0.1.")
    private String host;

    @Option(names = {"-p", "--port"}, paramLabel = "PORT", description = "pgward's port; default: from --config, "
            + "else 6432.")
    private Integer port;

    @Option(names = {"-U", "--user"}, paramLabel = "LOGIN", required = true,
            description = "A login listed in admin.logins.")
    private String user;

    @Option(names = "--password-file", paramLabel = "FILE",
            description = "A file holding the login's password; default: the PGPASSWORD environment variable.")
    private Path passwordFile;

    @Override
    public Integer call() throws IOException {
        PgwardConfig.Listen listen = config == null ? PgwardConfig.Listen.DEFAULT : ConfigLoader.listenOf(config);
        String target = host != null ? host : connectable(listen.host());
        int targetPort = port != null ? port : listen.port();
        Properties props = new Properties();
        props.setProperty("user", user);
        String password = passwordFile != null ? Files.readString(passwordFile).strip() : System.getenv("PGPASSWORD");
        if (password != null) {
            props.setProperty("password", password);
        }
        props.setProperty("sslmode", "prefer");
        props.setProperty("preferQueryMode", "simple");
        props.setProperty("ApplicationName", "pgward reload");
        String url = "jdbc:postgresql://" + (target.contains(":") ? "[" + target + "]" : target) + ":" + targetPort
                + "/" + ConfigLoader.ADMIN_DATABASE;
        PrintWriter out = spec.commandLine().getOut();
        try (Connection connection = DriverManager.getConnection(url, props);
             Statement statement = connection.createStatement()) {
            statement.execute("RELOAD");
            for (SQLWarning w = statement.getWarnings(); w != null; w = w.getNextWarning()) {
                out.println(w.getMessage());
            }
            out.flush();
            return 0;
        } catch (SQLException e) {
            throw new StartupException(e.getMessage());
        }
    }

    /** A wildcard listen address is reached on the loopback of the same family. */
    private static String connectable(String listenHost) {
        return switch (listenHost) {
            case "0.0.0.0", "*" -> "127.0.0.1";
            case "::" -> "::1";
            default -> listenHost;
        };
    }
}
