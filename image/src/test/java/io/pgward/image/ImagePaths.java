package io.pgward.image;

import java.nio.file.Files;
import java.nio.file.Path;

/** Where the build put the image and the jar it was made from (the failsafe configuration in image/pom.xml). */
final class ImagePaths {

    private ImagePaths() {
    }

    static Path imageTar() {
        return existing("pgward.image.tar");
    }

    static Path wireProxyTarget() {
        return existing("pgward.wire-proxy.target");
    }

    static Path deployDirectory() {
        return existing("pgward.deploy.dir");
    }

    static Path buildDirectory() {
        return existing("pgward.build.dir");
    }

    private static Path existing(String property) {
        String value = System.getProperty(property);
        if (value == null) {
            throw new IllegalStateException("-D" + property + " is not set; run this test through Maven (-Pimage)");
        }
        Path path = Path.of(value).toAbsolutePath();
        if (!Files.exists(path)) {
            throw new IllegalStateException(path + " does not exist; build it with ./mvnw -Pimage -pl image -am verify");
        }
        return path;
    }
}
