package io.pgward.wire.cli;

import io.netty.util.ResourceLeakDetector;
import io.pgward.wire.config.ConfigException;
import java.io.PrintWriter;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code pgward} command. Exit status: 0 success, 1 a problem pgward explains in one line on stderr,
 * 2 a usage error.
 *
 * <p>This is the production command line: {@code run}, {@code reload} and {@code help}. Another build adds commands of its own
 * with {@link #execute(PrintWriter, PrintWriter, List, String...)} (the demo's jar adds {@code demo} this way), so
 * the production jar carries nothing of them.
 */
@Command(name = "pgward",
        mixinStandardHelpOptions = true,
        versionProvider = Main.Version.class,
        subcommands = {RunCommand.class, ReloadCommand.class, McpCommand.class, McpTokenCommand.class},
        description = "A PostgreSQL wire-protocol proxy: clients connect to pgward as if it were PostgreSQL; "
                + "every statement is checked against the login's policy, allowed ones reach the database "
                + "untouched, the rest are refused with a PostgreSQL error.")
public final class Main implements Runnable {

    private static final Logger log = LoggerFactory.getLogger(Main.class);

    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    public static void main(String[] args) {
        leakDetectionOffUnlessAsked();
        System.exit(execute(args));
    }

    /**
     * Netty's leak detector, on by default, records stack traces for one buffer in 128, about one for every 35
     * transactions of pgbench's point query: about 1 % of the relay's CPU (bench/results/relay-profile-*).
     * The tests run with it at its strictest; a deployment that wants it sets {@code io.netty.leakDetection.level}.
     */
    public static void leakDetectionOffUnlessAsked() {
        if (System.getProperty("io.netty.leakDetection.level") == null
                && System.getProperty("io.netty.leakDetectionLevel") == null) {
            ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.DISABLED);
        }
    }

    /** Runs the command line and returns the exit status, without exiting the JVM. */
    public static int execute(String... args) {
        return execute(new PrintWriter(System.out, true), new PrintWriter(System.err, true), List.of(), args);
    }

    /**
     * Runs the command line with {@code commands} as further subcommands after {@code run} (each a picocli
     * {@code @Command}), and returns the exit status. They share the production commands' error handling: a
     * {@link StartupException} or {@link ConfigException} is one line on {@code err} and exit status 1.
     */
    public static int execute(PrintWriter out, PrintWriter err, List<?> commands, String... args) {
        CommandLine commandLine = new CommandLine(new Main());
        commands.forEach(commandLine::addSubcommand);
        commandLine.addSubcommand(new CommandLine.HelpCommand());
        commandLine.setOut(out).setErr(err).setExecutionExceptionHandler(Main::explain);
        return commandLine.execute(args);
    }

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }

    /** One line a person can act on, never a bare stack trace; details go to the debug log. */
    private static int explain(Exception e, CommandLine commandLine, CommandLine.ParseResult parseResult) {
        PrintWriter err = commandLine.getErr();
        String command = commandLine.getCommandName();
        String prefix = "pgward".equals(command) ? "pgward: " : "pgward " + command + ": ";
        if (e instanceof ConfigException || e instanceof StartupException
                || e instanceof java.io.UncheckedIOException) {
            err.println(prefix + e.getMessage());
        } else {
            err.println(prefix + "failed: " + e);
            log.debug("{} failed", command, e);
        }
        err.flush();
        return 1;
    }

    /** pgward's version from the jar manifest, or "development build" when run from classes. */
    static String version() {
        String version = Main.class.getPackage().getImplementationVersion();
        return version == null ? "development build" : version;
    }

    /** The version from the jar manifest, or "development build" when run from classes. */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String version = Main.class.getPackage().getImplementationVersion();
            return new String[] {"pgward " + (version == null ? "(development build)" : version)};
        }
    }
}
