#!/usr/bin/env bash
# The catalog check's cost per statement through pgward: new statements (every text sent once, so a read-only
# login pays the full guard and one catalog check) and repeated statements (answered from the verdict cache),
# for a read-only login with a table selection, a read-only login without one and the read-write login, in one
# run, statement by statement in turn. Prints a Markdown report and writes it to
# bench/results/catalog-check-<date>.md. Progress goes to stderr. See bench/README.md.
#
# Settings (environment):
#   BENCH_NEW=200                new texts per login and statement shape
#   BENCH_REPEATS=2000           executions of the repeated text per login and statement shape
#   BENCH_WARMUP=100             unreported new texts per login and shape first (and 5x as many repeats)
#   BENCH_DEMO_SCALE=0.1         pgward demo --scale (the sample shop is what the statements read)
#   BENCH_PGWARD_APP=            a pgward-app.jar to measure instead of this checkout's (its lib/ beside it),
#                                e.g. to compare two builds on the same machine
#   BENCH_RESULTS=bench/results  where the report goes
set -euo pipefail

# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
bench_init catalog-check
# shellcheck source=../scripts/select-jdk.sh
. "$BENCH_ROOT/scripts/select-jdk.sh"

NEW=${BENCH_NEW:-200}
REPEATS=${BENCH_REPEATS:-2000}
WARMUP=${BENCH_WARMUP:-100}
DEMO_SCALE=${BENCH_DEMO_SCALE:-0.1}
APP_JAR=${BENCH_PGWARD_APP:-}
RESULTS=${BENCH_RESULTS:-$BENCH_ROOT/bench/results}
for n in "$NEW" "$REPEATS"; do
    [[ $n =~ ^[1-9][0-9]*$ ]] || bench_die "not a positive integer: $n"
done
[[ $WARMUP =~ ^[0-9]+$ ]] || bench_die "BENCH_WARMUP: not a number: $WARMUP"
[ -z "$APP_JAR" ] || [ -f "$APP_JAR" ] || bench_die "BENCH_PGWARD_APP: no such file: $APP_JAR"

# The demo provides PostgreSQL 17 with the sample shop and the roles pgward_app and pgward_analyst (which reads
# everything through pg_read_all_data); it also builds this checkout's pgward on first use.
bench_start_demo "$DEMO_SCALE"
PGJDBC=$(find "$BENCH_ROOT/wire-proxy/target/lib" -name 'postgresql-*.jar' | head -n 1)
[ -n "$PGJDBC" ] || bench_die "pgjdbc is missing from wire-proxy/target/lib"

# One pgward with three logins on the same backend: the selection login and the plain read-only login share
# the backend role, so that the only difference between them is the table selection.
dir=$BENCH_TMP/pgward
mkdir -m 700 "$dir"
cat >"$dir/pgward.yaml" <<YAML
listen: $BENCH_HOST:0
backend:
  host: $BENCH_HOST
  port: $PG_PORT
  sslmode: disable
pool:
  max_size: 8
  wait_timeout: 5s
logins:
  app:
    password: \${PGWARD_BENCH_PASSWORD}
    auth: scram-sha-256
    backend_user: pgward_app
    backend_password: \${PGWARD_BENCH_BACKEND_PASSWORD}
    mode: read-write
  analyst:
    password: \${PGWARD_BENCH_PASSWORD}
    auth: scram-sha-256
    backend_user: pgward_analyst
    backend_password: \${PGWARD_BENCH_BACKEND_PASSWORD}
    mode: read-only
  selected:
    password: \${PGWARD_BENCH_PASSWORD}
    auth: scram-sha-256
    backend_user: pgward_analyst
    backend_password: \${PGWARD_BENCH_BACKEND_PASSWORD}
    mode: read-only
    tables: [public.orders, public.customers, public.products, public.order_items, public.v_sales, public.mv_region_revenue]
audit:
  file: $dir/audit.jsonl
