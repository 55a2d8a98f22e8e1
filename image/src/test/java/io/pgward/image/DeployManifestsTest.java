package io.pgward.image;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * deploy/ must agree with the image (ImageTarIT pins that side): the user it runs as, the ports, where the
 * configuration is mounted, and the health and metrics endpoints of pgward's metrics listener.
 */
class DeployManifestsTest {

    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

    private static List<JsonNode> documents;
    private static JsonNode pod;
    private static JsonNode container;
    private static JsonNode config;

    @BeforeAll
    static void read() throws IOException {
        documents = new ArrayList<>();
        try (Stream<Path> files = Files.list(ImagePaths.deployDirectory())) {
            for (Path file : files.filter(f -> f.toString().endsWith(".yaml")).sorted().toList()) {
                try (var docs = YAML.readerFor(JsonNode.class).readValues(file.toFile())) {
                    while (docs.hasNext()) {
                        documents.add((JsonNode) docs.next());
                    }
                }
            }
        }
        pod = kind("Deployment").path("spec").path("template");
        container = pod.path("spec").path("containers").get(0);
        config = YAML.readTree(kind("ConfigMap").path("data").path("pgward.yaml").asText());
    }

    @Test
    void runsReplicasAsTheImagesUserWithoutPrivileges() {
        assertTrue(kind("Deployment").path("spec").path("replicas").asInt() > 1, "several instances");
        JsonNode security = pod.path("spec").path("securityContext");
        assertEquals(ImageTarIT.USER, security.path("runAsUser").asText() + ":" + security.path("runAsGroup").asText());
        assertTrue(security.path("runAsNonRoot").asBoolean());
        JsonNode containerSecurity = container.path("securityContext");
        assertFalse(containerSecurity.path("allowPrivilegeEscalation").asBoolean(true));
        assertTrue(containerSecurity.path("readOnlyRootFilesystem").asBoolean());
        assertEquals("ALL", containerSecurity.path("capabilities").path("drop").get(0).asText());
    }

    @Test
    void keepsTheImagesCommandAndMountsItsConfigurationWhereTheCommandReadsIt() {
        assertTrue(container.path("command").isMissingNode() && container.path("args").isMissingNode(),
                "the container runs the image's entrypoint and command");
        assertTrue(container.path("volumeMounts").findValuesAsText("mountPath").contains("/etc/pgward"));
        assertEquals("0.0.0.0:" + containerPort("postgres"), config.path("listen").asText());
    }

    @Test
    void probesAndScrapeAnnotationsUseTheMetricsListener() {
        assertEquals("0.0.0.0:" + containerPort("metrics"), config.path("metrics").path("listen").asText());
        assertEquals(9187, containerPort("metrics"));
        assertEquals("/livez", container.path("livenessProbe").path("httpGet").path("path").asText());
        assertEquals("/readyz", container.path("readinessProbe").path("httpGet").path("path").asText());
        assertEquals("metrics", container.path("livenessProbe").path("httpGet").path("port").asText());
        assertEquals("metrics", container.path("readinessProbe").path("httpGet").path("port").asText());
        JsonNode annotations = pod.path("metadata").path("annotations");
        assertEquals("true", annotations.path("prometheus.io/scrape").asText());
        assertEquals(String.valueOf(containerPort("metrics")), annotations.path("prometheus.io/port").asText());
        assertEquals("/metrics", annotations.path("prometheus.io/path").asText());
    }

    @Test
    void sendsDataToAReplicaAndCatalogChecksToThePrimary() {
        JsonNode backend = config.path("backend");
        assertFalse(backend.path("catalog_check").path("host").asText().isEmpty());
        assertFalse(backend.path("catalog_check").path("host").asText().equals(backend.path("host").asText()));
    }

    @Test
    void theServiceKeepsAClientOnOneInstanceSoThatItsCancelsArrive() {
        JsonNode service = kind("Service").path("spec");
        assertEquals("ClientIP", service.path("sessionAffinity").asText());
        assertEquals("postgres", service.path("ports").get(0).path("targetPort").asText());
    }

    @Test
    void theConfigurationHoldsNoSecretOnlyReferencesToTheEnvironment() {
        List<String> literal = new ArrayList<>();
        config.path("logins").forEach(login -> login.fields().forEachRemaining(field -> {
            boolean secret = field.getKey().contains("password") || field.getKey().contains("verifier")
                    || field.getKey().contains("token");
            if (secret && !field.getValue().asText().matches("\\$\\{[A-Z_]+}")) {
                literal.add(field.getKey());
            }
        }));
        assertEquals(List.of(), literal);
    }

    private static int containerPort(String name) {
        for (JsonNode port : container.path("ports")) {
            if (port.path("name").asText().equals(name)) {
                return port.path("containerPort").asInt();
            }
        }
        throw new AssertionError("no container port named " + name);
    }

    private static JsonNode kind(String kind) {
        return documents.stream().filter(d -> d.path("kind").asText().equals(kind)).findFirst()
                .orElseThrow(() -> new AssertionError("no " + kind + " in deploy/"));
    }
}
