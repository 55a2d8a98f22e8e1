#!/usr/bin/env bash
# pgbench select-only throughput and latency: PostgreSQL directly, through pgbouncer, through pgward with a
# read-write login and through pgward with a read-only login (every statement checked by the guard), in one
# run on one machine. Prints a Markdown report and writes it to bench/results/pgbench-<date>.md.
# Progress goes to stderr. See bench/README.md.
#
# Settings (environment):
#   BENCH_DURATION=10            seconds per pgbench run (-T)
#   BENCH_REPEATS=3              runs per (mode, clients, target); the report gives medians
#   BENCH_CLIENTS="1 8 32"       pgbench -c values; -j is min(clients, 2)
#   BENCH_MODES="simple prepared"
#   BENCH_TARGETS="direct pgbouncer pgward pgward-ro pgward-sel pgward-bp"
#                                pgward: the read-write login app (statements not checked); pgward-bp: the same
#                                login on a second `pgward run` with io.busy_poll set; pgward-sel: the
#                                read-only login selector with a table selection (the four pgbench tables), whose
#                                catalog is filtered; pgward-ro: the
#                                read-only login analyst (the guard checks every Query and Parse)
#   BENCH_BUSY_POLL=100us        io.busy_poll of the pgward-bp target (0: none)
#   BENCH_BP_THREADS=            io.threads of the pgward-bp target (empty: the default, one per CPU, at least 2)
#   BENCH_PGBENCH_SCALE=10       pgbench -i -s
#   BENCH_DEMO_SCALE=0.1         pgward demo --scale (the sample shop is not used here)
#   BENCH_WARMUP=5               seconds of unreported pgbench per target before measuring (0: none)
#   BENCH_PGWARD=run             run: a `pgward run` whose pool fits the largest client count, with the
#                                demo's app login; demo: the demo's own pgward (pool.max_size 20)
#   BENCH_BASELINE_APP=          another pgward-app.jar, e.g. an earlier build: a second `pgward run` with the
#                                same configuration serves the targets baseline (app) and baseline-ro (analyst),
#                                interleaved with the others, and the report adds a before/after table
#   BENCH_RESULTS=bench/results  where the report goes
set -euo pipefail

# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
bench_init pgbench-compare

DURATION=${BENCH_DURATION:-10}
REPEATS=${BENCH_REPEATS:-3}
CLIENTS=${BENCH_CLIENTS:-1 8 32}
MODES=${BENCH_MODES:-simple prepared}
BASELINE_JAR=${BENCH_BASELINE_APP:-}
TARGETS=${BENCH_TARGETS:-direct pgbouncer pgward pgward-ro pgward-sel pgward-bp${BASELINE_JAR:+ baseline baseline-ro}}
BUSY_POLL=${BENCH_BUSY_POLL:-100us}
BP_THREADS=${BENCH_BP_THREADS:-}
[ -z "$BP_THREADS" ] || [[ $BP_THREADS =~ ^[1-9][0-9]*$ ]] \
    || bench_die "BENCH_BP_THREADS: not a positive number: $BP_THREADS"
# The io section of the pgward-bp target, and how the report names it.
BP_IO="busy_poll: $BUSY_POLL"
BP_LABEL="\`io.busy_poll: $BUSY_POLL\`"
if [ -n "$BP_THREADS" ]; then
    BP_IO="$BP_IO
  threads: $BP_THREADS"
    BP_LABEL="$BP_LABEL and \`io.threads: $BP_THREADS\`"
fi
PGBENCH_SCALE=${BENCH_PGBENCH_SCALE:-10}
DEMO_SCALE=${BENCH_DEMO_SCALE:-0.1}
WARMUP=${BENCH_WARMUP:-5}
PGWARD_VIA=${BENCH_PGWARD:-run}
RESULTS=${BENCH_RESULTS:-$BENCH_ROOT/bench/results}
DB=pgbench

for n in "$DURATION" "$REPEATS" "$PGBENCH_SCALE" $CLIENTS; do
    [[ $n =~ ^[1-9][0-9]*$ ]] || bench_die "not a positive integer: $n"
done
[[ $WARMUP =~ ^[0-9]+$ ]] || bench_die "BENCH_WARMUP: not a number of seconds: $WARMUP"
for m in $MODES; do
    case $m in simple | prepared | extended) ;; *) bench_die "BENCH_MODES: unknown pgbench mode $m" ;; esac
