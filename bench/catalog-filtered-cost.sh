#!/usr/bin/env bash
# The cost of catalog statements through pgward for a read-only login with a table selection (served filtered,
# issue 13) after their first sight, against the same statements sent directly to PostgreSQL as that login's
# backend role: per statement the median latency both ways and the ratio, statements over 2x marked, and the
# median ratio. Prints a Markdown report and writes it to bench/results/catalog-filtered-cost-<date>-<label>.md
# (never over an existing file). Progress goes to stderr. See bench/README.md.
#
# Settings (environment):
#   BENCH_RUNS=40             timed runs per statement and connection
#   BENCH_WARMUP=30           unreported rounds over all statements, both connections, first
#   BENCH_DEMO_SCALE=0.1      pgward demo --scale
#   BENCH_LABEL=run           the report's file name suffix (e.g. the build measured)
#   BENCH_RESULTS=bench/results
set -euo pipefail

# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
bench_init catalog-filtered-cost
# shellcheck source=../scripts/select-jdk.sh
. "$BENCH_ROOT/scripts/select-jdk.sh"

RUNS=${BENCH_RUNS:-40}
WARMUP=${BENCH_WARMUP:-30}
DEMO_SCALE=${BENCH_DEMO_SCALE:-0.1}
LABEL=${BENCH_LABEL:-run}
RESULTS=${BENCH_RESULTS:-$BENCH_ROOT/bench/results}
[[ $RUNS =~ ^[1-9][0-9]*$ ]] || bench_die "BENCH_RUNS: not a positive integer: $RUNS"
[[ $WARMUP =~ ^[0-9]+$ ]] || bench_die "BENCH_WARMUP: not a number: $WARMUP"
[[ $LABEL =~ ^[A-Za-z0-9._-]+$ ]] || bench_die "BENCH_LABEL: letters, digits, . _ - only: $LABEL"
STATEMENTS=$BENCH_ROOT/bench/catalog/filtered-cost-statements.sql

# The demo's analyst login: read-only, backend role pgward_analyst (whose password is the superuser's), selection
# orders, customers, products, order_items, v_sales, mv_region_revenue.
bench_start_demo "$DEMO_SCALE"
PGJDBC=$(find "$BENCH_ROOT/wire-proxy/target/lib" -name 'postgresql-*.jar' | head -n 1)
[ -n "$PGJDBC" ] || bench_die "pgjdbc is missing from wire-proxy/target/lib"

# The selection must be in force, or the comparison says nothing.
if bench_psql "$DEMO_PORT" analyst analyst shop -c 'SELECT count(*) FROM hr.salaries' >/dev/null 2>"$BENCH_TMP/probe.err"; then
    bench_die "the analyst login read hr.salaries: the selection is not enforced"
fi
hidden=$(bench_psql "$DEMO_PORT" analyst analyst shop -Atc \
    "SELECT count(*) FROM pg_catalog.pg_class WHERE relname IN ('salaries', 'payment_tokens')" 2>/dev/null || echo refused)
[ "$hidden" = 0 ] || [ "$hidden" = refused ] || bench_die "the analyst login sees hidden relations in pg_class: $hidden"

LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
bench_log "measuring $(grep -c '^-- @@ ' "$STATEMENTS") statements, 2 hop baselines and 6 pgjdbc calls, $RUNS runs each way"
timeout --kill-after=10 1800 "$JAVA_HOME/bin/java" -cp "$PGJDBC" "$BENCH_ROOT/bench/catalog/FilteredCatalogCost.java" \
    "$STATEMENTS" "$BENCH_HOST" shop "$RUNS" "$WARMUP" "$DEMO_PORT" analyst analyst \
    "$PG_PORT" pgward_analyst "$PG_PASSWORD" >"$BENCH_TMP/tables.md" \
    || { bench_tail "$BENCH_TMP/demo.err" 30; bench_die "the cost client failed"; }
LOAD_AFTER=$(cut -d' ' -f1-3 /proc/loadavg)

report() {
    echo "# Catalog statements through pgward (filtered) against direct"
    echo
    bench_environment
    echo "- through pgward: the demo's \`analyst\` login (read-only, selection of six relations), so every catalog"
    echo "  statement is served rewritten with the login's filter subqueries; directly: PostgreSQL as"
    echo "  \`pgward_analyst\`, the login's backend role, the client's own text"
    echo "- client: pgjdbc $(basename "$PGJDBC" .jar | sed 's/^postgresql-//'), simple protocol, one connection each way"
    echo "- statements: \`bench/catalog/filtered-cost-statements.sql\` (psql 15's \\d family, the drivers' texts,"
    echo "  the catalog corpus; queries without \$n) and six pgjdbc DatabaseMetaData calls; first two statements"
    echo "  that read no catalog (\"hop:\"), for what pgward's hop alone costs"
    echo "- load average (1/5/15 min): $LOAD_BEFORE before, $LOAD_AFTER after; client, pgward and PostgreSQL"
    echo "  share $(nproc) CPUs with whatever else runs on the machine: read the medians and ratios, not single values"
    echo
    echo "Each statement's first run through pgward (its first sight: rewrite and catalog check) is not timed;"
    echo "what is timed is the statement after it, answered from the served-statement cache."
    echo
    cat "$BENCH_TMP/tables.md"
}

mkdir -p "$RESULTS"
file=$RESULTS/catalog-filtered-cost-$(date -u +%Y-%m-%d)-$LABEL.md
n=2
while [ -e "$file" ]; do
    file=$RESULTS/catalog-filtered-cost-$(date -u +%Y-%m-%d)-$LABEL-$n.md
    n=$((n + 1))
done
report | tee "$file"
bench_log "wrote $file"
