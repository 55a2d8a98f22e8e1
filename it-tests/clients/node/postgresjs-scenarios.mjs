// postgres.js (the "postgres" package) against a PostgreSQL URL; see scenario-main.mjs for the calling
// convention. Every scenario uses one connection (max: 1) so that concurrent queries are pipelined on it.
import { main, collector, withTimeout, errorFields, canonical, SAMPLE } from './scenario-main.mjs';
import { postgresJs } from './connections.mjs';

async function withSql(url, body) {
  const sql = postgresJs(url, { connection: { TimeZone: 'UTC' } });
  try {
    return await body(sql);
  } finally {
    await sql.end({ timeout: 5 });
  }
}

const scenarios = {
  // Tagged-template parameters. Plain arrays go as untyped parameters and the server casts them.
  // postgres.js 3.4 sends a NULL element of a text[] correctly (see text_array_text) but parses it back as
  // the string "NULL"; that is the driver's behaviour on PostgreSQL itself, so it is recorded, not hidden.
  async params(url) {
    return withSql(url, async (sql) => {
      const s = SAMPLE;
      const [row] = await sql`
        SELECT ${s.int}::int4 AS int, ${s.int8}::int8 AS int8, ${s.text}::text AS text,
               ${s.timestamptz}::timestamptz AS timestamptz, ${s.numeric}::numeric AS numeric,
               ${sql.json(s.json)}::json AS json, ${s.bytea}::bytea AS bytea, ${s.uuid}::uuid AS uuid,
               ${s.intArray}::int4[] AS int_array, ${s.textArray}::text[] AS text_array,
               ${s.timestamptz}::timestamptz::text AS timestamptz_text, ${sql.json(s.json)}::json::text AS json_text,
               ${s.intArray}::int4[]::text AS int_array_text, ${s.textArray}::text[]::text AS text_array_text`;
      return { row: canonical({ ...row }) };
    });
  },

  // Concurrent queries on one connection: postgres.js writes them back to back without waiting for
  // replies; each has its own Sync, so the failing one in the middle must not affect its neighbours.
  // Pipelined queries where pgward's test gate refuses the middle one (it mentions refuse_me): the refusal
  // must arrive in its place, and every other query must get its own result on the same connection.
  async refusedPipeline(url) {
    return withSql(url, async (sql) => {
      const queries = Array.from({ length: 9 }, (_, i) => (i === 4
        ? sql`SELECT 'refuse_me' AS n`
        : sql`SELECT ${i}::int AS n, pg_backend_pid() AS pid`));
      const settled = await Promise.allSettled(queries);
      const pids = new Set(settled.filter((r) => r.status === 'fulfilled').map((r) => r.value[0].pid));
      return {
        results: settled.map((r) => (r.status === 'fulfilled' ? { n: r.value[0].n } : { error: errorFields(r.reason) })),
        oneConnection: pids.size === 1,
      };
    });
  },

  async pipeline(url) {
    return withSql(url, async (sql) => {
      const queries = Array.from({ length: 12 }, (_, i) => (i === 6
        ? sql`SELECT 1 / ${i - 6}::int AS n`
        : sql`SELECT ${i}::int AS n, pg_backend_pid() AS pid`));
      const settled = await Promise.allSettled(queries);
      const pids = new Set(settled.filter((r) => r.status === 'fulfilled').map((r) => r.value[0].pid));
      const inTransaction = await sql.begin((tx) => [
        tx`CREATE TEMP TABLE pgward_pipe (n int) ON COMMIT DROP`,
        tx`INSERT INTO pgward_pipe SELECT generate_series(1, ${10}::int)`,
        tx`SELECT sum(n)::int AS total, current_setting('transaction_isolation') AS isolation FROM pgward_pipe`,
      ]);
      return {
        results: settled.map((r) => (r.status === 'fulfilled' ? { n: r.value[0].n } : { error: errorFields(r.reason) })),
        oneConnection: pids.size === 1,
        transaction: { ...inTransaction[2][0] },
      };
    });
  },

  // sql.listen opens its own connection and issues LISTEN; sql.notify sends pg_notify on the main one.
  async listenNotify(url) {
    return withSql(url, async (sql) => {
      const received = collector(2);
      const listening = await sql.listen('pgward_channel', (payload) => received.push(payload));
      await sql.notify('pgward_channel', 'first: ünïcode ✓');
      await sql`NOTIFY pgward_channel, 'second'`;
      const payloads = await withTimeout(received.promise, 10_000, 'waiting for notifications');
      await listening.unlisten();
      return { payloads };
    });
  },

  async error(url) {
    return withSql(url, async (sql) => {
      const out = {};
      try {
        await sql`SELECT 1 FROM pg_class WHERE no_such_column = ${1}`;
      } catch (error) {
        out.parameterised = errorFields(error);
      }
      try {
        await sql.unsafe('SELEC 1');
      } catch (error) {
        out.syntax = errorFields(error);
      }
      out.afterwards = (await sql`SELECT ${7}::int AS n`)[0].n;
      return out;
    });
  },
};

await main(scenarios);