done
for t in $TARGETS; do
    case $t in direct | pgbouncer | pgward | pgward-ro | pgward-sel | pgward-bp | baseline | baseline-ro) ;;
        *) bench_die "BENCH_TARGETS: unknown target $t" ;; esac
done
[ -z "$BASELINE_JAR" ] || [ -f "$BASELINE_JAR" ] || bench_die "BENCH_BASELINE_APP: no such file: $BASELINE_JAR"
case $PGWARD_VIA in run | demo) ;; *) bench_die "BENCH_PGWARD must be run or demo, was $PGWARD_VIA" ;; esac
has_target() { [[ " $TARGETS " == *" $1 "* ]]; }
has_pgward_target() { has_target pgward || has_target pgward-ro || has_target pgward-sel; }
has_baseline_target() { has_target baseline || has_target baseline-ro; }
MAX_CLIENTS=$(tr ' ' '\n' <<<"$CLIENTS" | sort -n | tail -n 1)

command -v pgbench >/dev/null || bench_die "pgbench is missing (Debian: apt-get install postgresql-client)"
command -v psql >/dev/null || bench_die "psql is missing (Debian: apt-get install postgresql-client)"
if has_target pgbouncer && ! command -v pgbouncer >/dev/null; then
    if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null; then
        bench_log "installing pgbouncer"
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq pgbouncer >/dev/null \
            || bench_die "apt-get install pgbouncer failed"
    else
        bench_die "pgbouncer is missing (Debian: apt-get install pgbouncer)"
    fi
fi

bench_start_demo "$DEMO_SCALE"

# ------------------------------------------------------------------------------------------ pgbench data

bench_log "pgbench -i -s $PGBENCH_SCALE into the database $DB, directly on PostgreSQL"
bench_psql "$PG_PORT" postgres "$PG_PASSWORD" shop -c "CREATE DATABASE $DB"
PGPASSWORD=$PG_PASSWORD timeout --kill-after=5 600 \
    pgbench -i -q -s "$PGBENCH_SCALE" -h "$BENCH_HOST" -p "$PG_PORT" -U postgres "$DB" \
    >"$BENCH_TMP/pgbench-init.log" 2>&1 || { bench_tail "$BENCH_TMP/pgbench-init.log"; bench_die "pgbench -i failed"; }
EXPECTED_ACCOUNTS=$((PGBENCH_SCALE * 100000))

# ------------------------------------------------------------------------------------------ pgbouncer

start_pgbouncer() {
    local dir=$BENCH_TMP/pgbouncer port
    bench_take_port "$(bench_free_port)"
    port=$BENCH_PORT
    mkdir -m 700 "$dir"
    # Session mode like pgward; the pool fits the largest client count so that no client queues.
    cat >"$dir/pgbouncer.ini" <<EOF
[databases]
$DB = host=$BENCH_HOST port=$PG_PORT dbname=$DB

[pgbouncer]
listen_addr = $BENCH_HOST
listen_port = $port
unix_socket_dir =
auth_type = scram-sha-256
auth_file = $dir/userlist.txt
pool_mode = session
default_pool_size = $((MAX_CLIENTS + 8))
max_client_conn = $((MAX_CLIENTS * 2 + 20))
server_tls_sslmode = disable
client_tls_sslmode = disable
logfile = $dir/pgbouncer.log
pidfile = $dir/pgbouncer.pid
EOF
    printf '"postgres" "%s"\n' "$PG_PASSWORD" >"$dir/userlist.txt"
    chmod 600 "$dir/userlist.txt"
    if [ "$(id -u)" -eq 0 ]; then
        # pgbouncer refuses to run as root.
        chown -R nobody: "$dir"
        bench_spawn pgbouncer setpriv --reuid=nobody --regid=nogroup --clear-groups -- pgbouncer "$dir/pgbouncer.ini"
    else
        bench_spawn pgbouncer pgbouncer "$dir/pgbouncer.ini"
    fi
    PGBOUNCER_PID=$BENCH_LAST_PID
    bench_wait_for_line 30 "$dir/pgbouncer.log" 'process up' "$PGBOUNCER_PID" pgbouncer
    PGBOUNCER_PORT=$port
    PGBOUNCER_VERSION=$(pgbouncer --version | head -n 1)
    bench_log "pgbouncer up on 127.0.0.1:$PGBOUNCER_PORT (pid $PGBOUNCER_PID, pool $((MAX_CLIENTS + 8)))"
}

