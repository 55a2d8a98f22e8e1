// pgward.* functions with bound parameters through node-postgres (unnamed and named statements); see
// scenario-main.mjs for the calling convention.
import { withPgClient as withClient } from './connections.mjs';
import { main, errorFields } from './scenario-main.mjs';

const NAMES = ['public.orders', 'customers', 'public.products', 'orders', 'customers', 'public.orders', 'products'];

const scenarios = {
  // The same statement with a new value each time, unnamed and as a named prepared statement.
  async describe(url) {
    return withClient(url, async (client) => {
      const results = [];
      for (const [i, name] of NAMES.entries()) {
        const query = {
          text: "select d.value, count(*) over () as columns from pgward.describe($1) as d "
            + "where d.field = 'columns' order by d.value limit 1",
          values: [name],
        };
        if (i % 2 === 1) query.name = 'describe_columns';
        const result = await client.query(query);
        results.push([name, Number(result.rows[0].columns), result.fields.map((f) => f.name)]);
      }
      return { describe: results };
    });
  },

  async joined(url) {
    return withClient(url, async (client) => {
      const result = await client.query({
        text: 'select r.name, (select count(*) from orders where status = $1) > 0 as has '
          + 'from pgward.relations() r where r.name = $2',
        values: ['paid', 'public.orders'],
        rowMode: 'array',
      });
      return { rows: result.rows };
    });
  },

  // A bound question with a column definition list: three rows, then two of another question.
  async ask(url) {
    return withClient(url, async (client) => {
      const text = 'select t.name, t.revenue from pgward.ask($1) as t(name text, revenue numeric) order by 2 desc';
      const first = await client.query({ text, values: ['top 3 customers by revenue'], rowMode: 'array' });
      const second = await client.query({
        text, values: ['the 2 most expensive products'], rowMode: 'array', name: 'ask_named',
      });
      return { rows: [...first.rows, ...second.rows] };
    });
  },

  async unknown(url) {
    return withClient(url, async (client) => {
      try {
        await client.query('select * from pgward.nosuch($1)', ['x']);
        return { error: null };
      } catch (error) {
        const fields = errorFields(error);
        return { code: fields.code, message: fields.message };
      }
    });
  },
};

await main(scenarios);
