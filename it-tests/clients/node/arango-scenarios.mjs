// node-postgres (pg) against an ArangoDB database served by pgward: statements are AQL. See
// scenario-main.mjs for the calling convention; ArangoThroughProxyIT scripts the ArangoDB answers.
import { withPgClient as withClient } from './connections.mjs';
import { main, errorFields } from './scenario-main.mjs';

const scenarios = {
  // Simple protocol: objects become columns, nested values JSON text, nulls null.
  async rows(url) {
    return withClient(url, async (client) => {
      const result = await client.query('FOR u IN users RETURN u');
      return {
        fields: result.fields.map((f) => ({ name: f.name, type: f.dataTypeID })),
        rows: result.rows,
        command: result.command,
        rowCount: result.rowCount,
      };
    });
  },

  // Extended protocol: $1 becomes the bind parameter @p1.
  async params(url) {
    return withClient(url, async (client) => {
      const result = await client.query('FOR u IN users FILTER u.name == $1 RETURN u.name', ['Ada']);
      return { fields: result.fields.map((f) => f.name), rows: result.rows };
    });
  },

  // A read-only login's write: the plan gate refuses it, and the session carries on.
  async refused(url) {
    return withClient(url, async (client) => {
      let error = null;
      try {
        await client.query('FOR u IN users REMOVE u IN users');
      } catch (e) {
        error = errorFields(e);
      }
      const after = await client.query('RETURN 1');
      return { error, after: after.rows };
    });
  },
};

await main(scenarios);