YAML
if [ -n "$APP_JAR" ]; then
    PGWARD_CMD=("$JAVA_HOME/bin/java" -jar "$APP_JAR")
    PGWARD_BUILD="$APP_JAR"
else
    PGWARD_CMD=("$BENCH_ROOT/pgward")
    PGWARD_BUILD="this checkout"
fi
bench_spawn pgward env PGWARD_BENCH_PASSWORD=bench PGWARD_BENCH_BACKEND_PASSWORD="$PG_PASSWORD" \
    "${PGWARD_CMD[@]}" run --config "$dir/pgward.yaml"
PGWARD_PID=$BENCH_LAST_PID
bench_wait_for_line 120 "$BENCH_TMP/pgward.out" 'pgward: listening on' "$PGWARD_PID" pgward
PGWARD_PORT=$(sed -nE 's/^pgward: listening on [^ ]*:([0-9]+) .*/\1/p' "$BENCH_TMP/pgward.out" | head -n 1)
[[ $PGWARD_PORT =~ ^[0-9]+$ ]] || bench_die "could not parse the port from pgward run's output"
bench_log "pgward run up on 127.0.0.1:$PGWARD_PORT (pid $PGWARD_PID)"

# The selection must be in force, or the comparison says nothing.
if bench_psql "$PGWARD_PORT" selected bench shop -c 'SELECT count(*) FROM hr.salaries' >/dev/null 2>"$BENCH_TMP/probe.err"; then
    bench_die "the login with the selection read hr.salaries: the selection is not enforced"
fi
grep -q 'table selection does not include' "$BENCH_TMP/probe.err" \
    || { bench_tail "$BENCH_TMP/probe.err"; bench_die "hr.salaries was refused for an unexpected reason"; }

LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
bench_log "measuring: $NEW new and $REPEATS repeated statements per login and shape (a few minutes)"
PGPASSWORD='' timeout --kill-after=10 900 "$JAVA_HOME/bin/java" -cp "$PGJDBC" \
    "$BENCH_ROOT/bench/catalog/CatalogCheckLatency.java" "$BENCH_HOST" "$PGWARD_PORT" shop \
    "$NEW" "$REPEATS" "$WARMUP" selected:selected:bench analyst:analyst:bench app:app:bench \
    >"$BENCH_TMP/tables.md" || { bench_tail "$BENCH_TMP/pgward.err" 30; bench_die "the latency client failed"; }
LOAD_AFTER=$(cut -d' ' -f1-3 /proc/loadavg)

report() {
    echo "# The catalog check's cost per statement"
    echo
    bench_environment
    echo "- measured: $PGWARD_BUILD, \`pgward run\` with three logins on one backend, SCRAM, session pool, no TLS:"
    echo "  *selected* (read-only, \`tables:\` the shop's orders, customers, products, order_items, v_sales,"
    echo "  mv_region_revenue), *analyst* (read-only, no selection; same backend role \`pgward_analyst\`), *app*"
    echo "  (read-write, statements not checked)"
    echo "- client: pgjdbc $(basename "$PGJDBC" .jar | sed 's/^postgresql-//'), simple protocol, one connection per login, logins in turn statement by statement"
    echo "- $WARMUP new and $((WARMUP * 5)) repeated statements per login and shape first, not reported"
    echo "- load average (1/5/15 min): $LOAD_BEFORE before, $LOAD_AFTER after; clients, pgward and PostgreSQL share $(nproc) CPUs"
    echo
    echo "Both read-only logins run every statement that reads through the catalog check (L3); a new text costs"
    echo "them L1, L2 and one check transaction on the control connection, a repeated one a verdict-cache lookup."
    echo "The first-sight cost is the difference of medians to the read-write login, which runs the same texts."
    echo
    cat "$BENCH_TMP/tables.md"
}

mkdir -p "$RESULTS"
file=$RESULTS/catalog-check-$(date -u +%Y-%m-%d).md
report | tee "$file"
bench_log "wrote $file"
