package io.pgward.wire.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.pgward.scram.ScramVerifier;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The pgward.yaml that deploy/configmap.yaml carries is read by the ConfigLoader that {@code pgward run} uses, in
 * the setting the Deployment gives it: the file and the certificates where its projected volume puts them (here
 * under a temporary directory standing for /etc/pgward) and, as the only environment, the keys of the Secret
 * {@code pgward-credentials} that the Deployment passes with envFrom. A key pgward does not know, a value it
 * refuses, a file the volume does not provide or a {@code ${VAR}} the Secret does not hold fails the build, as it
 * would stop every pod.
 */
class DeployConfigMapTest {

    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
    /** Where the Deployment mounts the volume, and what the ConfigMap's paths start with. */
    private static final String MOUNT = "/etc/pgward";

    @TempDir
    Path etc;

    @Test
    void theConfigMapsPgwardYamlLoadsWithTheMountedFilesAndTheSecretsEnvironment() throws IOException {
        List<JsonNode> documents = deployDocuments();
        JsonNode deployment = only(documents, "Deployment", null);
        JsonNode container = deployment.path("spec").path("template").path("spec").path("containers").get(0);
        JsonNode mount = mountOf(container, MOUNT);
        JsonNode volume = volume(deployment, mount.path("name").asText());

        Map<String, String> environment = new HashMap<>();
        for (JsonNode source : container.path("envFrom")) {
            JsonNode secret = only(documents, "Secret", source.path("secretRef").path("name").asText());
            secret.path("stringData").fieldNames().forEachRemaining(key -> environment.put(key, valueFor(key)));
        }
        assertFalse(environment.isEmpty(), "the Deployment passes the credentials Secret as the environment");

        // The projected volume, item by item: the ConfigMap's pgward.yaml and each file of the TLS Secret.
        Path config = null;
        for (JsonNode source : volume.path("projected").path("sources")) {
            boolean fromConfigMap = source.has("configMap");
            JsonNode ref = fromConfigMap ? source.path("configMap") : source.path("secret");
            JsonNode document = only(documents, fromConfigMap ? "ConfigMap" : "Secret", ref.path("name").asText());
            for (JsonNode item : ref.path("items")) {
                Path file = etc.resolve(item.path("path").asText());
                Files.createDirectories(file.getParent());
                String key = item.path("key").asText();
                String text = fromConfigMap ? document.path("data").path(key).asText()
                        : document.path("stringData").path(key).asText();
                assertFalse(text.isEmpty(), key + " is in " + ref.path("name").asText());
                if (key.equals("pgward.yaml")) {
                    // The files it names are the volume's, which this directory stands for.
                    text = text.replace(MOUNT + "/", etc + "/");
                    config = file;
                }
                Files.writeString(file, text);
            }
        }
        assertTrue(config != null, "the volume holds the ConfigMap's pgward.yaml");
        assertEquals(List.of("run", "--config", MOUNT + "/pgward.yaml"), command(container),
                "the container reads the mounted file");

        PgwardConfig loaded = new ConfigLoader(environment::get).read(config);

        assertEquals(6432, loaded.listen().port());
        assertEquals(9187, loaded.metrics().orElseThrow().port());
        assertTrue(loaded.tls().mode() != PgwardConfig.TlsMode.DISABLE, "clients must use TLS");
        assertFalse(loaded.logins().isEmpty());
        for (PgwardConfig.Login login : loaded.logins().values()) {
            assertTrue(login.auth() != PgwardConfig.AuthMethod.TRUST, login.name() + " needs a password");
        }
    }

    /**
     * The image's command unless the Deployment gives its own: the Deployment leaves it (the image's is
     * {@code run --config /etc/pgward/pgward.yaml}), or repeats it.
     */
    private static List<String> command(JsonNode container) {
        List<String> args = new ArrayList<>();
        container.path("args").forEach(a -> args.add(a.asText()));
        return args.isEmpty() ? List.of("run", "--config", MOUNT + "/pgward.yaml") : args;
    }

    /** A value pgward accepts for a Secret key: a real SCRAM verifier where one is expected. */
    private static String valueFor(String key) {
        return key.endsWith("_SCRAM_VERIFIER") ? ScramVerifier.fromPassword("not the real one").encoded()
                : "not-the-real-" + key.toLowerCase();
    }

    private static JsonNode mountOf(JsonNode container, String path) {
        for (JsonNode mount : container.path("volumeMounts")) {
            if (mount.path("mountPath").asText().equals(path)) {
                return mount;
            }
        }
        throw new AssertionError("the container mounts nothing at " + path);
    }

    private static JsonNode volume(JsonNode deployment, String name) {
        for (JsonNode volume : deployment.path("spec").path("template").path("spec").path("volumes")) {
            if (volume.path("name").asText().equals(name)) {
                return volume;
            }
        }
        throw new AssertionError("no volume " + name);
    }

    private static JsonNode only(List<JsonNode> documents, String kind, String name) {
        List<JsonNode> found = documents.stream().filter(d -> d.path("kind").asText().equals(kind))
                .filter(d -> name == null || d.path("metadata").path("name").asText().equals(name)).toList();
        assertEquals(1, found.size(), "one " + kind + (name == null ? "" : " " + name) + " in deploy/");
        return found.getFirst();
    }

    private static List<JsonNode> deployDocuments() throws IOException {
        Path directory = Path.of(System.getProperty("pgward.deploy.dir", "../deploy"));
        List<JsonNode> documents = new ArrayList<>();
        try (Stream<Path> files = Files.list(directory)) {
            for (Path file : files.filter(f -> f.toString().endsWith(".yaml")).sorted().toList()) {
                try (var docs = YAML.readerFor(JsonNode.class).readValues(file.toFile())) {
                    while (docs.hasNext()) {
                        documents.add((JsonNode) docs.next());
                    }
                }
            }
        }
        return documents;
    }
}
