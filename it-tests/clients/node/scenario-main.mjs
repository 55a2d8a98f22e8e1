// Shared entry point of the Node scenario scripts:
//   node <driver>-scenarios.mjs <postgresql-url> <scenario>
// prints one JSON object (the scenario's result) on stdout and exits 0, or prints the failure on stderr and
// exits 1. Results hold only values that PostgreSQL determines (no pids, no clock readings), so two targets
// that behave alike print identical JSON.
//   node <driver>-scenarios.mjs <postgresql-url> <scenario>,<scenario>,...
// runs several in one process, one after the other, and prints {"<scenario>": <result>, ...}; a scenario
// that fails is {"scenarioFailed": "<error>"} there, and the exit status is 1. The tests use this form:
// starting Node is most of what a scenario costs.

const SCENARIO_TIMEOUT_MS = 20_000;

/** Runs the scenarios named in argv[3] with the URL in argv[2]. */
export async function main(scenarios) {
  const [url, list] = process.argv.slice(2);
  const names = (list ?? '').split(',');
  if (!url || !names.every((name) => Object.hasOwn(scenarios, name))) {
    process.stderr.write(`usage: node ${process.argv[1]} <postgresql-url> <${Object.keys(scenarios).join('|')}>[,...]\n`);
    process.exit(2);
  }
  const run = (name) => withTimeout(scenarios[name](url), SCENARIO_TIMEOUT_MS, `scenario ${name}`);
  if (names.length === 1) {
    try {
      process.stdout.write(JSON.stringify(await run(names[0])) + '\n');
      process.exit(0);
    } catch (error) {
      process.stderr.write(`scenario ${names[0]} failed: ${error?.stack ?? error}\n`);
      process.exit(1);
    }
  }
  const results = {};
  let failed = false;
  for (const name of names) {
    try {
      results[name] = await run(name);
    } catch (error) {
      results[name] = { scenarioFailed: String(error?.stack ?? error) };
      failed = true;
    }
  }
  process.stdout.write(JSON.stringify(results) + '\n');
  process.exit(failed ? 1 : 0);
}

/** Resolves like promise, or rejects when it has not settled after ms milliseconds. */
export function withTimeout(promise, ms, what) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer after ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** A promise that resolves once count values have been pushed, with the values in arrival order. */
export function collector(count) {
  const values = [];
  let done;
  const promise = new Promise((resolve) => { done = resolve; });
  return {
    push(value) {
      values.push(value);
      if (values.length === count) done(values);
    },
    promise,
  };
}

/** The fields of a PostgreSQL error that a client sees and that do not depend on the connection. */
export function errorFields(error) {
  if (error?.code === undefined) throw error;
  return {
    severity: error.severity,
    code: error.code,
    message: error.message,
    position: error.position === undefined ? null : Number(error.position),
  };
}

/** Text form of a JavaScript value that JSON would otherwise lose or make ambiguous. */
export function canonical(value) {
  if (value === null || value === undefined) return null;
  if (value instanceof Date) return value.toISOString();
  if (Buffer.isBuffer(value)) return '\\x' + value.toString('hex');
  if (typeof value === 'bigint') return value.toString();
  if (Array.isArray(value)) return value.map(canonical);
  if (typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, canonical(v)]));
  }
  return value;
}

/** Sample values for parameters: every one has a server-side text form the tests know. */
export const SAMPLE = {
  int: 42,
  int8: '9223372036854775807',
  text: 'héllo "wörld" \\ \'quoted\'',
  timestamptz: new Date('2024-02-29T23:59:59.123Z'),
  numeric: '12345678901234567890.123456789012345678',
  json: { a: [1, 2.5, null, true], b: { c: 'ü' } },
  bytea: Buffer.from([0, 1, 2, 127, 128, 254, 255]),
  uuid: 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11',
  intArray: [1, null, 3],
  textArray: ['a', null, 'with "quotes"', 'comma,here', 'NULL', ''],
};