# ------------------------------------------------------------------------------------------ pgward

# The demo's pgward has pool.max_size 20 per (role, database), fixed in the demo's configuration: a 21st
# session waits pool.wait_timeout (5 s) and is refused with 53300, so pgbench -c 32 cannot run through it.
# `pgward run` with the same logins (app: SCRAM, backend role pgward_app, read-write; analyst: SCRAM, backend
# role pgward_analyst, which reads everything through pg_read_all_data, read-only) and a pool that fits
# measures the same proxy. Both logins are served by the one process, so that the read-only/read-write ratio
# compares the guard and nothing else. Audit lines of both go to one file; the report summarises the
# decision times pgward itself recorded.
# $1: the name (pgward, busypoll or baseline), $2: the audit file, $3: more YAML for the configuration, then the
# command that runs pgward; sets STARTED_PID and STARTED_PORT.
start_pgward_run() {
    local name=$1 audit=$2 extra=$3 dir=$BENCH_TMP/$1
    shift 3
    mkdir -m 700 "$dir"
    bench_take_port 0
    cat >"$dir/pgward.yaml" <<EOF
listen: $BENCH_HOST:$BENCH_PORT
backend:
  host: $BENCH_HOST
  port: $PG_PORT
  sslmode: disable
pool:
  max_size: $((MAX_CLIENTS + 8))
  wait_timeout: 5s
logins:
  app:
    password: \${PGWARD_BENCH_APP_PASSWORD}
    auth: scram-sha-256
    backend_user: pgward_app
    backend_password: \${PGWARD_BENCH_BACKEND_PASSWORD}
    mode: read-write
  analyst:
    password: \${PGWARD_BENCH_ANALYST_PASSWORD}
    auth: scram-sha-256
    backend_user: pgward_analyst
    backend_password: \${PGWARD_BENCH_BACKEND_PASSWORD}
    mode: read-only
    statement_timeout: 30s
  selector:
    password: \${PGWARD_BENCH_ANALYST_PASSWORD}
    auth: scram-sha-256
    backend_user: pgward_analyst
    backend_password: \${PGWARD_BENCH_BACKEND_PASSWORD}
    mode: read-only
    statement_timeout: 30s
    tables: [public.pgbench_accounts, public.pgbench_branches, public.pgbench_tellers, public.pgbench_history]
audit:
  file: $audit
$extra
EOF
    bench_spawn "$name" env PGWARD_BENCH_APP_PASSWORD=app PGWARD_BENCH_ANALYST_PASSWORD=analyst \
        PGWARD_BENCH_BACKEND_PASSWORD="$PG_PASSWORD" "$@" run --config "$dir/pgward.yaml"
    STARTED_PID=$BENCH_LAST_PID
    bench_wait_for_line 120 "$BENCH_TMP/$name.out" 'pgward: listening on' "$STARTED_PID" "$name"
    STARTED_PORT=$(sed -nE 's/^pgward: listening on [^ ]*:([0-9]+) .*/\1/p' "$BENCH_TMP/$name.out" | head -n 1)
    [[ $STARTED_PORT =~ ^[0-9]+$ ]] || bench_die "could not parse the port from $name run's output"
    bench_log "$name run up on 127.0.0.1:$STARTED_PORT (pid $STARTED_PID, pool.max_size $((MAX_CLIENTS + 8)))"
}

if has_target pgbouncer; then
    start_pgbouncer
fi
AUDIT_FILE=""
if [ "$PGWARD_VIA" = run ]; then
    if has_pgward_target; then
        AUDIT_FILE=$BENCH_TMP/pgward.audit.jsonl
        start_pgward_run pgward "$AUDIT_FILE" "" "$BENCH_ROOT/pgward"
        PGWARD_PID=$STARTED_PID
        PGWARD_PORT=$STARTED_PORT
    fi
    PGWARD_LOG=$BENCH_TMP/pgward.err
    PGWARD_DESC="\`pgward run\` (logins app, read-write, and analyst, read-only with statement_timeout 30s; SCRAM, pool.max_size $((MAX_CLIENTS + 8)), session mode; audit to a file)"
else
    PGWARD_PORT=$DEMO_PORT
    PGWARD_LOG=$BENCH_TMP/demo.err
    PGWARD_DESC="the demo's own pgward (logins app, read-write, and analyst, read-only; SCRAM, pool.max_size 20, session mode; audit to stdout)"
