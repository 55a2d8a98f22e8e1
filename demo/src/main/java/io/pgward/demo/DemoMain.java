package io.pgward.demo;

import io.pgward.wire.cli.Main;
import java.io.PrintWriter;
import java.util.List;

/**
 * The {@code pgward} command of the demo's jar: the production command line with {@code demo} added. The
 * production jar ({@code wire-proxy}) knows nothing of the demo; this jar brings it, the sample shop and the
 * embedded PostgreSQL binaries.
 */
public final class DemoMain {

    private DemoMain() {
    }

    public static void main(String[] args) {
        Main.leakDetectionOffUnlessAsked();
        System.exit(execute(new PrintWriter(System.out, true), new PrintWriter(System.err, true), args));
    }

    static int execute(PrintWriter out, PrintWriter err, String... args) {
        return Main.execute(out, err, List.of(new DemoCommand()), args);
    }
}
