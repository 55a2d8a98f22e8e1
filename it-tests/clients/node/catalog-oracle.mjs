// What the Node clients learn from the catalog, item by item, for CatalogOracleIT:
//   node catalog-oracle.mjs <postgresql-url>
// prints one JSON object {"<client> <item>": "<text>"} on stdout and exits 0. An item that fails is the text
// "ERROR <sqlstate>: <message>". The same program runs against the oracle database and through pgward.
//
// postgres.js fetches every array type's OID from pg_type on its first query (fetch_types, on by default);
// when that query fails, version 3.4 rejects a promise nobody awaits, and Node's default for an unhandled
// rejection is to end the process. The handler below records such a rejection as an item instead, so the
// test reports it; a process that dies anyway prints no JSON and fails the test.
import pg from 'pg';
import { withTimeout } from './scenario-main.mjs';
import { postgresJs as openPostgresJs } from './connections.mjs';

const TIMEOUT_MS = 20_000;
const out = {};
const unhandled = [];
process.on('unhandledRejection', (reason) => { unhandled.push(describe(reason)); });

function describe(error) {
  if (error?.code !== undefined && /^[0-9A-Z]{5}$/.test(String(error.code))) {
    return `ERROR ${error.code}: ${error.message}`;
  }
  return `ERROR ${error?.name ?? 'Error'}: ${String(error?.message ?? error).split('\n')[0]}`;
}

async function item(name, produce) {
  try {
    out[name] = JSON.stringify(await withTimeout(produce(), TIMEOUT_MS, name));
  } catch (error) {
    out[name] = describe(error);
  }
}

const plain = (rows) => rows.map((row) => Object.fromEntries(Object.entries(row).map(([k, v]) => [k, String(v)])));

async function postgresJs(url) {
  // Default options: fetch_types on, prepared statements on.
  const sql = openPostgresJs(url);
  try {
    await item('postgres.js enum column', async () => plain(await sql`SELECT id, status FROM orders ORDER BY id LIMIT 3`));
    await item('postgres.js enum parameter',
      async () => plain(await sql`SELECT count(*) AS n FROM orders WHERE status = ${'paid'}`));
    await item('postgres.js array column',
      async () => plain(await sql`SELECT array_agg(DISTINCT status ORDER BY status) AS statuses FROM orders`));
  } finally {
    await sql.end({ timeout: 5 }).catch(() => {});
  }
}

async function nodePostgres(url) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await item('node-postgres enum column',
      async () => plain((await client.query('SELECT id, status FROM orders ORDER BY id LIMIT 3')).rows));
    await item('node-postgres enum parameter', async () => plain((await client.query(
      'SELECT count(*) AS n FROM orders WHERE status = $1', ['paid'])).rows));
    await item('node-postgres numeric and timestamptz', async () => plain((await client.query(
      "SELECT total, ordered_at AT TIME ZONE 'UTC' AS ordered_at FROM orders ORDER BY id LIMIT 2")).rows));
    await item('node-postgres table list', async () => plain((await client.query(
      "SELECT c.relname, c.relkind FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n "
      + "ON n.oid = c.relnamespace WHERE n.nspname = 'public' ORDER BY 1")).rows));
  } finally {
    await client.end().catch(() => {});
  }
}

const url = process.argv[2];
if (!url) {
  process.stderr.write(`usage: node ${process.argv[1]} <postgresql-url>\n`);
  process.exit(2);
}
await item('postgres.js connect', async () => { await postgresJs(url); return 'ok'; });
await item('node-postgres connect', async () => { await nodePostgres(url); return 'ok'; });
// Give a late rejection (postgres.js's type fetch) the chance to arrive before the verdict.
await new Promise((resolve) => { setTimeout(resolve, 200); });
out['postgres.js unhandled rejections'] = JSON.stringify(unhandled);
process.stdout.write(JSON.stringify(out) + '\n');
process.exit(0);