fi

# The read-write login once more, on a pgward whose event loops poll before they sleep (io.busy_poll): the
# latency a client with one statement in flight gains, and what it costs when the CPUs are busy.
BUSY_POLL_PORT=""
if has_target pgward-bp; then
    start_pgward_run busypoll "$BENCH_TMP/busypoll.audit.jsonl" "io:
  $BP_IO" "$BENCH_ROOT/pgward"
    BUSY_POLL_PID=$STARTED_PID
    BUSY_POLL_PORT=$STARTED_PORT
fi

BASELINE_PORT=""
if has_baseline_target; then
    [ -n "$BASELINE_JAR" ] || bench_die "the baseline targets need BENCH_BASELINE_APP"
    # shellcheck source=../scripts/select-jdk.sh
    . "$BENCH_ROOT/scripts/select-jdk.sh"
    # The launcher's JVM options for `pgward run` unless BENCH_BASELINE_JVM_OPTS says otherwise, as for this build.
    read -r -a baseline_jvm_opts <<<"${BENCH_BASELINE_JVM_OPTS-$(sed -nE 's/^ +default_jvm_opts="(.+)"$/\1/p' "$BENCH_ROOT/pgward")}"
    start_pgward_run baseline "$BENCH_TMP/baseline.audit.jsonl" "" "$JAVA_HOME/bin/java" "${baseline_jvm_opts[@]}" \
        -jar "$BASELINE_JAR"
    BASELINE_PID=$STARTED_PID
    BASELINE_PORT=$STARTED_PORT
fi

# target -> port, user, password
target_port() {
    case $1 in
        direct) echo "$PG_PORT" ;; pgbouncer) echo "$PGBOUNCER_PORT" ;; pgward | pgward-ro | pgward-sel) echo "$PGWARD_PORT" ;;
        baseline | baseline-ro) echo "$BASELINE_PORT" ;; pgward-bp) echo "$BUSY_POLL_PORT" ;;
    esac
}
target_user() {
    case $1 in direct | pgbouncer) echo postgres ;; pgward | baseline | pgward-bp) echo app ;;
        pgward-ro | baseline-ro) echo analyst ;;
        pgward-sel) echo selector ;; esac
}
target_password() {
    case $1 in
        direct | pgbouncer) echo "$PG_PASSWORD" ;; pgward | baseline | pgward-bp) echo app ;;
        pgward-ro | baseline-ro | pgward-sel) echo analyst ;;
    esac
}

# Every target must see the same data before anything is timed.
for t in $TARGETS; do
    n=$(bench_psql "$(target_port "$t")" "$(target_user "$t")" "$(target_password "$t")" "$DB" -At \
        -c 'SELECT count(*) FROM pgbench_accounts') || bench_die "cannot query pgbench_accounts through $t"
    [ "$n" = "$EXPECTED_ACCOUNTS" ] || bench_die "$t: pgbench_accounts has $n rows, expected $EXPECTED_ACCOUNTS"
done
bench_log "all targets answer; pgbench_accounts has $EXPECTED_ACCOUNTS rows through each"

# ------------------------------------------------------------------------------------------ measuring

RAW=$BENCH_TMP/raw.tsv
: >"$RAW"
LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)

