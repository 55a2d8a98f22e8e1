// node-postgres (pg) against a PostgreSQL URL; see scenario-main.mjs for the calling convention.
import { main, collector, withTimeout, errorFields, canonical, SAMPLE } from './scenario-main.mjs';
import { withPgClient } from './connections.mjs';

/** Every scenario's session runs in UTC. */
function withClient(url, body) {
  return withPgClient(url, body, { utc: true });
}

const scenarios = {
  // Extended protocol with typed parameters; the server's text form of each parameter shows how pg
  // encoded it, the decoded columns show how pg parsed the reply.
  async params(url) {
    return withClient(url, async (client) => {
      const s = SAMPLE;
      const result = await client.query(
        `SELECT $1::int4 AS int, $2::int8 AS int8, $3::text AS text, $4::timestamptz AS timestamptz,
                $5::numeric AS numeric, $6::json AS json, $7::bytea AS bytea, $8::uuid AS uuid,
                $9::int4[] AS int_array, $10::text[] AS text_array,
                $4::timestamptz::text AS timestamptz_text, $6::json::text AS json_text,
                $9::int4[]::text AS int_array_text, $10::text[]::text AS text_array_text`,
        [s.int, s.int8, s.text, s.timestamptz, s.numeric, s.json, s.bytea, s.uuid, s.intArray, s.textArray]);
      return {
        fields: result.fields.map((f) => ({ name: f.name, type: f.dataTypeID })),
        row: canonical(result.rows[0]),
      };
    });
  },

  // rowMode 'array': rows as arrays in column order, NULLs kept.
  async rowModeArray(url) {
    return withClient(url, async (client) => {
      const result = await client.query({
        text: 'SELECT 1 AS a, $1::text AS b UNION ALL SELECT 2, NULL ORDER BY 1',
        values: ['x'],
        rowMode: 'array',
      });
      return { fields: result.fields.map((f) => f.name), rows: result.rows, rowCount: result.rowCount };
    });
  },

  // BEGIN / ROLLBACK / COMMIT and a savepoint, observed through row counts.
  async transaction(url) {
    return withClient(url, async (client) => {
      await client.query('CREATE TEMP TABLE pgward_tx (id int PRIMARY KEY, note text)');
      const count = async () => Number((await client.query('SELECT count(*) AS n FROM pgward_tx')).rows[0].n);
      const steps = {};
      await client.query('BEGIN');
      await client.query('INSERT INTO pgward_tx VALUES ($1, $2)', [1, 'rolled back']);
      steps.insideFirst = await count();
      await client.query('ROLLBACK');
      steps.afterRollback = await count();
      await client.query('BEGIN');
      await client.query('INSERT INTO pgward_tx VALUES ($1, $2)', [2, 'kept']);
      await client.query('SAVEPOINT s1');
      try {
        await client.query('INSERT INTO pgward_tx VALUES ($1, $2)', [2, 'duplicate']);
      } catch (error) {
        steps.duplicate = errorFields(error);
      }
      await client.query('ROLLBACK TO SAVEPOINT s1');
      const commit = await client.query('COMMIT');
      steps.commitCommand = commit.command;
      steps.afterCommit = (await client.query('SELECT id, note FROM pgward_tx ORDER BY id')).rows;
      return steps;
    });
  },

  // LISTEN on one connection, NOTIFY (both pg_notify and the NOTIFY statement) from another.
  async listenNotify(url) {
    return withClient(url, async (listener) => withClient(url, async (notifier) => {
      const received = collector(2);
      listener.on('notification', (n) => received.push(n));
      await listener.query('LISTEN pgward_channel');
      const notifierPid = (await notifier.query('SELECT pg_backend_pid() AS pid')).rows[0].pid;
      await notifier.query("SELECT pg_notify('pgward_channel', $1)", ['first: ünïcode ✓']);
      await notifier.query("NOTIFY pgward_channel, 'second'");
      const notifications = await withTimeout(received.promise, 10_000, 'waiting for notifications');
      await listener.query('UNLISTEN *');
      return {
        notifications: notifications.map((n) => ({
          channel: n.channel,
          payload: n.payload,
          fromNotifier: n.processId === notifierPid,
        })),
      };
    }));
  },

  // Errors carry the SQLSTATE and the 1-based position; the connection stays usable afterwards.
  async error(url) {
    return withClient(url, async (client) => {
      const out = {};
      try {
        await client.query('SELECT 1 FROM pg_class WHERE no_such_column = 1');
      } catch (error) {
        out.simple = errorFields(error);
      }
      try {
        await client.query('SELECT $1::int AS n', ['not a number']);
      } catch (error) {
        out.badParameter = errorFields(error);
      }
      out.afterwards = (await client.query('SELECT $1::int AS n', [7])).rows[0].n;
      return out;
    });
  },
};

await main(scenarios);
