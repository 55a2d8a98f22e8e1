package io.pgward.wire.cli;

import io.pgward.wire.config.ConfigLoader;
import io.pgward.wire.config.PgwardConfig;
import io.pgward.wire.server.PgwardServer;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(name = "run",
        mixinStandardHelpOptions = true,
        description = "Starts pgward with a configuration file and serves until stopped.")
final class RunCommand implements Callable<Integer> {

    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    @Option(names = {"-c", "--config"}, paramLabel = "FILE", defaultValue = "pgward.yaml",
            description = "The YAML configuration: where to listen, the PostgreSQL server behind pgward, "
                    + "and each login's policy. Values may be ${ENV_VAR}. Default: ${DEFAULT-VALUE}.")
    private Path config;

    @Override
    public Integer call() throws InterruptedException {
        PgwardConfig loaded = ConfigLoader.load(config);
        PgwardServer server = start(loaded);
        spec.commandLine().getOut().println("pgward: listening on " + server.address() + " with "
                + loaded.logins().size() + " logins, forwarding to " + loaded.backend().host() + ":"
                + loaded.backend().port());
        spec.commandLine().getOut().flush();
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            server.close();
            stopped.countDown();
        }, "pgward-stop"));
        stopped.await();
        return 0;
    }

    static PgwardServer start(PgwardConfig config) {
        try {
            return PgwardServer.start(config);
        } catch (IllegalStateException e) {
            throw new StartupException(e.getMessage());
        }
    }
}
