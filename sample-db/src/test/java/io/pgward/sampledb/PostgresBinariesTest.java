package io.pgward.sampledb;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class PostgresBinariesTest {

    @Test
    void namesTheArchiveTheBinariesArtifactsShip() {
        assertEquals("postgres-linux-x86_64.txz", PostgresBinaries.archiveName("Linux", "amd64"));
        assertEquals("postgres-linux-arm_64.txz", PostgresBinaries.archiveName("Linux", "aarch64"));
        assertEquals("postgres-darwin-arm_64.txz", PostgresBinaries.archiveName("Mac OS X", "aarch64"));
        assertEquals("postgres-darwin-x86_64.txz", PostgresBinaries.archiveName("Mac OS X", "x86_64"));
    }
}
