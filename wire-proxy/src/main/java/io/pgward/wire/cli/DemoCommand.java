package io.pgward.wire.cli;

import io.pgward.sampledb.DatasetSize;
import io.pgward.wire.demo.DemoDatabase;
import java.io.PrintWriter;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(name = "demo",
        mixinStandardHelpOptions = true,
        description = {"Starts an embedded PostgreSQL with the sample shop and prints how to connect.",
            "%nThe shop: customers, products, orders, order_items, the view v_sales, the materialized view "
                + "mv_region_revenue, and the sensitive hr.salaries and payment_tokens. Runs until Ctrl-C; "
                + "everything is deleted on exit.%n"})
final class DemoCommand implements Callable<Integer> {

    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    @Option(names = "--pg-port", paramLabel = "PORT", defaultValue = "0",
            description = "Port for the embedded PostgreSQL on 127.0.0.1; 0 picks a free one. Default: ${DEFAULT-VALUE}.")
    private int pgPort;

    @Option(names = "--scale", paramLabel = "FACTOR", defaultValue = "1.0",
            description = "Size of the sample data: 1.0 is 10,000 customers and 100,000 orders; 0.1 is a tenth. "
                    + "Default: ${DEFAULT-VALUE}.")
    private double scale;

    @Override
    public Integer call() throws Exception {
        if (pgPort < 0 || pgPort > 65535) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--pg-port must be 0 to 65535");
        }
        DatasetSize size;
        try {
            size = DatasetSize.scaled(scale);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--scale: " + e.getMessage());
        }
        PrintWriter out = spec.commandLine().getOut();
        out.println("pgward demo: starting PostgreSQL and loading the sample shop...");
        out.flush();
        DemoDatabase demo = DemoDatabase.start(pgPort, size);
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            demo.close();
            stopped.countDown();
        }, "pgward-demo-stop"));
        out.println(banner(demo));
        out.flush();
        stopped.await();
        return 0;
    }

    static String banner(DemoDatabase demo) {
        return String.format(Locale.ROOT, """

                PostgreSQL %s is running on %s:%d with the sample shop (%,d customers, %,d orders)
                in the database "%s".

                  Connect:  psql "%s"
                  Try:      select count(*) from orders;

                pgward's proxy and its analyst / app logins join this demo with the wire-proxy; for now
                this is the database they will guard, reached directly as the PostgreSQL superuser.

                Press Ctrl-C to stop; the database is deleted on exit.""",
                demo.serverVersion(), demo.postgres().host(), demo.postgres().port(), demo.size().customers(),
                demo.size().orders(), DemoDatabase.DATABASE, demo.uri());
    }
}
