#!/usr/bin/env bash
# Bounded guard work: the texts that once made the read-only guard's work unbounded (30 levels of nested scalar
# subselects, a 5,000-term sum, parentheses 3,000 deep, array[ 500 deep, 1,600 columns, a 2,000-WHEN CASE, a
# 200,000-value IN list) and two ordinary queries for comparison, each sent many times as a new text (the verdict
# cache never answers). Two parts:
#   1. in-process (bench/jmh GuardWork): ReadOnlyGuard.check, L1 and L2 as pgward runs them with the catalog check
#      following; wall time, the deciding thread's CPU time and the process's CPU time per decision;
#   2. through pgward (`pgward demo`, PostgreSQL 17), as the read-only login analyst: every layer, L3 included;
#      pgward's own decision time per statement from its audit log (duration_us: the message's arrival to the
#      verdict), pgward's CPU time per statement, and the verdict or PostgreSQL's answer.
# Prints a Markdown report with the median and the worst decision time per input, and writes it to
# bench/results/guard-work-<date>.md. Progress goes to stderr. See bench/README.md.
#
# Settings (environment):
#   BENCH_RUNS=20                measured decisions per input in part 1 (and 5 unreported first)
#   BENCH_PROXY_RUNS=5           statements per input in part 2 (one psql session per input)
#   BENCH_PROXY=1                0 skips part 2 (no demo, no PostgreSQL)
#   BENCH_DEMO_SCALE=0.01        pgward demo --scale (the statements read no table)
#   BENCH_RESULTS=bench/results  where the report goes
set -euo pipefail

# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
bench_init guard-work
# shellcheck source=../scripts/select-jdk.sh
. "$BENCH_ROOT/scripts/select-jdk.sh"

RUNS=${BENCH_RUNS:-20}
PROXY_RUNS=${BENCH_PROXY_RUNS:-5}
PROXY=${BENCH_PROXY:-1}
DEMO_SCALE=${BENCH_DEMO_SCALE:-0.01}
RESULTS=${BENCH_RESULTS:-$BENCH_ROOT/bench/results}
JAR=$BENCH_ROOT/bench/jmh/target/guard-benchmarks.jar
JAVA=$JAVA_HOME/bin/java
for n in "$RUNS" "$PROXY_RUNS"; do
    [[ $n =~ ^[1-9][0-9]*$ ]] || bench_die "not a positive integer: $n"
done

bench_log "building the benchmarks (./mvnw -Pbench -pl bench/jmh -am package)"
"$BENCH_ROOT/mvnw" -f "$BENCH_ROOT/pom.xml" -q -B -ntp -Pbench -pl bench/jmh -am -DskipTests package \
    >"$BENCH_TMP/build.log" 2>&1 || { bench_tail "$BENCH_TMP/build.log" 40; bench_die "the build failed"; }
[ -f "$JAR" ] || bench_die "the build did not produce $JAR"

LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
bench_log "part 1: ReadOnlyGuard.check in-process, $RUNS decisions per input"
# Each decision has a 30 s deadline: a guard whose work is unbounded shows up as a timeout, not a hang.
"$JAVA" -cp "$JAR" io.pgward.bench.guard.GuardWork "$RUNS" 5 30 >"$BENCH_TMP/inprocess.tsv" 2>"$BENCH_TMP/inprocess.err" \
    || { bench_tail "$BENCH_TMP/inprocess.err" 40; bench_die "GuardWork failed"; }

