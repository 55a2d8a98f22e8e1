package io.pgward.arango;

import com.arangodb.ArangoCursor;
import com.arangodb.ArangoDBException;
import com.arangodb.ArangoDatabase;
import com.arangodb.entity.ArangoDBVersion;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Locale;

/**
 * Checked once when pgward starts, so that a wrong endpoint, credential or database stops it with a message that
 * says which, instead of failing on the first client's statement. Two calls, both on the configured database so
 * that credentials without rights on {@code _system} are not mistaken for wrong ones: the server version (is it
 * there, is it ArangoDB, are the credentials accepted, does the database exist) and {@code RETURN 1} (may these
 * credentials run queries there).
 */
final class ConnectivityProbe {

    private static final int HTTP_UNAUTHORIZED = 401;
    private static final int HTTP_FORBIDDEN = 403;
    private static final int ERROR_FORBIDDEN = 11;

    private ConnectivityProbe() {
    }

    static ServerInfo check(ArangoDatabase db, ArangoConfig config) {
        return check(db, config, null);
    }

    /**
     * The probe for one account of the entry.
     *
     * @param account the key under the entry that names the account ({@code logins.analyst}), null for the
     *                entry's own; failures name it
     */
    static ServerInfo check(ArangoDatabase db, ArangoConfig config, String account) {
        try {
            return probe(db, config);
        } catch (ArangoStartupException e) {
            if (account == null) {
                throw e;
            }
            String entry = prefix(config);
            String message = e.getMessage().startsWith(entry)
                    ? "arango." + config.name() + "." + account + ": " + e.getMessage().substring(entry.length())
                    : e.getMessage();
            throw new ArangoStartupException(e.part(), message, e.getCause());
        }
    }

    private static ServerInfo probe(ArangoDatabase db, ArangoConfig config) {
        ArangoDBVersion version;
        try {
            version = db.getVersion();
        } catch (ArangoDBException e) {
            throw failure(config, e, false);
        }
        if (version == null || !"arango".equals(version.getServer())) {
            throw new ArangoStartupException(ArangoStartupException.Part.ENDPOINT, prefix(config)
                    + "the server at " + config.endpoint() + " does not answer like ArangoDB (GET /_api/version)",
                    null);
        }
        try (ArangoCursor<Integer> one = db.query("RETURN 1", Integer.class)) {
            if (!one.hasNext() || one.next() != 1) {
                throw new ArangoStartupException(ArangoStartupException.Part.DATABASE, prefix(config)
                        + "RETURN 1 on database '" + config.database() + "' did not return 1", null);
            }
        } catch (ArangoDBException e) {
            throw failure(config, e, true);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return new ServerInfo(version.getVersion(),
                version.getLicense() == null ? "unknown" : version.getLicense().name().toLowerCase(Locale.ROOT),
                config.database());
    }

    private static ArangoStartupException failure(ArangoConfig config, ArangoDBException e, boolean onDatabase) {
        Integer status = e.getResponseCode();
        Integer errorNum = e.getErrorNum();
        if (status == null) {
            return new ArangoStartupException(ArangoStartupException.Part.ENDPOINT, prefix(config)
                    + "endpoint " + config.endpoint() + " cannot be reached (" + ArangoErrors.rootMessage(e) + ")",
                    e);
        }
        if (errorNum != null && errorNum == ArangoErrors.DATABASE_NOT_FOUND) {
            return new ArangoStartupException(ArangoStartupException.Part.DATABASE, prefix(config)
                    + "database '" + config.database() + "' does not exist on " + config.endpoint(), e);
        }
        if (status == HTTP_UNAUTHORIZED) {
            return new ArangoStartupException(onDatabase ? ArangoStartupException.Part.PERMISSION
                    : ArangoStartupException.Part.CREDENTIALS, prefix(config) + (onDatabase
                    ? config.auth().describe() + " may not use database '" + config.database() + "'"
                    // ArangoDB answers a user other than root the same for wrong credentials, a missing grant
                    // and a database that does not exist: HTTP 401, errorNum 11.
                    : "ArangoDB at " + config.endpoint() + " refused " + config.auth().describe()
                            + " for database '" + config.database() + "': the credentials are wrong, or they have "
                            + "no access to the database, or database '" + config.database() + "' does not exist")
                    + " (HTTP 401" + errorSuffix(e) + ")", e);
        }
        if (status == HTTP_FORBIDDEN || errorNum != null && errorNum == ERROR_FORBIDDEN) {
            return new ArangoStartupException(ArangoStartupException.Part.PERMISSION, prefix(config)
                    + config.auth().describe() + " may not use database '" + config.database() + "' (HTTP "
                    + status + errorSuffix(e) + ")", e);
        }
        return new ArangoStartupException(ArangoStartupException.Part.ENDPOINT, prefix(config)
                + "ArangoDB at " + config.endpoint() + " answered HTTP " + status + errorSuffix(e)
                + (onDatabase ? " to RETURN 1 on database '" + config.database() + "'" : " to GET /_api/version"), e);
    }

    private static String errorSuffix(ArangoDBException e) {
        return e.getErrorNum() == null ? "" : ", error " + e.getErrorNum() + ": " + e.getErrorMessage();
    }

    private static String prefix(ArangoConfig config) {
        return "arango." + config.name() + ": ";
    }
}
