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
#   BENCH_WARMUP=100             unreported new and never-seen texts per login and shape first (and 5x as
#                                many repeats)
#   BENCH_DEMO_SCALE=0.1         pgward demo --scale (the sample shop is what the statements read)
#   BENCH_PGWARD_APP=            a pgward-app.jar to measure instead of this checkout's (its lib/ beside it)
#   BENCH_BASELINE_APP=          another pgward-app.jar, e.g. an earlier build: a second pgward with the same
#                                logins runs beside the first, and its two read-only logins take their turns
#                                in the same run (columns "selected (baseline)", "analyst (baseline)")
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
BASELINE_JAR=${BENCH_BASELINE_APP:-}
RESULTS=${BENCH_RESULTS:-$BENCH_ROOT/bench/results}
for n in "$NEW" "$REPEATS"; do
    [[ $n =~ ^[1-9][0-9]*$ ]] || bench_die "not a positive integer: $n"
done
[[ $WARMUP =~ ^[0-9]+$ ]] || bench_die "BENCH_WARMUP: not a number: $WARMUP"
[ -z "$APP_JAR" ] || [ -f "$APP_JAR" ] || bench_die "BENCH_PGWARD_APP: no such file: $APP_JAR"
[ -z "$BASELINE_JAR" ] || [ -f "$BASELINE_JAR" ] || bench_die "BENCH_BASELINE_APP: no such file: $BASELINE_JAR"

# The demo provides PostgreSQL 17 with the sample shop and the roles pgward_app and pgward_analyst (which reads
# everything through pg_read_all_data); it also builds this checkout's pgward on first use.
bench_start_demo "$DEMO_SCALE"
PGJDBC=$(find "$BENCH_ROOT/wire-proxy/target/lib" -name 'postgresql-*.jar' | head -n 1)
[ -n "$PGJDBC" ] || bench_die "pgjdbc is missing from wire-proxy/target/lib"

# One pgward with three logins on the same backend: the selection login and the plain read-only login share
# the backend role, so that the only difference between them is the table selection.
dir=$BENCH_TMP/pgward
mkdir -m 700 "$dir"
# The configuration of pgward $1 (each writes its own audit file).
write_config() {
    bench_take_port 0
    cat >"$dir/$1.yaml" <<YAML
listen: $BENCH_HOST:$BENCH_PORT
backend:
  host: $BENCH_HOST
  port: $PG_PORT
  sslmode: disable
pool:
  # Session pooling: the two logins on pgward_analyst keep their sessions open while 8 more check at once.
  max_size: 16
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
  file: $dir/$1-audit.jsonl
YAML
}
# Starts a pgward (name $1) with the configuration above from the command "${@:2}"; sets STARTED_PORT.
start_pgward() {
    local name=$1 port
    shift
    write_config "$name"
    bench_spawn "$name" env PGWARD_BENCH_PASSWORD=bench PGWARD_BENCH_BACKEND_PASSWORD="$PG_PASSWORD" \
        "$@" run --config "$dir/$name.yaml"
    bench_wait_for_line 120 "$BENCH_TMP/$name.out" 'pgward: listening on' "$BENCH_LAST_PID" "$name"
    port=$(sed -nE 's/^pgward: listening on [^ ]*:([0-9]+) .*/\1/p' "$BENCH_TMP/$name.out" | head -n 1)
    [[ $port =~ ^[0-9]+$ ]] || bench_die "could not parse the port from $name's output"
    bench_log "$name up on 127.0.0.1:$port (pid $BENCH_LAST_PID)"
    STARTED_PORT=$port
}

if [ -n "$APP_JAR" ]; then
    start_pgward pgward "$JAVA_HOME/bin/java" -jar "$APP_JAR"
    PGWARD_BUILD="\`$APP_JAR\`"
else
    start_pgward pgward "$BENCH_ROOT/pgward"
    PGWARD_BUILD="this checkout"
fi
PGWARD_PORT=$STARTED_PORT
LOGINS=("selected:$PGWARD_PORT:selected:bench" "analyst:$PGWARD_PORT:analyst:bench")
if [ -n "$BASELINE_JAR" ]; then
    start_pgward baseline "$JAVA_HOME/bin/java" -jar "$BASELINE_JAR"
    LOGINS+=("selected (baseline):$STARTED_PORT:selected:bench" "analyst (baseline):$STARTED_PORT:analyst:bench")
fi
LOGINS+=("app:$PGWARD_PORT:app:bench")

# The selection must be in force, or the comparison says nothing.
if bench_psql "$PGWARD_PORT" selected bench shop -c 'SELECT count(*) FROM hr.salaries' >/dev/null 2>"$BENCH_TMP/probe.err"; then
    bench_die "the login with the selection read hr.salaries: the selection is not enforced"
