package io.pgward.wire.cli;

import io.pgward.wire.config.ConfigLoader;
import io.pgward.wire.config.PgwardConfig;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(name = "run",
        mixinStandardHelpOptions = true,
        description = "Starts pgward with a configuration file and serves until stopped.")
final class RunCommand implements Callable<Integer> {

    @Option(names = {"-c", "--config"}, paramLabel = "FILE", defaultValue = "pgward.yaml",
            description = "The YAML configuration: where to listen, the PostgreSQL server behind pgward, "
                    + "and each login's policy. Values may be ${ENV_VAR}. Default: ${DEFAULT-VALUE}.")
    private Path config;

    @Override
    public Integer call() {
        PgwardConfig loaded = ConfigLoader.load(config);
        // The configuration is read and checked in full; serving it arrives with the wire-proxy.
        throw new StartupException(config + " is valid (" + loaded.logins().size() + " logins, backend "
                + loaded.backend().host() + ":" + loaded.backend().port() + "), but this build of pgward has no "
                + "proxy yet: use `pgward demo` to see the database side");
    }
}
