// How the Node scripts open and close their connections: one place, so every script meets pgward (and the
// PostgreSQL it is compared with) with the same options. The URL carries host, port, login, password and
// sslmode, exactly as the tests hand it over.
import pg from 'pg';
import postgres from 'postgres';

/**
 * Runs body with a connected node-postgres client and ends the client afterwards, whatever body did. With
 * { utc: true } the session's TimeZone is UTC first, so timestamptz values print the same everywhere.
 */
export async function withPgClient(url, body, { utc = false } = {}) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    if (utc) await client.query("SET TimeZone = 'UTC'");
    return await body(client);
  } finally {
    await client.end();
  }
}

/**
 * A postgres.js instance on one connection (max: 1, so that concurrent queries are pipelined on it) that
 * ignores notices; options add to or override these.
 */
export function postgresJs(url, options = {}) {
  return postgres(url, { max: 1, onnotice: () => {}, ...options });
}