fi
grep -q 'table selection does not include' "$BENCH_TMP/probe.err" \
    || { bench_tail "$BENCH_TMP/probe.err"; bench_die "hr.salaries was refused for an unexpected reason"; }

LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
bench_log "measuring: $NEW new and $REPEATS repeated statements per login and shape (a few minutes)"
PGPASSWORD='' timeout --kill-after=10 900 "$JAVA_HOME/bin/java" -cp "$PGJDBC" \
    "$BENCH_ROOT/bench/catalog/CatalogCheckLatency.java" "$BENCH_HOST" shop "$NEW" "$REPEATS" "$WARMUP" \
    "${LOGINS[@]}" \
    >"$BENCH_TMP/tables.md" || { bench_tail "$BENCH_TMP/pgward.err" 30; bench_die "the latency client failed"; }
LOAD_AFTER=$(cut -d' ' -f1-3 /proc/loadavg)
# pgward writes what its audit queue still holds when it stops; then the files are complete.
for i in "${!BENCH_NAMES[@]}"; do
    case ${BENCH_NAMES[$i]} in pgward | baseline) bench_stop "${BENCH_PIDS[$i]}" 30 "${BENCH_NAMES[$i]}" ;; esac
done

# pgward's own decision times (audit duration_us: from the message's arrival to the verdict) per pgward, login
# and kind of text. New texts carry a literal of at least six digits, the repeated ones 42 or -1.
audit_summary() {
    local name file
    for name in pgward baseline; do
        file=$dir/$name-audit.jsonl
        [ -s "$file" ] || continue
        awk -v who="$name" '{
                if (!match($0, /"login":"[^"]*"/)) next
                login = substr($0, RSTART + 9, RLENGTH - 10)
                if (!match($0, /"duration_us":[0-9]+/)) next
                us = substr($0, RSTART + 14, RLENGTH - 14)
                if (!index($0, "orders") && !index($0, "v_sales")) next
                print who "\t" login "\t" (match($0, /= [0-9][0-9][0-9][0-9][0-9][0-9]/) ? "new" : "repeated") "\t" us
            }' "$file"
    done | sort -t$'\t' -k1,1 -k2,2 -k3,3 -k4,4n | awk -F'\t' '
        function flush() { if (n) printf "| %s | %s | %s | %d | %d | %d |\n", who, login, kind, n, v[int((n + 1) / 2)], v[int(n * 0.99 + 0.999)] }
        $1 != who || $2 != login || $3 != kind { flush(); who = $1; login = $2; kind = $3; n = 0 }
        { v[++n] = $4 }
        END { flush() }'
}

report() {
    echo "# The catalog check's cost per statement"
    echo
    bench_environment
    echo "- measured: $PGWARD_BUILD, \`pgward run\` with three logins on one backend, SCRAM, session pool, no TLS:"
    echo "  *selected* (read-only, \`tables:\` the shop's orders, customers, products, order_items, v_sales,"
    echo "  mv_region_revenue), *analyst* (read-only, no selection; same backend role \`pgward_analyst\`), *app*"
    echo "  (read-write, statements not checked)"
    if [ -n "$BASELINE_JAR" ]; then
        echo "- baseline: \`$BASELINE_JAR\`, a second \`pgward run\` with the same configuration on the same"
        echo "  PostgreSQL; its logins are the columns marked (baseline)"
    fi
    echo "- client: pgjdbc $(basename "$PGJDBC" .jar | sed 's/^postgresql-//'), simple protocol, one connection per login, logins in turn statement by statement"
    echo "- $WARMUP new, $WARMUP never-seen and $((WARMUP * 5)) repeated statements per login and shape first, not reported"
    echo "- load average (1/5/15 min): $LOAD_BEFORE before, $LOAD_AFTER after; clients, pgward and PostgreSQL share $(nproc) CPUs"
    echo
    echo "Both read-only logins run every statement that reads through the catalog check (L3); a new text costs"
    echo "them L1, L2 and one check transaction on the control connection, a repeated one a verdict-cache lookup."
    echo "The first-sight cost is the difference of medians to the read-write login, which runs the same texts."
    echo
    cat "$BENCH_TMP/tables.md"
    echo "## Decision times recorded by pgward"
    echo
    echo "The audit log's \`duration_us\`: from the message's arrival to the verdict, the whole guard included (a"
    echo "read-write login passes a gate that allows everything). Warm-up statements included."
    echo
    echo "| pgward | login | texts | statements | median µs | p99 µs |"
    echo "|---|---|---|--:|--:|--:|"
    audit_summary
}

mkdir -p "$RESULTS"
file=$RESULTS/catalog-check-$(date -u +%Y-%m-%d).md
report | tee "$file"
bench_log "wrote $file"
