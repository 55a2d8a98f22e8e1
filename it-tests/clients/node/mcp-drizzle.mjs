// Drizzle ORM's pg-proxy driver over pgward's MCP execute tool with row_mode "array" (positional rows, the
// shape pg-proxy wants), through the official MCP TypeScript SDK. MCP_URL and MCP_TOKEN name the endpoint and
// the bearer token; prints one JSON object with what Drizzle read back.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { drizzle } from 'drizzle-orm/pg-proxy';
import { pgTable, integer, text } from 'drizzle-orm/pg-core';
import { asc, eq } from 'drizzle-orm';

const items = pgTable('drizzle_items', {
  id: integer('id').primaryKey(),
  name: text('name').notNull(),
  qty: integer('qty'),
});

function unfence(text) {
  const m = text.match(/<(untrusted-data-[0-9a-f-]{36})>\n([\s\S]*)\n<\/\1>/);
  return m ? m[2] : text;
}

const client = new Client({ name: 'pgward-drizzle', version: '1.0.0' });
await client.connect(new StreamableHTTPClientTransport(new URL(process.env.MCP_URL), {
  requestInit: { headers: { Authorization: `Bearer ${process.env.MCP_TOKEN}` } },
}));

async function execute(sql, params, rowMode) {
  const result = await client.callTool({ name: 'execute', arguments: { sql, params, row_mode: rowMode } });
  const text = unfence(result.content[0].text);
  if (result.isError) {
    throw new Error(text);
  }
  return JSON.parse(text);
}

const db = drizzle(async (sql, params, method) => {
  const { rows } = await execute(sql, params, 'array');
  return { rows: method === 'get' ? rows[0] : rows };
});

try {
  await execute('CREATE TABLE drizzle_items (id int PRIMARY KEY, name text NOT NULL, qty int)', [], 'object');
  await db.insert(items).values([{ id: 1, name: 'a', qty: 3 }, { id: 2, name: 'b', qty: null }]);
  const all = await db.select().from(items).orderBy(asc(items.id));
  const one = await db.select({ name: items.name }).from(items).where(eq(items.id, 2));
  await db.update(items).set({ qty: 5 }).where(eq(items.id, 2));
  const updated = await db.select({ qty: items.qty }).from(items).where(eq(items.id, 2));
  let refused = null;
  try {
    await db.insert(items).values({ id: 1, name: 'again', qty: 1 });
  } catch (e) {
    refused = (e.cause ?? e).message; // Drizzle wraps the driver's error in its own "Failed query"
  }
  console.log(JSON.stringify({ all, one, updated, refused }));
} finally {
  await client.close();
}