if [ "$PROXY" = 1 ]; then
    mkdir "$BENCH_TMP/sql"
    "$JAVA" -cp "$JAR" io.pgward.bench.guard.GuardWork --sql "$BENCH_TMP/sql"
    bench_start_demo "$DEMO_SCALE"
    bench_log "part 2: through pgward as the read-only login analyst, $PROXY_RUNS statements per input"
    # Warm-up, unreported: every input twice, so that the JIT has compiled the guard's paths for these sizes
    # (the first statements of a fresh JVM cost several times more CPU, most of it in the compiler threads).
    for file in "$BENCH_TMP"/sql/*.sql; do
        for r in 1 2; do
            { printf 'select /* warm %s %d */ ' "$(basename "$file" .sql)" "$r"; tail -c +8 "$file"; printf ';\n'; }
        done
    done >"$BENCH_TMP/warm.psql"
    PGPASSWORD=analyst timeout --kill-after=5 600 psql -X -q -A -t -v ON_ERROR_STOP=0 -h "$BENCH_HOST" \
        -p "$DEMO_PORT" -U analyst -d shop -f "$BENCH_TMP/warm.psql" >"$BENCH_TMP/warm.out" 2>&1 || true
    : >"$BENCH_TMP/proxy-answers.tsv"
    for file in "$BENCH_TMP"/sql/*.sql; do
        name=$(basename "$file" .sql)
        script=$BENCH_TMP/$name.psql
        : >"$script"
        for ((r = 1; r <= PROXY_RUNS; r++)); do
            # A marker comment makes every text new and names it in the audit log; all texts start with "select ".
            { printf 'select /* gw %s %d */ ' "$name" "$r"; tail -c +8 "$file"; printf ';\n'; } >>"$script"
        done
        # One session per input; a refused statement must not stop the others (ON_ERROR_STOP off). Each answer is
        # the first value or the error line. pgward's CPU time over the session (utime + stime of its JVM, in
        # clock ticks) is read before and after.
        ticks_before=$(awk '{ print $14 + $15 }' "/proc/$DEMO_PID/stat")
        PGPASSWORD=analyst timeout --kill-after=5 300 psql -X -q -A -t -v ON_ERROR_STOP=0 -h "$BENCH_HOST" \
            -p "$DEMO_PORT" -U analyst -d shop -f "$script" >"$BENCH_TMP/$name.out" 2>&1 \
            || bench_log "psql for $name ended with status $? (see the report)"
        ticks_after=$(awk '{ print $14 + $15 }' "/proc/$DEMO_PID/stat")
        cpu_ms=$(awk -v t=$((ticks_after - ticks_before)) -v hz="$(getconf CLK_TCK)" -v n="$PROXY_RUNS" \
            'BEGIN { printf "%.0f", t * 1000 / hz / n }')
        printf '%s\t%s\t%s\n' "$name" "$cpu_ms" "$(grep -m1 -v '^$' "$BENCH_TMP/$name.out" | cut -c1-160 | tr '\t' ' ')" \
            >>"$BENCH_TMP/proxy-answers.tsv"
    done
    # The audit queue is written asynchronously: wait until every marked statement has its line.
    expected=$(( $(find "$BENCH_TMP/sql" -name '*.sql' | wc -l) * PROXY_RUNS ))
    deadline=$((SECONDS + 60))
    while [ "$(grep -c '/\* gw ' "$BENCH_TMP/demo.out" || true)" -lt "$expected" ] && [ "$SECONDS" -lt "$deadline" ]; do
        sleep 0.5
    done
    # "name<TAB>verdict<TAB>rule<TAB>us" per marked statement.
    grep '/\* gw ' "$BENCH_TMP/demo.out" \
        | sed -E 's/.*"verdict":"([^"]*)"(,"rule":"([^"]*)")?.*\/\* gw ([A-Z_0-9]+) [0-9]+ \*\/.*"duration_us":([0-9]+).*/\4\t\1\t\3\t\5/' \
        >"$BENCH_TMP/proxy.tsv"
fi
LOAD_AFTER=$(cut -d' ' -f1-3 /proc/loadavg)

