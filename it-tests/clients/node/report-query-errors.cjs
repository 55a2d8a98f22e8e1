// Preloaded (node --require) into drizzle-kit, which ends with exit status 1 and no message when one of its
// introspection queries fails: prints each failed query's error on stderr, so the test can show the reason.
// pg's Pool calls Client#query with a callback; a direct call returns a promise: both are reported.
const pg = require('pg');

function report(error) {
  process.stderr.write(`query failed: ${error?.code ?? ''} ${error?.message ?? error}\n`);
}

const query = pg.Client.prototype.query;
pg.Client.prototype.query = function reportingQuery(...args) {
  const callback = args[args.length - 1];
  if (typeof callback === 'function') {
    args[args.length - 1] = (error, ...rest) => {
      if (error) report(error);
      return callback(error, ...rest);
    };
  }
  const result = query.apply(this, args);
  if (result && typeof result.catch === 'function') {
    result.catch(report);
  }
  return result;
};
