package io.pgward.sampledb;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.BindException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A throw-away PostgreSQL server on 127.0.0.1, run from the binaries Maven put on the classpath.
 *
 * <p>We drive {@code initdb} and {@code postgres} ourselves rather than through zonky's EmbeddedPostgres
 * because PostgreSQL refuses to run as root, and CI and many containers build as root. As root, every server
 * process runs as the unprivileged {@code nobody} user (uid 65534) through {@code setpriv}, and the data
 * directory is handed to that user.
 *
 * <p>The superuser is {@code postgres} with a random password; TCP logins use SCRAM-SHA-256, exactly like a
 * default production install, so clients and pgward's backend side meet real authentication. The server
 * is tuned for tests (no fsync) and must never hold data anyone wants to keep. It accepts TLS only when
 * started with a certificate and key, and then plaintext as well, like a default install with {@code ssl=on}.
 */
public final class LocalPostgres implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(LocalPostgres.class);
    private static final int NOBODY = 65534;
    private static final String HOST = "127.0.0.1";
    private static final String SUPERUSER = "postgres";
    private static final Duration STARTUP_TIMEOUT = Duration.ofSeconds(60);

    private final Path binaries;
    private final Path workDir;
    private final int port;
    private final String password;
    private final Process server;
    private boolean closed;

    private LocalPostgres(Path binaries, Path workDir, int port, String password, Process server) {
        this.binaries = binaries;
        this.workDir = workDir;
        this.port = port;
        this.password = password;
        this.server = server;
    }

    /**
     * Starts a new server. {@code port} 0 picks a free port.
     *
     * @throws PortInUseException when the requested port is taken
     */
    public static LocalPostgres start(int port) {
        return launch(port, null, null);
    }

    /**
     * Starts a new server that also accepts TLS, with {@code certificate} (a PEM chain) and {@code key} (an
     * unencrypted PEM key). Clients may still connect without TLS. {@code port} 0 picks a free port.
     *
     * <p>Both files are copied into the server's own directory, because PostgreSQL refuses a key file that
     * is not owned by the server's user with mode 0600, and the server may run as another user.
     *
     * @throws PortInUseException when the requested port is taken
     */
    public static LocalPostgres start(int port, Path certificate, Path key) {
        return launch(port, Objects.requireNonNull(certificate, "certificate"), Objects.requireNonNull(key, "key"));
    }

    /** {@code certificate} and {@code key} are both null for a server without TLS. */
    private static LocalPostgres launch(int port, Path certificate, Path key) {
        if (port != 0) {
            ensurePortFree(port);
        }
        Path binaries = PostgresBinaries.install();
        String password = HexFormat.of().formatHex(new SecureRandom().generateSeed(12));
        Path workDir = null;
        try {
            workDir = Files.createTempDirectory("pgward-pg-");
            Path pwfile = workDir.resolve("pwfile");
            Files.writeString(pwfile, password + "\n");
            if (runningAsRoot()) {
                handToNobody(workDir);
                handToNobody(pwfile);
            }
            Path data = workDir.resolve("data");
            run(binaries, List.of("initdb", "--pgdata=" + data, "--username=" + SUPERUSER, "--pwfile=" + pwfile,
                    "--auth-local=trust", "--auth-host=scram-sha-256", "--encoding=UTF8", "--locale=C",
                    "--no-sync"));
            Files.delete(pwfile);
            List<String> settings = certificate == null ? List.of() : serverTls(workDir, certificate, key);
            int chosen = port != 0 ? port : freePort();
            Process server = startServer(binaries, data, chosen, settings);
            LocalPostgres instance = new LocalPostgres(binaries, workDir, chosen, password, server);
            Runtime.getRuntime().addShutdownHook(new Thread(instance::close, "pgward-postgres-stop"));
            return instance;
        } catch (IOException e) {
            deleteQuietly(workDir);
            throw new UncheckedIOException("Could not start PostgreSQL: " + e.getMessage(), e);
        } catch (RuntimeException e) {
            deleteQuietly(workDir);
            throw e;
        }
    }

    public String host() {
        return HOST;
    }

    public int port() {
        return port;
    }

    public String superuser() {
        return SUPERUSER;
    }

    public String password() {
        return password;
    }

    /** A pgjdbc URL for a database on this server. */
    public String jdbcUrl(String database) {
        return "jdbc:postgresql://" + HOST + ":" + port + "/" + database;
    }

    /** A libpq connection URI (for psql and friends) for a database on this server, password included. */
    public String uri(String database) {
        return "postgresql://" + SUPERUSER + ":" + password + "@" + HOST + ":" + port + "/" + database;
    }

    /** Opens a superuser connection to a database on this server. */
    public Connection connect(String database) throws SQLException {
        Properties props = new Properties();
        props.setProperty("user", SUPERUSER);
        props.setProperty("password", password);
        return DriverManager.getConnection(jdbcUrl(database), props);
    }

    /**
     * Stops this server and starts it again, on the same port and data, as a hot standby with no primary: it stays
     * in recovery, serves reads and refuses every write, as a read replica does. This instance is closed (its data
     * now belongs to the returned one).
     */
    public synchronized LocalPostgres restartAsStandby() {
        if (closed) {
            throw new IllegalStateException("this server is closed");
        }
        Path data = workDir.resolve("data");
        try {
            run(binaries, List.of("pg_ctl", "stop", "--pgdata=" + data, "--mode=fast", "--wait", "--timeout=30",
                    "--silent"));
            server.waitFor(30, TimeUnit.SECONDS);
            closed = true;
            Path signal = data.resolve("standby.signal");
            Files.writeString(signal, "");
            if (runningAsRoot()) {
                handToNobody(signal);
            }
            Process standby = startServer(binaries, data, port, List.of());
            LocalPostgres instance = new LocalPostgres(binaries, workDir, port, password, standby);
            Runtime.getRuntime().addShutdownHook(new Thread(instance::close, "pgward-postgres-stop"));
            return instance;
        } catch (IOException e) {
            throw new UncheckedIOException("Could not restart PostgreSQL as a standby: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while PostgreSQL restarted", e);
        }
    }

    /** Fast shutdown (open sessions are ended) and removal of the data directory. Idempotent. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            if (server.isAlive()) {
                run(binaries, List.of("pg_ctl", "stop", "--pgdata=" + workDir.resolve("data"), "--mode=fast",
                        "--wait", "--timeout=30", "--silent"));
            }
        } catch (RuntimeException e) {
            // Ctrl-C in a terminal signals PostgreSQL too, and it may be shutting down already.
            log.debug("pg_ctl stop: {}", e.getMessage());
        }
        try {
            if (!server.waitFor(30, TimeUnit.SECONDS)) {
                log.warn("PostgreSQL on port {} did not stop in 30 s; killing it", port);
                server.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            server.destroyForcibly();
        }
        deleteQuietly(workDir);
    }

    /**
     * Copies the certificate and key next to the data directory, owned by the server's user, and returns
     * the settings that turn TLS on. pg_hba's {@code host} lines match TLS and plaintext alike, so both work.
     */
    private static List<String> serverTls(Path workDir, Path certificate, Path key) throws IOException {
        Path serverCertificate = workDir.resolve("server.crt");
        Path serverKey = workDir.resolve("server.key");
        Files.copy(certificate, serverCertificate, StandardCopyOption.REPLACE_EXISTING);
        Files.copy(key, serverKey, StandardCopyOption.REPLACE_EXISTING);
        Files.setPosixFilePermissions(serverKey, PosixFilePermissions.fromString("rw-------"));
        if (runningAsRoot()) {
            handToNobody(serverCertificate);
            handToNobody(serverKey);
        }
        return List.of("ssl=on", "ssl_cert_file=" + serverCertificate, "ssl_key_file=" + serverKey);
    }

    private static Process startServer(Path binaries, Path data, int port, List<String> settings)
            throws IOException {
        // Unix sockets are off: nobody may be unable to write the default socket directory, and every
        // client here uses TCP on loopback.
        List<String> args = new ArrayList<>(List.of("postgres", "-D", data.toString(), "-p",
                Integer.toString(port), "-c", "listen_addresses=" + HOST, "-c", "unix_socket_directories=",
                "-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off",
                "-c", "max_connections=200", "-c", "lc_messages=C"));
        for (String setting : settings) {
            args.add("-c");
            args.add(setting);
        }
        List<String> command = command(binaries, args);
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        CompletableFuture<Void> ready = new CompletableFuture<>();
        Deque<String> lastLines = new ArrayDeque<>();
        Thread pump = new Thread(() -> pumpLog(process, ready, lastLines), "pgward-postgres-log-" + port);
        pump.setDaemon(true);
        pump.start();
        try {
            ready.get(STARTUP_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
            return process;
        } catch (ExecutionException | TimeoutException e) {
            process.destroyForcibly();
            String tail;
            synchronized (lastLines) {
                tail = String.join(" | ", lastLines);
            }
            if (tail.contains("could not bind") || tail.contains("Address already in use")) {
                throw new PortInUseException(port);
            }
            throw new IllegalStateException("PostgreSQL did not start on port " + port + ": " + tail);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
            throw new IllegalStateException("Interrupted while PostgreSQL was starting", e);
        }
    }

    /** Drains the server's log (a full pipe would stall it) and tells when it accepts connections. */
    private static void pumpLog(Process process, CompletableFuture<Void> ready, Deque<String> lastLines) {
        try (BufferedReader reader = new BufferedReader(
                new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = reader.readLine()) != null) {
                log.debug("postgres: {}", line);
                synchronized (lastLines) {
                    lastLines.addLast(line);
                    if (lastLines.size() > 8) {
                        lastLines.removeFirst();
                    }
                }
                if (line.contains("database system is ready to accept connections")
                        || line.contains("database system is ready to accept read-only connections")) {
                    ready.complete(null);
                }
            }
        } catch (IOException e) {
            log.debug("PostgreSQL log stream closed: {}", e.getMessage());
        }
        ready.completeExceptionally(new IllegalStateException("PostgreSQL exited"));
    }

    private static void run(Path binaries, List<String> args) {
        List<String> command = command(binaries, args);
        try {
            Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (process.waitFor() != 0) {
                throw new IllegalStateException(args.get(0) + " failed: " + output.strip());
            }
        } catch (IOException e) {
            throw new UncheckedIOException("Could not run " + command, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while running " + args.get(0), e);
        }
    }

    private static List<String> command(Path binaries, List<String> args) {
        List<String> command = new ArrayList<>();
        if (runningAsRoot()) {
            command.addAll(List.of("setpriv", "--reuid=" + NOBODY, "--regid=" + NOBODY, "--clear-groups", "--"));
        }
        command.add(binaries.resolve("bin").resolve(args.get(0)).toString());
        command.addAll(args.subList(1, args.size()));
        return command;
    }

    static boolean runningAsRoot() {
        return "root".equals(System.getProperty("user.name"));
    }

    private static void handToNobody(Path path) throws IOException {
        Files.setAttribute(path, "unix:uid", NOBODY);
        Files.setAttribute(path, "unix:gid", NOBODY);
    }

    /** @throws PortInUseException when something already listens on {@code port} on 127.0.0.1 */
    public static void ensurePortFree(int port) {
        try (ServerSocket probe = new ServerSocket(port, 1, InetAddress.getByName(HOST))) {
            probe.setReuseAddress(true);
        } catch (BindException e) {
            throw new PortInUseException(port);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getByName(HOST))) {
            return probe.getLocalPort();
        }
    }

    private static void deleteQuietly(Path dir) {
        if (dir == null) {
            return;
        }
        try {
            PostgresBinaries.deleteTree(dir);
        } catch (IOException e) {
            log.warn("Could not delete {}: {}", dir, e.getMessage());
        }
    }

    /** The requested TCP port is already taken by another process. */
    public static final class PortInUseException extends IllegalStateException {
        private final int port;

        PortInUseException(int port) {
            super("port " + port + " on " + HOST + " is already in use");
            this.port = port;
        }

        public int port() {
            return port;
        }
    }
}
