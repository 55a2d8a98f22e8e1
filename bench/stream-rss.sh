#!/usr/bin/env bash
# Streams results of millions of rows through pgward and samples pgward's resident memory (VmRSS of its
# JVM) meanwhile. pgward relays rows as they come, so its memory should not grow with the result's size.
# Prints a Markdown report and writes it to bench/results/stream-<date>.md. Progress goes to stderr.
# See bench/README.md.
#
# Settings (environment):
#   STREAM_COPY_ROWS="1000000 5000000"     rows per COPY ... TO STDOUT run
#   STREAM_SELECT_ROWS="1000000 5000000"   rows per plain SELECT run (psql holds the whole result in its
#                                          own memory: about 0.2 GB per million rows here)
#   STREAM_STALL=10                        seconds a stalled client reads nothing (0: skip that run)
#   STREAM_DIRECT=1                        also time the largest runs directly on PostgreSQL (0: skip)
#   STREAM_INTERVAL=0.5                    seconds between RSS samples
#   STREAM_FLAT_MIB=64                     a run whose peak exceeds its start by more is reported as growing
#   BENCH_DEMO_SCALE=0.1                   pgward demo --scale
#   BENCH_RESULTS=bench/results            where the report goes
set -euo pipefail

# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
bench_init stream-rss

COPY_ROWS=${STREAM_COPY_ROWS:-1000000 5000000}
SELECT_ROWS=${STREAM_SELECT_ROWS:-1000000 5000000}
STALL=${STREAM_STALL:-10}
DIRECT=${STREAM_DIRECT:-1}
INTERVAL=${STREAM_INTERVAL:-0.5}
FLAT_MIB=${STREAM_FLAT_MIB:-64}
DEMO_SCALE=${BENCH_DEMO_SCALE:-0.1}
RESULTS=${BENCH_RESULTS:-$BENCH_ROOT/bench/results}

for n in $COPY_ROWS $SELECT_ROWS; do
    [[ $n =~ ^[1-9][0-9]*$ ]] || bench_die "not a positive row count: $n"
done
[[ $STALL =~ ^[0-9]+$ ]] || bench_die "STREAM_STALL: not a number of seconds: $STALL"
[[ $INTERVAL =~ ^[0-9]*\.?[0-9]+$ ]] || bench_die "STREAM_INTERVAL: not a number of seconds: $INTERVAL"
[[ $FLAT_MIB =~ ^[0-9]+$ ]] || bench_die "STREAM_FLAT_MIB: not a number of MiB: $FLAT_MIB"
command -v psql >/dev/null || bench_die "psql is missing (Debian: apt-get install postgresql-client)"
largest() { tr ' ' '\n' <<<"$1" | sort -n | tail -n 1; }

bench_start_demo "$DEMO_SCALE"

# ------------------------------------------------------------------------------------------ RSS sampler

# "epoch-seconds rss-kB" lines until pgward exits or the script does (the cleanup stops the sampler);
# at most one day of samples, so that it cannot outlive a forgotten run.
sample_rss() {
    local pid=$1 i=0 max rss
    max=$(awk -v s="$INTERVAL" 'BEGIN { printf "%d", 86400 / s }')
    while [ "$i" -lt "$max" ] && rss=$(awk '/^VmRSS:/ { print $2 }' "/proc/$pid/status" 2>/dev/null) && [ -n "$rss" ]; do
        printf '%s %s\n' "$(date +%s.%N)" "$rss"
        sleep "$INTERVAL"
        i=$((i + 1))
    done
}
bench_spawn sampler sample_rss "$DEMO_PID"
SAMPLER_OUT=$BENCH_TMP/sampler.out

rss_now() { awk '/^VmRSS:/ { print $2 }' "/proc/$DEMO_PID/status"; }

# Peak of the samples taken between epoch seconds $1 and $2, and of $3 and $4 (taken at the edges).
rss_peak() {
    awk -v a="$1" -v b="$2" -v x="$3" -v y="$4" 'BEGIN { p = x > y ? x : y } $1 >= a && $1 <= b && $2 > p { p = $2 } END { print p }' "$SAMPLER_OUT"
}

# Lets the JVM settle after the demo's data load and pgward's first connection.
bench_psql "$DEMO_PORT" app app shop -c 'SELECT 1' >/dev/null || bench_die "cannot connect to pgward as app"
sleep 3
IDLE_RSS=$(rss_now)
bench_log "pgward idle RSS: $((IDLE_RSS / 1024)) MiB"

# ------------------------------------------------------------------------------------------ runs

ROWS_TSV=$BENCH_TMP/runs.tsv
: >"$ROWS_TSV"