# One pgbench run; sets RUN_TPS and appends "mode clients target rep tps latency_ms" to $RAW unless rep
# is "warmup". Any failure, hang or failed transaction ends the whole run.
# -n: no vacuum before the run (pgward's app role may not vacuum or truncate, and it would only add noise).
run_pgbench() {
    local mode=$1 clients=$2 target=$3 rep=$4 duration=$5 jobs out status tps lat failed processed
    jobs=$((clients < 2 ? clients : 2))
    out=$BENCH_TMP/pgbench-last.log
    status=0
    PGPASSWORD=$(target_password "$target") timeout --kill-after=10 $((duration + 60)) \
        pgbench -n -S -M "$mode" -c "$clients" -j "$jobs" -T "$duration" \
        -h "$BENCH_HOST" -p "$(target_port "$target")" -U "$(target_user "$target")" "$DB" \
        >"$out" 2>&1 || status=$?
    tps=$(sed -nE 's/^tps = ([0-9.]+) \(without initial connection time\)$/\1/p' "$out")
    lat=$(sed -nE 's/^latency average = ([0-9.]+) ms$/\1/p' "$out")
    failed=$(sed -nE 's/^number of failed transactions: ([0-9]+).*/\1/p' "$out")
    processed=$(sed -nE 's/^number of transactions actually processed: ([0-9]+).*/\1/p' "$out")
    if [ "$status" -ne 0 ] || [ -z "$tps" ] || [ -z "$lat" ] || [ "${failed:-1}" != 0 ] || [ "${processed:-0}" -eq 0 ]; then
        bench_tail "$out" 25
        case $target in
            pgward | pgward-ro | pgward-sel) bench_tail "$PGWARD_LOG" 25 ;;
            baseline | baseline-ro) bench_tail "$BENCH_TMP/baseline.err" 25 ;;
            pgward-bp) bench_tail "$BENCH_TMP/busypoll.err" 25 ;;
            pgbouncer) bench_tail "$BENCH_TMP/pgbouncer/pgbouncer.log" 25 ;;
        esac
        if [ "$status" -eq 124 ] || [ "$status" -eq 137 ]; then
            bench_die "pgbench -M $mode -c $clients against $target did not finish within $((duration + 60))s (hang)"
        fi
        bench_die "pgbench -M $mode -c $clients against $target failed (exit $status, failed transactions ${failed:-?})"
    fi
    if [ "$rep" != warmup ]; then
        printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$mode" "$clients" "$target" "$rep" "$tps" "$lat" >>"$RAW"
    fi
    RUN_TPS=$tps
}

# Every mode is warmed up: the read-only login's guard runs its full check for each simple-protocol Query
# (pgbench's literals make every text new) but only once per connection for a prepared statement.
if [ "$WARMUP" -gt 0 ]; then
    for t in $TARGETS; do
        for mode in $MODES; do
            bench_log "warm-up: $t -M $mode, ${WARMUP}s"
            run_pgbench "$mode" "$MAX_CLIENTS" "$t" warmup "$WARMUP"
        done
    done
fi

