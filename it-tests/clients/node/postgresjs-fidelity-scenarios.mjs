// postgres.js: the pid it is told, and statements with tens of thousands of parameters. See scenario-main.mjs for the calling convention.
import { main, collector, withTimeout } from './scenario-main.mjs';
import { postgresJs } from './connections.mjs';

/** A VALUES list of count parameters, summed by the server: the Parse carries count parameter types. */
async function sumOf(sql, count) {
  const values = Array.from({ length: count }, (_, i) => i + 1);
  const rows = values.map((_, i) => `($${i + 1}::int)`).join(', ');
  const [row] = await sql.unsafe(`SELECT count(*)::int AS n, sum(x)::text AS total FROM (VALUES ${rows}) v(x)`,
    values);
  return row;
}

const scenarios = {
  // postgres.js's "listen reconnects": pg_terminate_backend() of the pid a listener was told ends that
  // listener's connection, postgres.js connects again and listens again, and notifications keep coming.
  async listenReconnects(url) {
    const listener = postgresJs(url);
    const sql = postgresJs(url);
    try {
      const received = collector(2);
      let first;
      const firstArrived = new Promise((resolve) => { first = resolve; });
      let listens = 0;
      let listeningAgain;
      const relistened = new Promise((resolve) => { listeningAgain = resolve; });
      const { state: { pid } } = await listener.listen('pgward_reconnect', (payload) => {
        received.push(payload);
        first();
      }, () => {
        if (++listens === 2) listeningAgain();
      });
      await listener.notify('pgward_reconnect', 'a');
      await withTimeout(firstArrived, 10_000, 'waiting for the first notification');
      const [{ terminated }] = await sql`SELECT pg_terminate_backend(${pid}) AS terminated`;
      await withTimeout(relistened, 10_000, 'waiting for the listener to listen again');
      await listener.notify('pgward_reconnect', 'b');
      const payloads = await withTimeout(received.promise, 10_000, 'waiting for the second notification');
      return { terminated, payloads };
    } finally {
      await listener.end();
      await sql.end();
    }
  },

  // postgres.js's "big query body" sends 50,000 parameters; PostgreSQL reads the count as unsigned 16 bits, so
  // anything up to 65,535 is valid (postgres.js itself refuses 65,534 and more).
  async manyParameters(url) {
    const sql = postgresJs(url);
    try {
      const out = {};
      for (const count of [32_767, 32_768, 50_000, 65_533]) {
        out[count] = await sumOf(sql, count);
      }
      try {
        await sumOf(sql, 65_534);
        out.tooMany = 'accepted';
      } catch (error) {
        out.tooMany = { code: error.code, message: error.message };
      }
      out.afterwards = (await sql`SELECT 1 AS one`)[0].one;
      return out;
    } finally {
      await sql.end();
    }
  },
};

await main(scenarios);