# One run: name, path (pgward|direct), expected rows, SQL, kind (copy|select), stall seconds.
# Counts the rows and bytes that reach the client, so a short or truncated result fails the run.
run_stream() {
    local name=$1 path=$2 rows=$3 sql=$4 kind=$5 stall=$6
    local port user password t0 t1 rss0 rss1 peak counted lines bytes status=0 limit
    case $path in
        pgward) port=$DEMO_PORT user=app password=app ;;
        direct) port=$PG_PORT user=postgres password=$PG_PASSWORD ;;
    esac
    # A generous bound: 20 s per million rows plus the stall, never less than two minutes.
    limit=$((rows / 50000 + stall + 120))
    bench_log "$name via $path: $rows rows"
    rss0=$(rss_now)
    t0=$(date +%s.%N)
    if [ "$kind" = copy ]; then
        # The reader sleeps first: psql's stdout pipe fills, psql stops reading its socket, and pgward
        # must stop reading PostgreSQL rather than buffer the rest of the result.
        counted=$(PGPASSWORD=$password timeout --kill-after=5 "$limit" \
            psql -X -q -v ON_ERROR_STOP=1 -h "$BENCH_HOST" -p "$port" -U "$user" -d shop -c "$sql" \
            | { sleep "$stall"; wc -lc; }) || status=$?
    else
        # -At: unaligned rows, one per line. FETCH_COUNT is unset, so psql reads the whole result at once.
        counted=$(PGPASSWORD=$password timeout --kill-after=5 "$limit" \
            psql -X -q -At -v ON_ERROR_STOP=1 -h "$BENCH_HOST" -p "$port" -U "$user" -d shop -c "$sql" \
            | wc -lc) || status=$?
    fi
    t1=$(date +%s.%N)
    rss1=$(rss_now) || bench_die "pgward's JVM (pid $DEMO_PID) is gone after $name"
    if [ "$status" -ne 0 ]; then
        bench_tail "$BENCH_TMP/demo.err" 25
        if [ "$status" -eq 124 ] || [ "$status" -eq 137 ]; then
            bench_die "$name via $path did not finish within ${limit}s (hang)"
        fi
        bench_die "$name via $path failed (exit $status)"
    fi
    read -r lines bytes <<<"$counted"
    if [ "$lines" != "$rows" ]; then
        bench_tail "$BENCH_TMP/demo.err" 25
        bench_die "$name via $path: the client received $lines rows, expected $rows"
    fi
    peak=$(rss_peak "$t0" "$t1" "$rss0" "$rss1")
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$path" "$rows" "$bytes" "$t0" "$t1" "$rss0" "$peak" "$rss1" >>"$ROWS_TSV"
    bench_log "$name via $path: $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s, pgward RSS $((rss0 / 1024)) -> peak $((peak / 1024)) -> $((rss1 / 1024)) MiB"
}

copy_sql() { echo "COPY (SELECT g, md5(g::text) FROM generate_series(1, $1) g) TO STDOUT"; }
select_sql() { echo "SELECT g, md5(g::text) FROM generate_series(1, $1) g"; }

for n in $COPY_ROWS; do
    run_stream "COPY TO STDOUT" pgward "$n" "$(copy_sql "$n")" copy 0
done
for n in $SELECT_ROWS; do
    run_stream "SELECT" pgward "$n" "$(select_sql "$n")" select 0
done
if [ "$STALL" -gt 0 ]; then
    n=$(largest "$COPY_ROWS")
    run_stream "COPY TO STDOUT, client stalls ${STALL}s" pgward "$n" "$(copy_sql "$n")" copy "$STALL"
fi
if [ "$DIRECT" = 1 ]; then
    n=$(largest "$COPY_ROWS")
    run_stream "COPY TO STDOUT" direct "$n" "$(copy_sql "$n")" copy 0
    n=$(largest "$SELECT_ROWS")
    run_stream "SELECT" direct "$n" "$(select_sql "$n")" select 0
fi
FINAL_RSS=$(rss_now)
SAMPLE_COUNT=$(wc -l <"$SAMPLER_OUT")

# ------------------------------------------------------------------------------------------ report

mib() { awk -v k="$1" 'BEGIN { printf "%.0f", k / 1024 }'; }

report() {
    echo "# Streaming through pgward: resident memory"
    echo
    bench_environment
    echo "- pgward: the demo's (login app, SCRAM), 127.0.0.1 without TLS; psql $(psql --version | awk '{ print $3 }')"
    echo "- RSS: VmRSS of pgward's JVM from /proc, every ${INTERVAL}s ($SAMPLE_COUNT samples); idle before the runs $(mib "$IDLE_RSS") MiB, after all runs $(mib "$FINAL_RSS") MiB"
    echo "- rows: \`SELECT g, md5(g::text) FROM generate_series(1, N) g\`, about 40 bytes each on the wire; every run checks that the client got all N rows"
    echo
    echo "| run | path | rows | MB to client | seconds | rows/s | MB/s | RSS start MiB | RSS peak MiB | RSS end MiB | peak − start MiB | flat |"
    echo "|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|---|"
    awk -F'\t' -v flat="$FLAT_MIB" '{
        d = $6 - $5; mb = $4 / 1e6; g = ($8 - $7) / 1024
        if ($2 == "direct") rss = "| — | — | — | — | — |"
        else rss = sprintf("| %.0f | %.0f | %.0f | %+.0f | %s |", $7 / 1024, $8 / 1024, $9 / 1024, g, g < flat ? "yes" : "**no**")
        printf "| %s | %s | %d | %.0f | %.1f | %.0f | %.1f %s\n", $1, $2, $3, mb, d, $3 / d, mb / d, rss
    }' "$ROWS_TSV"
    echo
    echo "MB to client: bytes psql wrote (COPY text, or unaligned rows), in 10^6 bytes. For a plain SELECT,"
    echo "psql builds the whole result in its own memory before printing; that is psql's memory, not pgward's."
    echo "A stalled client reads nothing for the first seconds, so the time includes the stall. flat: the peak"
    echo "stayed within $FLAT_MIB MiB of the RSS at the start of the run."
}

mkdir -p "$RESULTS"
file=$RESULTS/stream-$(date -u +%Y-%m-%d).md
report | tee "$file"
bench_log "wrote $file"
growing=$(awk -F'\t' -v flat="$FLAT_MIB" '$2 == "pgward" && ($8 - $7) / 1024 >= flat { printf "%s%s (%d rows, %+.0f MiB)", sep, $1, $3, ($8 - $7) / 1024; sep = "; " }' "$ROWS_TSV")
if [ -n "$growing" ]; then
    bench_log "WARNING: pgward's RSS grew by $FLAT_MIB MiB or more during: $growing"
fi