read -r -a target_list <<<"$TARGETS"
n_targets=${#target_list[@]}
total=$((REPEATS * $(wc -w <<<"$MODES") * $(wc -w <<<"$CLIENTS") * n_targets))
done_runs=0
bench_log "measuring: $total runs of ${DURATION}s (about $((total * (DURATION + 2) / 60 + 1)) min)"
# Targets alternate within each (mode, clients) and the order rotates with each repetition, so that
# drift in the machine's load does not favour one target.
for ((rep = 1; rep <= REPEATS; rep++)); do
    for mode in $MODES; do
        for clients in $CLIENTS; do
            for ((k = 0; k < n_targets; k++)); do
                t=${target_list[$(((k + rep - 1) % n_targets))]}
                run_pgbench "$mode" "$clients" "$t" "$rep" "$DURATION"
                done_runs=$((done_runs + 1))
                bench_log "[$done_runs/$total] rep $rep  -M $mode  -c $clients  $t: $RUN_TPS tps"
            done
        done
    done
done
LOAD_AFTER=$(cut -d' ' -f1-3 /proc/loadavg)
if [ -n "$AUDIT_FILE" ]; then
    # pgward writes what its audit queue still holds when it stops (for at most 5 s), then the file is complete.
    bench_log "stopping pgward run so that its audit log is complete"
    bench_stop "$PGWARD_PID" 30 pgward
fi
if [ -n "$BASELINE_PORT" ]; then
    bench_stop "$BASELINE_PID" 30 baseline
fi
if [ -n "$BUSY_POLL_PORT" ]; then
    bench_stop "$BUSY_POLL_PID" 30 busypoll
fi

# ------------------------------------------------------------------------------------------ report

# Median of the numbers on stdin.
median() {
    sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print ""; else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# Median of column $4 (5 = tps, 6 = latency) for mode $1, clients $2, target $3.
med() {
    awk -F'\t' -v m="$1" -v c="$2" -v t="$3" -v col="$4" '$1 == m && $2 == c && $3 == t { print $col }' "$RAW" | median
}

fmt_tps() { [ -n "$1" ] && printf '%.0f' "$1" || printf '—'; }
fmt_ms() { [ -n "$1" ] && printf '%.3f' "$1" || printf '—'; }
ratio() { if [ -n "$1" ] && [ -n "$2" ]; then awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; else printf '—'; fi; }

# pgward's own record of its decision times: per login and message kind, the number of decisions and the
# median, 99th percentile and largest duration_us from the audit file. pgbench's prepared statement is the only
# text with a $1, so it marks Parse messages; the others are simple-protocol Queries (warm-up runs included).
audit_summary() {
    local rows
    [ -n "$AUDIT_FILE" ] && [ -s "$AUDIT_FILE" ] || return 0
    # Fixed-string matching: the file holds a line per simple-protocol transaction, often a million or more.
    rows=$(awk '{
                if (!match($0, /"login":"[^"]*"/)) next
                login = substr($0, RSTART + 9, RLENGTH - 10)
                if (!match($0, /"duration_us":[0-9]+/)) next
                print login "\t" (index($0, "$1") ? "Parse (prepared)" : "Query (simple)") "\t" substr($0, RSTART + 14, RLENGTH - 14)
            }' "$AUDIT_FILE" \
        | sort -t$'\t' -k1,1 -k2,2 -k3,3n \
        | awk -F'\t' '
            function flush() { if (n) printf "| %s | %s | %d | %d | %d | %d |\n", login, kind, n, v[int((n + 1) / 2)], v[int(n * 0.99 + 0.999)], v[n] }
            $1 != login || $2 != kind { flush(); login = $1; kind = $2; n = 0 }
            { v[++n] = $3 }
            END { flush() }')
    if [ -z "$rows" ]; then
        bench_log "warning: none of the $(wc -l <"$AUDIT_FILE") audit lines could be read; first line: $(head -c 300 "$AUDIT_FILE")"
        return 0
    fi
    echo "Decision times recorded by pgward (audit \`duration_us\`: from the message's arrival to the verdict,"
    echo "guard included; read-write logins pass a gate that allows everything). Warm-up runs included."
    echo
    echo "| login | message | decisions | median µs | p99 µs | max µs |"
    echo "|---|---|--:|--:|--:|--:|"
    echo "$rows"
    echo
}

# The read-write login with io.busy_poll against the same login without it, and against direct and pgbouncer.
busy_poll_table() {
    local mode clients d b w p
    echo "The read-write login on a second \`pgward run\` with $BP_LABEL (*bp*): with a busy_poll, its event"
    echo "loops poll for that long before they sleep. Same configuration otherwise, interleaved with the other targets."
    echo
    echo "| mode | clients | pgward rw TPS | pgward bp TPS | pgward bp ms | bp/rw | bp/direct | bp/pgbouncer |"
    echo "|---|--:|--:|--:|--:|--:|--:|--:|"
    for mode in $MODES; do
        for clients in $CLIENTS; do
            d=$(med "$mode" "$clients" direct 5)
            b=$(med "$mode" "$clients" pgbouncer 5)
            w=$(med "$mode" "$clients" pgward 5)
            p=$(med "$mode" "$clients" pgward-bp 5)
            printf '| %s | %s | %s | %s | %s | %s | %s | %s |\n' "$mode" "$clients" "$(fmt_tps "$w")" "$(fmt_tps "$p")" \
                "$(fmt_ms "$(med "$mode" "$clients" pgward-bp 6)")" "$(ratio "$p" "$w")" "$(ratio "$p" "$d")" \
                "$(ratio "$p" "$b")"
        done
    done
    echo
}

# This build against BENCH_BASELINE_APP, login by login: the same proxy configuration on the same PostgreSQL.
baseline_table() {
    local mode clients bw w br r
    echo "This build against the baseline \`$BASELINE_JAR\` (a second \`pgward run\` with the same configuration;"
    echo "ratios of median TPS, above 1 means this build is faster)."
    echo
    echo "| mode | clients | baseline rw TPS | pgward rw TPS | rw new/old | baseline ro TPS | pgward ro TPS | ro new/old |"
    echo "|---|--:|--:|--:|--:|--:|--:|--:|"
    for mode in $MODES; do
        for clients in $CLIENTS; do
            bw=$(med "$mode" "$clients" baseline 5)
            w=$(med "$mode" "$clients" pgward 5)
            br=$(med "$mode" "$clients" baseline-ro 5)
            r=$(med "$mode" "$clients" pgward-ro 5)
            printf '| %s | %s | %s | %s | %s | %s | %s | %s |\n' "$mode" "$clients" "$(fmt_tps "$bw")" \
                "$(fmt_tps "$w")" "$(ratio "$w" "$bw")" "$(fmt_tps "$br")" "$(fmt_tps "$r")" "$(ratio "$r" "$br")"
        done
    done
    echo
}

report() {
    local mode clients d b w r sel
    echo "# pgbench select-only: PostgreSQL directly, pgbouncer, pgward read-write, read-only and read-only with a selection"
    echo
    bench_environment
    echo "- pgbench: $(pgbench --version | head -n 1); \`pgbench -n -S -M <mode> -c <clients> -j min(clients,2) -T $DURATION\`, scale $PGBENCH_SCALE ($EXPECTED_ACCOUNTS accounts)"
    if has_target pgbouncer; then echo "- pgbouncer: $PGBOUNCER_VERSION, session mode, SCRAM, pool $((MAX_CLIENTS + 8))"; fi
    echo "- pgward: $PGWARD_DESC"
    echo "- all traffic on 127.0.0.1 without TLS; clients, proxies and PostgreSQL share the same $(nproc) CPUs"
    echo "- $REPEATS runs per cell, targets interleaved; ${WARMUP}s warm-up per target before measuring"
    echo "- load average (1/5/15 min): $LOAD_BEFORE before, $LOAD_AFTER after"
    echo
    echo "Medians of $REPEATS runs. TPS: transactions per second (higher is better); latency: pgbench's mean"
    echo "latency in ms (lower is better); ratios are of median TPS. pgward rw is the read-write login app"
    echo "(statements not checked), pgward ro the read-only login analyst (the guard checks every Query and Parse),"
    echo "pgward sel the read-only login selector with a table selection of the four pgbench tables (its catalog"
    echo "filtered). A target not run shows —."
    echo
    echo "| mode | clients | direct TPS | pgbouncer TPS | pgward rw TPS | pgward ro TPS | pgward sel TPS | direct ms | pgbouncer ms | pgward rw ms | pgward ro ms | pgward sel ms | rw/direct | rw/pgbouncer | ro/direct | ro/rw | sel/rw |"
    echo "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|"
    for mode in $MODES; do
        for clients in $CLIENTS; do
            d=$(med "$mode" "$clients" direct 5)
            b=$(med "$mode" "$clients" pgbouncer 5)
            w=$(med "$mode" "$clients" pgward 5)
            r=$(med "$mode" "$clients" pgward-ro 5)
            sel=$(med "$mode" "$clients" pgward-sel 5)
            printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' \
                "$mode" "$clients" \
                "$(fmt_tps "$d")" "$(fmt_tps "$b")" "$(fmt_tps "$w")" "$(fmt_tps "$r")" "$(fmt_tps "$sel")" \
                "$(fmt_ms "$(med "$mode" "$clients" direct 6)")" "$(fmt_ms "$(med "$mode" "$clients" pgbouncer 6)")" \
                "$(fmt_ms "$(med "$mode" "$clients" pgward 6)")" "$(fmt_ms "$(med "$mode" "$clients" pgward-ro 6)")" \
                "$(fmt_ms "$(med "$mode" "$clients" pgward-sel 6)")" \
                "$(ratio "$w" "$d")" "$(ratio "$w" "$b")" "$(ratio "$r" "$d")" "$(ratio "$r" "$w")" "$(ratio "$sel" "$w")"
        done
    done
    echo
    if [ -n "$BUSY_POLL_PORT" ]; then
        busy_poll_table
    fi
    if [ -n "$BASELINE_PORT" ]; then
        baseline_table
    fi
    audit_summary
    echo "<details><summary>Every run (TPS / mean latency ms)</summary>"
    echo
    echo "| mode | clients | target | runs |"
    echo "|---|--:|---|---|"
    awk -F'\t' '{ k = $1 "\t" $2 "\t" $3; if (!(k in runs)) { order[++n] = k; runs[k] = "" } else runs[k] = runs[k] ", "
                  runs[k] = runs[k] sprintf("%.0f / %.3f", $5, $6) }
        END { for (i = 1; i <= n; i++) { split(order[i], f, "\t"); printf "| %s | %s | %s | %s |\n", f[1], f[2], f[3], runs[order[i]] } }' "$RAW"
    echo
    echo "</details>"
}

mkdir -p "$RESULTS"
file=$RESULTS/pgbench-$(date -u +%Y-%m-%d).md
report | tee "$file"
bench_log "wrote $file"
