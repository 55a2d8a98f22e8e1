// Drizzle ORM over node-postgres against a PostgreSQL URL; see scenario-main.mjs for the calling convention.
// The table is declared with drizzle's pg-core schema and created with raw SQL as a temporary table, so a
// scenario leaves nothing behind and two runs on one database cannot collide.
import { drizzle } from 'drizzle-orm/node-postgres';
import { pgTable, serial, text, numeric, jsonb, timestamp, integer } from 'drizzle-orm/pg-core';
import { and, asc, eq, gt, sql } from 'drizzle-orm';
import { main, errorFields, canonical } from './scenario-main.mjs';
import { withPgClient } from './connections.mjs';

const items = pgTable('pgward_items', {
  id: serial('id').primaryKey(),
  name: text('name').notNull(),
  price: numeric('price', { precision: 12, scale: 2 }).notNull(),
  stock: integer('stock').notNull().default(0),
  tags: text('tags').array(),
  attributes: jsonb('attributes'),
  addedAt: timestamp('added_at', { withTimezone: true, mode: 'date' }).notNull(),
});

const CREATE = `CREATE TEMP TABLE pgward_items (
  id serial PRIMARY KEY,
  name text NOT NULL UNIQUE,
  price numeric(12, 2) NOT NULL,
  stock integer NOT NULL DEFAULT 0,
  tags text[],
  attributes jsonb,
  added_at timestamptz NOT NULL)`;

function withDb(url, body) {
  return withPgClient(url, async (client) => {
    await client.query(CREATE);
    return body(drizzle({ client }));
  }, { utc: true });
}

/** Drizzle wraps driver errors; the PostgreSQL error is its cause. */
function pgError(error) {
  return errorFields(error?.code === undefined && error?.cause ? error.cause : error);
}

const addedAt = new Date('2024-03-01T10:00:00.000Z');

const scenarios = {
  async crud(url) {
    return withDb(url, async (db) => {
      const inserted = await db.insert(items).values([
        { name: 'lamp', price: '19.90', stock: 3, tags: ['home', 'light'], attributes: { watts: 40 }, addedAt },
        { name: 'desk', price: '249.00', stock: 0, tags: [], attributes: null, addedAt },
        { name: 'chair "pro"', price: '89.50', stock: 12, tags: null, attributes: { colors: ['red', 'black'] }, addedAt },
      ]).returning({ id: items.id, name: items.name });
      const inStock = await db.select().from(items)
        .where(and(gt(items.stock, 0), sql`${items.price} < ${100}`))
        .orderBy(asc(items.id));
      const updated = await db.update(items).set({ stock: sql`${items.stock} + 1` })
        .where(eq(items.name, 'desk')).returning({ name: items.name, stock: items.stock });
      let duplicate = null;
      try {
        await db.insert(items).values({ name: 'lamp', price: '1.00', addedAt });
      } catch (error) {
        duplicate = pgError(error);
      }
      const deleted = await db.delete(items).where(eq(items.name, 'lamp')).returning({ id: items.id });
      const remaining = await db.select({ name: items.name }).from(items).orderBy(asc(items.name));
      return { inserted, inStock: canonical(inStock), updated, duplicate, deleted, remaining };
    });
  },

  // db.transaction commits when the callback returns and rolls back when it throws; a nested transaction
  // is a savepoint, and its rollback keeps the outer work.
  async transaction(url) {
    return withDb(url, async (db) => {
      const countRows = async () => (await db.select({ n: sql`count(*)`.mapWith(Number) }).from(items))[0].n;
      let thrown = null;
      try {
        await db.transaction(async (tx) => {
          await tx.insert(items).values({ name: 'doomed', price: '1.00', addedAt });
          throw new Error('abort the order');
        });
      } catch (error) {
        thrown = error.message;
      }
      const afterThrow = await countRows();
      let constraint = null;
      try {
        await db.transaction(async (tx) => {
          await tx.insert(items).values({ name: 'twin', price: '1.00', addedAt });
          await tx.insert(items).values({ name: 'twin', price: '2.00', addedAt });
        });
      } catch (error) {
        constraint = pgError(error);
      }
      const afterConstraint = await countRows();
      const committed = await db.transaction(async (tx) => {
        await tx.insert(items).values({ name: 'kept', price: '5.00', addedAt });
        try {
          await tx.transaction(async (inner) => {
            await inner.insert(items).values({ name: 'inner', price: '6.00', addedAt });
            inner.rollback();
          });
        } catch (error) {
          // TransactionRollbackError: the savepoint was rolled back, the outer transaction goes on
        }
        return tx.select({ name: items.name }).from(items).orderBy(asc(items.name));
      });
      return { thrown, afterThrow, constraint, afterConstraint, committed, afterCommit: await countRows() };
    });
  },
};

await main(scenarios);