report() {
    echo "# Bounded guard work"
    echo
    echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC')"
    echo "- machine: $(nproc) CPUs ($(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)), Linux $(uname -r)"
    echo "- pgward: $(git -C "$BENCH_ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)$(git -C "$BENCH_ROOT" diff --quiet HEAD -- . ':!bench' 2>/dev/null || echo ' (with local changes)') on $("$JAVA" -version 2>&1 | head -n 1)"
    if [ "$PROXY" = 1 ]; then
        echo "- PostgreSQL: $PG_VERSION (embedded, started by \`pgward demo\`)"
    fi
    echo "- load average (1/5/15 min): $LOAD_BEFORE before, $LOAD_AFTER after (other work on the machine inflates every figure)"
    echo
    echo "## 1. L1 and L2 in-process"
    echo
    echo "\`ReadOnlyGuard.check\` as pgward runs it for a read-only login (the catalog check follows), $RUNS new texts"
    echo "per input after 5 unreported ones, one at a time on one thread. Times in ms. *Thread CPU* is the deciding"
    echo "thread's; *process CPU* is the whole JVM's over the decision (any thread the guard starts or leaves"
    echo "running, JIT and GC included)."
    echo
    echo "| input | bytes | wall median | wall worst | thread CPU median | thread CPU worst | process CPU median | process CPU worst | verdict |"
    echo "|---|--:|--:|--:|--:|--:|--:|--:|---|"
    awk -F'\t' '{ v = $10; gsub(/\|/, "\\|", v); printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", $1, $2, $4, $5, $6, $7, $8, $9, substr(v, 1, 200) }' \
        "$BENCH_TMP/inprocess.tsv"
    echo
    echo "Worst decision, wall time: $(awk -F'\t' '$5 + 0 > w { w = $5 + 0; n = $1 } END { printf "%.2f ms (%s)", w, n }' "$BENCH_TMP/inprocess.tsv")."
    if [ "$PROXY" = 1 ]; then
        echo
        echo "## 2. Every layer, through pgward"
        echo
        echo "The same inputs sent by psql as the read-only login \`analyst\` of \`pgward demo\` (no table selection),"
        echo "each twice unreported first (JIT warm-up), then $PROXY_RUNS new texts per input. Decision time is pgward's audit \`duration_us\` (the message's arrival to"
        echo "the verdict: L1, L2 and the catalog check on PostgreSQL), in ms; the answer is psql's first line of output"
        echo "for the first text (a value, or the error pgward or PostgreSQL sent). *pgward CPU* is the CPU time of"
        echo "pgward's JVM over the input's psql session divided by its statements: an upper bound on the guard's CPU"
        echo "per statement (it also counts the login, forwarding the answer and the demo's once-a-second schema poll),"
        echo "in clock ticks of $((1000 / $(getconf CLK_TCK))) ms. Wall times include waiting for the CPU on a loaded machine."
        echo
        echo "| input | statements | median | worst | pgward CPU per statement | verdict (rule) | answer |"
        echo "|---|--:|--:|--:|--:|---|---|"
        sort -t$'\t' -k1,1 -k4,4n "$BENCH_TMP/proxy.tsv" | awk -F'\t' '
            function flush() { if (n) printf "%s\t%d\t%.1f\t%.1f\t%s%s\n", name, n, v[int((n + 1) / 2)] / 1000, v[n] / 1000, verdict, (rule != "" ? " (" rule ")" : "") }
            $1 != name { flush(); name = $1; n = 0; verdict = $2; rule = $3 }
            { v[++n] = $4 }
            END { flush() }' >"$BENCH_TMP/proxy-summary.tsv"
        join -t$'\t' "$BENCH_TMP/proxy-summary.tsv" <(sort -t$'\t' -k1,1 "$BENCH_TMP/proxy-answers.tsv") \
            | awk -F'\t' '{ a = $7; gsub(/\|/, "\\|", a); printf "| %s | %s | %s | %s | %s | %s | %s |\n", $1, $2, $3, $4, $6, $5, a }'
        echo
        echo "Worst decision through pgward: $(awk -F'\t' '$4 + 0 > w { w = $4 + 0; n = $1 } END { printf "%.1f ms (%s)", w / 1000, n }' "$BENCH_TMP/proxy.tsv")."
    fi
}

mkdir -p "$RESULTS"
file=$RESULTS/guard-work-$(date -u +%Y-%m-%d).md
report | tee "$file"
bench_log "wrote $file"
