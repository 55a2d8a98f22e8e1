package io.pgward.image;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.zip.GZIPInputStream;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.apache.commons.compress.archivers.tar.TarFile;

/**
 * An OCI image layout in a tar, as Jib's {@code buildTar} writes it: {@code index.json} names one manifest, the
 * manifest names the config and the layers, all of them blobs under {@code blobs/sha256/}. Read whole into memory
 * except the layers, which are streamed.
 */
final class OciImageTar implements AutoCloseable {

    private static final ObjectMapper JSON = new ObjectMapper();

    /** One file of the image's file system, after the layers are laid one on the other. */
    record ImageFile(String path, int mode, long uid, long gid, long size, boolean directory, boolean symbolicLink) { }

    private final TarFile tar;
    private final JsonNode manifest;
    private final JsonNode config;

    OciImageTar(Path path) throws IOException {
        this.tar = new TarFile(path.toFile());
        JsonNode index = JSON.readTree(blob("index.json"));
        JsonNode manifests = index.path("manifests");
        if (manifests.size() != 1) {
            throw new IOException("index.json names " + manifests.size() + " manifests, expected one");
        }
        this.manifest = JSON.readTree(digestBlob(manifests.get(0).path("digest").asText()));
        this.config = JSON.readTree(digestBlob(manifest.path("config").path("digest").asText()));
    }

    JsonNode manifest() {
        return manifest;
    }

    /** The image configuration's {@code config} object: User, Entrypoint, Cmd, ExposedPorts, Env ... */
    JsonNode runConfig() {
        return config.path("config");
    }

    JsonNode imageConfig() {
        return config;
    }

    List<String> layerDigests() {
        List<String> digests = new ArrayList<>();
        manifest.path("layers").forEach(layer -> digests.add(layer.path("digest").asText()));
        return digests;
    }

    /** The compressed size of each layer, as the manifest gives it, in the layers' order. */
    List<Long> layerSizes() {
        List<Long> sizes = new ArrayList<>();
        manifest.path("layers").forEach(layer -> sizes.add(layer.path("size").asLong()));
        return sizes;
    }

    /** The regular files of one layer, by path without a leading slash, in the layer's order. */
    List<String> layerFiles(String digest) throws IOException {
        List<String> files = new ArrayList<>();
        try (TarArchiveInputStream layer = layer(digest)) {
            for (TarArchiveEntry e = layer.getNextEntry(); e != null; e = layer.getNextEntry()) {
                if (e.isFile()) {
                    files.add(normalise(e.getName()));
                }
            }
        }
        return files;
    }

    /** The SHA-256 of a blob's bytes, as {@code sha256:<hex>}. */
    String sha256Of(String digest) throws IOException {
        try (InputStream in = tar.getInputStream(entry(blobPath(digest)))) {
            return "sha256:" + HexFormat.of().formatHex(sha256(in));
        }
    }

    /** Every file of every layer, by path without a leading slash; a later layer's entry replaces an earlier one. */
    Map<String, ImageFile> files() throws IOException {
        Map<String, ImageFile> files = new LinkedHashMap<>();
        for (String digest : layerDigests()) {
            try (TarArchiveInputStream layer = layer(digest)) {
                for (TarArchiveEntry e = layer.getNextEntry(); e != null; e = layer.getNextEntry()) {
                    String path = normalise(e.getName());
                    files.put(path, new ImageFile(path, e.getMode(), e.getLongUserId(), e.getLongGroupId(), e.getSize(),
                            e.isDirectory(), e.isSymbolicLink()));
                }
            }
        }
        return files;
    }

    /** The bytes of one regular file of the image, from the last layer that holds it. */
    byte[] read(String path) throws IOException {
        byte[] found = null;
        for (String digest : layerDigests()) {
            try (TarArchiveInputStream layer = layer(digest)) {
                for (TarArchiveEntry e = layer.getNextEntry(); e != null; e = layer.getNextEntry()) {
                    if (normalise(e.getName()).equals(path) && e.isFile()) {
                        found = layer.readAllBytes();
                    }
                }
            }
        }
        if (found == null) {
            throw new IOException(path + " is in no layer of the image");
        }
        return found;
    }

    /** Writes the image's file system under {@code root}, modes included, as a container runtime would. */
    void unpackTo(Path root) throws IOException {
        for (String digest : layerDigests()) {
            try (TarArchiveInputStream layer = layer(digest)) {
                for (TarArchiveEntry e = layer.getNextEntry(); e != null; e = layer.getNextEntry()) {
                    Path target = root.resolve(normalise(e.getName())).normalize();
                    if (!target.startsWith(root)) {
                        throw new IOException("layer entry escapes the root: " + e.getName());
                    }
                    if (e.isDirectory()) {
                        Files.createDirectories(target);
                    } else if (e.isFile()) {
                        Files.createDirectories(target.getParent());
                        Files.copy(layer, target, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
                    } else {
                        throw new IOException("unexpected entry type in a layer: " + e.getName());
                    }
                    Files.setPosixFilePermissions(target, permissions(e.getMode()));
                }
            }
        }
    }

    private TarArchiveInputStream layer(String digest) throws IOException {
        return new TarArchiveInputStream(new GZIPInputStream(tar.getInputStream(entry(blobPath(digest))), 1 << 16));
    }

    private byte[] digestBlob(String digest) throws IOException {
        byte[] bytes = blob(blobPath(digest));
        String actual = "sha256:" + HexFormat.of().formatHex(sha256(new java.io.ByteArrayInputStream(bytes)));
        if (!actual.equals(digest)) {
            throw new IOException("blob " + digest + " has the digest " + actual);
        }
        return bytes;
    }

    private byte[] blob(String name) throws IOException {
        try (InputStream in = tar.getInputStream(entry(name))) {
            return in.readAllBytes();
        }
    }

    private TarArchiveEntry entry(String name) throws IOException {
        return tar.getEntries().stream()
                .filter(e -> e.getName().equals(name))
                .findFirst()
                .orElseThrow(() -> new IOException("no " + name + " in the image tar"));
    }

    private static String blobPath(String digest) {
        if (!digest.matches("sha256:[0-9a-f]{64}")) {
            throw new IllegalArgumentException("not a sha256 digest: " + digest);
        }
        return "blobs/sha256/" + digest.substring("sha256:".length());
    }

    private static String normalise(String name) {
        String path = name.startsWith("/") ? name.substring(1) : name;
        return path.endsWith("/") ? path.substring(0, path.length() - 1) : path;
    }

    private static Set<PosixFilePermission> permissions(int mode) {
        Set<PosixFilePermission> set = java.util.EnumSet.noneOf(PosixFilePermission.class);
        PosixFilePermission[] bits = PosixFilePermission.values(); // OWNER_READ .. OTHERS_EXECUTE, high bit first
        for (int i = 0; i < bits.length; i++) {
            if ((mode & (1 << (bits.length - 1 - i))) != 0) {
                set.add(bits[i]);
            }
        }
        return set;
    }

    private static byte[] sha256(InputStream in) throws IOException {
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            byte[] buffer = new byte[1 << 16];
            for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
                sha.update(buffer, 0, n);
            }
            return sha.digest();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void close() throws IOException {
        tar.close();
    }
}
