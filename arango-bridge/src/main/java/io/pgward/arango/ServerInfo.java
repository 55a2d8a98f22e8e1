package io.pgward.arango;

/** What the startup probe learned, for the startup log: server version, license, and the database it checked. */
public record ServerInfo(String version, String license, String database) {
}
