#!/usr/bin/env bash
# pgward's resident memory with many idle client sessions: each logs in, runs `select 1` once and then sits
# idle. Prints a Markdown report and writes it to bench/results/idle-connections-<date>[-<label>].md.
# Progress goes to stderr. See bench/README.md.
#
# pgward pools in session mode: every idle client session holds one backend connection. The demo's
# PostgreSQL allows 200 connections, so this script starts a PostgreSQL of its own from the demo's embedded
# binaries with max_connections above the session count, and one `pgward run` (launched by ./pgward, with the
# launcher's JVM options) whose pool allows every session. PostgreSQL's memory is reported separately.
#
# Settings (environment):
#   IDLE_SESSIONS=1000           client sessions held open
#   IDLE_LOGINS="analyst app"    logins used in turn: analyst (read-only, guarded), app (read-write)
#   IDLE_SETTLE=10               seconds between the last session's `select 1` and the measurement
#   IDLE_LOAD=20                 seconds of `pgbench -S -M simple -c 8` through pgward before the sessions
#                                open, half per login, so that the heap has grown as after a benchmark
#                                (0: none)
#   IDLE_NMT=0                   1: a diagnostic run: the JVM also runs with -XX:NativeMemoryTracking=summary,
#                                and the report adds what the sessions added to native memory and to the
#                                live heap (a histogram before they open forces a full GC, and NMT costs
#                                memory of its own, so read the headline RSS from a run with 0)
#   IDLE_LABEL=                  appended to the report's file name (e.g. before, after)
#   PGWARD_JVM_OPTS              passed to ./pgward (unset: the launcher's defaults; empty: the JVM's own)
#   IDLE_PG_PORT, IDLE_PORT      ports of this script's PostgreSQL and pgward (default: free ones)
#   BENCH_DEMO_SCALE=0.01        pgward demo --scale (the demo only provides the PostgreSQL binaries)
#   BENCH_DEMO_PORT, BENCH_DEMO_PG_PORT   the demo's ports (default: free ones)
#   BENCH_RESULTS=bench/results  where the report goes
set -euo pipefail

# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
bench_init idle-connections
# shellcheck source=../scripts/select-jdk.sh
. "$BENCH_ROOT/scripts/select-jdk.sh"

SESSIONS=${IDLE_SESSIONS:-1000}
LOGINS=${IDLE_LOGINS:-analyst app}
SETTLE=${IDLE_SETTLE:-10}
LOAD=${IDLE_LOAD:-20}
NMT=${IDLE_NMT:-0}
LABEL=${IDLE_LABEL:-}
DEMO_SCALE=${BENCH_DEMO_SCALE:-0.01}
RESULTS=${BENCH_RESULTS:-$BENCH_ROOT/bench/results}
PYTHON=/usr/bin/python3

[[ $SESSIONS =~ ^[1-9][0-9]*$ ]] || bench_die "IDLE_SESSIONS: not a positive integer: $SESSIONS"
[[ $SETTLE =~ ^[0-9]+$ ]] || bench_die "IDLE_SETTLE: not a number of seconds: $SETTLE"
[[ $LOAD =~ ^[0-9]+$ ]] || bench_die "IDLE_LOAD: not a number of seconds: $LOAD"
for login in $LOGINS; do
    case $login in analyst | app) ;; *) bench_die "IDLE_LOGINS: unknown login $login" ;; esac
done
"$PYTHON" -c 'import psycopg2' 2>/dev/null || bench_die "$PYTHON lacks psycopg2 (Debian: apt-get install python3-psycopg2)"
command -v psql >/dev/null || bench_die "psql is missing (Debian: apt-get install postgresql-client)"
[ "$LOAD" = 0 ] || command -v pgbench >/dev/null || bench_die "pgbench is missing (Debian: apt-get install postgresql-client)"
# Each session is two sockets in pgward (client and backend) and one in the client.
[ "$(ulimit -n)" -gt $((SESSIONS * 2 + 200)) ] || ulimit -n $((SESSIONS * 2 + 200)) 2>/dev/null \
    || bench_die "ulimit -n is $(ulimit -n); $((SESSIONS * 2 + 200)) open files are needed"

kib() { awk -v k="$1" 'BEGIN { printf "%.0f", k / 1024 }'; }
status_kib() { awk -v f="$2" '$1 == f":" { print $2 }' "/proc/$1/status"; }

# ------------------------------------------------------------------------------------------ PostgreSQL

# The demo unpacks the embedded binaries; its PostgreSQL (a child of its JVM) says where they are.
bench_start_demo "$DEMO_SCALE"
PG_BIN=""
for child in $(ps -o pid= --ppid "$DEMO_PID"); do
    exe=$(readlink "/proc/$child/exe" 2>/dev/null || true)
    if [ "$(basename "$exe")" = postgres ]; then
        PG_BIN=$(dirname "$exe")
    fi
done
[ -x "$PG_BIN/initdb" ] || bench_die "could not find the demo's PostgreSQL binaries"
bench_stop "$DEMO_PID" 60 demo
bench_log "PostgreSQL binaries: $PG_BIN"

# PostgreSQL refuses to run as root. exec: in the background this is PostgreSQL's own pid, which the
# cleanup stops.
as_server_user() {
    if [ "$(id -u)" = 0 ]; then
        exec setpriv --reuid=nobody --regid=nogroup --clear-groups -- "$@"
    fi
    exec "$@"
}
PG_DIR=$BENCH_TMP/pg
PG_PASSWORD=$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')
mkdir -m 700 "$PG_DIR"
printf '%s\n' "$PG_PASSWORD" >"$PG_DIR/pwfile"
[ "$(id -u)" = 0 ] && chown -R nobody: "$PG_DIR"
(as_server_user "$PG_BIN/initdb" --pgdata="$PG_DIR/data" --username=postgres --pwfile="$PG_DIR/pwfile" \
    --auth-local=trust --auth-host=scram-sha-256 --encoding=UTF8 --locale=C --no-sync \
    ) >"$BENCH_TMP/initdb.out" 2>&1 || { bench_tail "$BENCH_TMP/initdb.out" 20; bench_die "initdb failed"; }
PG_PORT=${IDLE_PG_PORT:-$(bench_free_port)}
# Room for every session's backend, pgward's control connections and this script's own psql.
PG_MAX_CONNECTIONS=$((SESSIONS + 50))
bench_spawn postgres as_server_user "$PG_BIN/postgres" -D "$PG_DIR/data" -p "$PG_PORT" \
    -c listen_addresses="$BENCH_HOST" -c unix_socket_directories= -c fsync=off -c synchronous_commit=off \
    -c full_page_writes=off -c max_connections="$PG_MAX_CONNECTIONS" -c shared_buffers=64MB -c lc_messages=C
PG_PID=$BENCH_LAST_PID
bench_wait_for_line 60 "$BENCH_TMP/postgres.err" 'ready to accept connections' "$PG_PID" postgres
PG_VERSION=$("$PG_BIN/postgres" --version | awk '{ print $3 }')
bench_log "PostgreSQL $PG_VERSION up on $BENCH_HOST:$PG_PORT (max_connections $PG_MAX_CONNECTIONS)"
pg() { bench_psql "$PG_PORT" postgres "$PG_PASSWORD" postgres -At "$@"; }
pg -c "CREATE ROLE pgward_analyst LOGIN PASSWORD '$PG_PASSWORD'" -c "GRANT pg_read_all_data TO pgward_analyst" \
    -c "CREATE ROLE pgward_app LOGIN PASSWORD '$PG_PASSWORD'" \
    -c "GRANT pg_read_all_data, pg_write_all_data TO pgward_app" >/dev/null

# ------------------------------------------------------------------------------------------ pgward

mkdir -m 700 "$BENCH_TMP/pgward"
cat >"$BENCH_TMP/pgward/pgward.yaml" <<EOF
listen: $BENCH_HOST:${IDLE_PORT:-0}
backend:
  host: $BENCH_HOST
  port: $PG_PORT
  sslmode: disable
pool:
  max_size: $((SESSIONS + 10))
  wait_timeout: 30s
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
audit:
  target: "off"
EOF
JVM_DESC="the launcher's defaults"
if [ -n "${PGWARD_JVM_OPTS+set}" ]; then
    JVM_DESC="PGWARD_JVM_OPTS=\"$PGWARD_JVM_OPTS\""
fi
# NMT through JAVA_TOOL_OPTIONS, so that the launcher's own options stay as they are.
NMT_ENV=()
[ "$NMT" = 1 ] && NMT_ENV=(JAVA_TOOL_OPTIONS=-XX:NativeMemoryTracking=summary)
bench_spawn pgward env "${NMT_ENV[@]}" PGWARD_BENCH_APP_PASSWORD=app PGWARD_BENCH_ANALYST_PASSWORD=analyst \
    PGWARD_BENCH_BACKEND_PASSWORD="$PG_PASSWORD" "$BENCH_ROOT/pgward" run --config "$BENCH_TMP/pgward/pgward.yaml"
PGWARD_PID=$BENCH_LAST_PID
bench_wait_for_line 120 "$BENCH_TMP/pgward.out" 'pgward: listening on' "$PGWARD_PID" pgward
PGWARD_PORT=$(sed -nE 's/^pgward: listening on [^ ]*:([0-9]+) .*/\1/p' "$BENCH_TMP/pgward.out" | head -n 1)
[[ $PGWARD_PORT =~ ^[0-9]+$ ]] || bench_die "could not parse the port from pgward's output"
JVM_ARGS=$(tr '\0' '\n' <"/proc/$PGWARD_PID/cmdline" | awk 'NR > 1 && $0 == "-jar" { exit } NR > 1 { printf "%s%s", sep, $0; sep = " " }')
bench_log "pgward up on $BENCH_HOST:$PGWARD_PORT (pid $PGWARD_PID; JVM options: ${JVM_ARGS:-none})"

password_of() { case $1 in analyst) echo analyst ;; app) echo app ;; esac; }
for login in $LOGINS; do
    bench_psql "$PGWARD_PORT" "$login" "$(password_of "$login")" postgres -c 'select 1' >/dev/null \
        || bench_die "cannot run select 1 through pgward as $login"
done
sleep 3
RSS_FIRST=$(status_kib "$PGWARD_PID" VmRSS)
bench_log "pgward RSS after one session per login: $(kib "$RSS_FIRST") MiB"

# ------------------------------------------------------------------------------------------ load

# The read-only login pays the guard on every new literal (the most allocation per statement); the
# read-write login relays. pgbench -n: neither login may vacuum.
run_load() {
    local login=$1 seconds=$2
    bench_log "pgbench -S -M simple -c 8 for ${seconds}s as $login"
    PGPASSWORD=$(password_of "$login") timeout --kill-after=5 $((seconds + 60)) \
        pgbench -n -S -M simple -c 8 -j 2 -T "$seconds" -h "$BENCH_HOST" -p "$PGWARD_PORT" -U "$login" postgres \
        >"$BENCH_TMP/pgbench-$login.out" 2>&1 \
        || { bench_tail "$BENCH_TMP/pgbench-$login.out" 20; bench_die "pgbench as $login failed"; }
    LOAD_TPS+="${LOAD_TPS:+, }$login $(awk '/^tps/ { printf "%.0f", $3 }' "$BENCH_TMP/pgbench-$login.out") TPS"
}
LOAD_TPS=""
if [ "$LOAD" -gt 0 ]; then
    PGPASSWORD=$PG_PASSWORD pgbench -q -i -s 1 -h "$BENCH_HOST" -p "$PG_PORT" -U postgres postgres \
        >"$BENCH_TMP/pgbench-init.out" 2>&1 || { bench_tail "$BENCH_TMP/pgbench-init.out" 20; bench_die "pgbench -i failed"; }
    for login in $LOGINS; do
        run_load "$login" $(((LOAD + 1) / $(wc -w <<<"$LOGINS")))
    done
    sleep 3
fi
# Collections so far and their seconds (young, full, concurrent): what the heap's size costs under load.
gc_counts() {
    "$JAVA_HOME/bin/jstat" -gcutil "$PGWARD_PID" 2>/dev/null | awk 'NR == 2 {
        printf "%s young in %.2fs, %s full in %.2fs", $7, $8, $9, $10
        if ($11 != "-" && $11 > 0) printf ", %s concurrent in %.2fs", $11, $12 }'
}
GC_START=$(gc_counts)
RSS_START=$(status_kib "$PGWARD_PID" VmRSS)
THREADS_START=$(status_kib "$PGWARD_PID" Threads)
jcmd() { "$JAVA_HOME/bin/jcmd" "$PGWARD_PID" "$@" 2>&1 | tail -n +2; }
HISTOGRAM_BEFORE=""
if [ "$NMT" = 1 ]; then
    HISTOGRAM_BEFORE=$(jcmd GC.class_histogram)
    jcmd VM.native_memory baseline >/dev/null
fi
bench_log "pgward RSS before the idle sessions: $(kib "$RSS_START") MiB, $THREADS_START threads${LOAD_TPS:+ (load: $LOAD_TPS)}; GC: $GC_START"

# ------------------------------------------------------------------------------------------ sessions

pairs=()
for login in $LOGINS; do
    pairs+=("$login:$(password_of "$login")")
done
bench_log "opening $SESSIONS sessions (logins in turn: $LOGINS)"
bench_spawn holder "$PYTHON" "$BENCH_ROOT/bench/idle/hold_connections.py" "$BENCH_HOST" "$PGWARD_PORT" postgres \
    "$SESSIONS" "${pairs[@]}"
HOLDER_PID=$BENCH_LAST_PID
bench_wait_for_line $((SESSIONS / 2 + 120)) "$BENCH_TMP/holder.out" '^ready ' "$HOLDER_PID" holder
OPEN_SECONDS=$(awk '/^ready / { print $3 }' "$BENCH_TMP/holder.out")
bench_log "$SESSIONS sessions open in ${OPEN_SECONDS}s; letting them settle ${SETTLE}s"
sleep "$SETTLE"

BACKENDS=$(pg -c "SELECT count(*) FROM pg_stat_activity WHERE usename IN ('pgward_app', 'pgward_analyst')")
RSS_IDLE=$(status_kib "$PGWARD_PID" VmRSS)
HWM_IDLE=$(status_kib "$PGWARD_PID" VmHWM)
THREADS_IDLE=$(status_kib "$PGWARD_PID" Threads)
FDS_IDLE=$(find "/proc/$PGWARD_PID/fd" -mindepth 1 2>/dev/null | wc -l)
HEAP_IDLE=$(jcmd GC.heap_info)
HISTOGRAM_ALL=$(jcmd GC.class_histogram)
HISTOGRAM=$(awk 'NR <= 23' <<<"$HISTOGRAM_ALL")
NMT_IDLE=""
if [ "$NMT" = 1 ]; then
    NMT_IDLE=$(jcmd VM.native_memory summary)
    NMT_DIFF=$(jcmd VM.native_memory summary.diff)
fi
# PostgreSQL's share: proportional set size, so that shared buffers are counted once across its processes.
PG_PSS=0
for pid in $(pgrep -P "$PG_PID" 2>/dev/null) "$PG_PID"; do
    pss=$(awk '/^Pss:/ { print $2 }' "/proc/$pid/smaps_rollup" 2>/dev/null || true)
    PG_PSS=$((PG_PSS + ${pss:-0}))
done
bench_log "with $SESSIONS idle sessions: pgward RSS $(kib "$RSS_IDLE") MiB (peak $(kib "$HWM_IDLE") MiB), $THREADS_IDLE threads; PostgreSQL $BACKENDS backends, PSS $(kib "$PG_PSS") MiB"

# A full collection shows how much of the heap those sessions really keep alive.
jcmd GC.run >/dev/null
sleep 2
RSS_AFTER_GC=$(status_kib "$PGWARD_PID" VmRSS)
HEAP_AFTER_GC=$(jcmd GC.heap_info)
# What the C heap (glibc's malloc) kept of memory the JVM freed, e.g. the JIT compilers' arenas.
jcmd System.trim_native_heap >/dev/null
sleep 1
RSS_AFTER_TRIM=$(status_kib "$PGWARD_PID" VmRSS)

bench_stop "$HOLDER_PID" 60 holder
sleep 5
RSS_CLOSED=$(status_kib "$PGWARD_PID" VmRSS)
bench_log "after a full GC: $(kib "$RSS_AFTER_GC") MiB, then trimmed: $(kib "$RSS_AFTER_TRIM") MiB; after the sessions closed: $(kib "$RSS_CLOSED") MiB"

# ------------------------------------------------------------------------------------------ report

# Live bytes per class with the sessions open minus before they opened: the 15 that grew most.
per_class_growth() {
    awk -v n="$SESSIONS" '
        FNR == 1 { file++ }
        $1 ~ /^[0-9]+:$/ { bytes[file, $4] = $3; count[file, $4] = $2; names[$4] = 1 }
        $1 == "Total" { total[file] = $3 }
        END {
            for (c in names) {
                d = bytes[2, c] - bytes[1, c]
                if (d > 0) printf "%12d %10d %8.0f  %s\n", d, count[2, c] - count[1, c], d / n, c
            }
            printf "%12d %10s %8.0f  %s\n", total[2] - total[1], "", (total[2] - total[1]) / n, "(all classes)"
        }' <(echo "$HISTOGRAM_BEFORE") <(echo "$HISTOGRAM_ALL") | sort -k1,1nr | awk 'BEGIN { print "     + bytes  + objects  B/sess  class" } NR <= 16'
}

report() {
    echo "# $SESSIONS idle client sessions: pgward's resident memory"
    echo
    echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC'); load average $(cut -d' ' -f1-3 /proc/loadavg)"
    echo "- machine: $(nproc) CPUs ($(awk -F': ' '/^model name/ && !done { print $2; done = 1 }' /proc/cpuinfo)), $(awk '/MemTotal/ { printf "%.0f GiB RAM", $2 / 1048576 }' /proc/meminfo), Linux $(uname -r)"
    echo "- pgward: $(git -C "$BENCH_ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)$(git -C "$BENCH_ROOT" diff --quiet HEAD -- . ':!bench' 2>/dev/null || echo ' (with local changes)') on $("$JAVA_HOME/bin/java" -version 2>&1 | awk 'NR == 1'); \`pgward run\` via ./pgward, $JVM_DESC"
    echo "- JVM options: \`${JVM_ARGS:-none}\`${NMT_ENV[*]:+, and $NMT_ENV}"
    echo "- PostgreSQL $PG_VERSION (the embedded binaries, max_connections $PG_MAX_CONNECTIONS, shared_buffers 64MB); pool.max_size $((SESSIONS + 10)), session mode: each idle session holds a backend connection"
    echo "- sessions: $SESSIONS through psycopg2 (SCRAM, no TLS), logins in turn: $LOGINS; each ran \`select 1\` once; all open after ${OPEN_SECONDS}s, measured ${SETTLE}s later"
    echo
    echo "| | pgward RSS MiB | threads |"
    echo "|---|--:|--:|"
    echo "| one session per login | $(kib "$RSS_FIRST") | |"
    [ "$LOAD" -gt 0 ] && echo "| after ${LOAD}s of pgbench ($LOAD_TPS) | $(kib "$RSS_START") | $THREADS_START |"
    echo "| **$SESSIONS idle sessions** | **$(kib "$RSS_IDLE")** | $THREADS_IDLE |"
    echo "| peak (VmHWM) up to then | $(kib "$HWM_IDLE") | |"
    echo "| the same after a full GC | $(kib "$RSS_AFTER_GC") | |"
    echo "| then after trimming the C heap (\`jcmd System.trim_native_heap\`) | $(kib "$RSS_AFTER_TRIM") | |"
    echo "| after the sessions closed | $(kib "$RSS_CLOSED") | |"
    echo
    echo "Garbage collections from the start to before the idle sessions (\`jstat -gcutil\`): $GC_START."
    echo
    echo "Per idle session: $(awk -v a="$RSS_START" -v b="$RSS_IDLE" -v n="$SESSIONS" 'BEGIN { printf "%.0f", (b - a) / n }') KiB of RSS. pgward held $FDS_IDLE file descriptors."
    echo "PostgreSQL: $BACKENDS backends of pgward's roles, $(kib "$PG_PSS") MiB PSS over all its processes (not pgward's)."
    echo
    echo "Heap with the sessions open (\`jcmd GC.heap_info\`):"
    echo
    echo '```'
    echo "$HEAP_IDLE"
    echo '```'
    echo
    echo "After a full GC:"
    echo
    echo '```'
    echo "$HEAP_AFTER_GC"
    echo '```'
    echo
    echo "Largest classes on the heap with the sessions open (\`jcmd GC.class_histogram\`, live objects):"
    echo
    echo '```'
    echo "$HISTOGRAM"
    echo '```'
    if [ -n "$NMT_IDLE" ]; then
        echo
        echo "Native memory with the sessions open (\`jcmd VM.native_memory summary\`):"
        echo
        echo '```'
        echo "$NMT_IDLE"
        echo '```'
        echo
        echo "What the sessions added to the live heap, per class (two \`jcmd GC.class_histogram\`, before and with them), and per session:"
        echo
        echo '```'
        per_class_growth
        echo '```'
        echo
        echo "What the sessions added (\`jcmd VM.native_memory summary.diff\` against a baseline taken just before they opened):"
        echo
        echo '```'
        echo "$NMT_DIFF"
        echo '```'
    fi
}

mkdir -p "$RESULTS"
file=$RESULTS/idle-connections-$(date -u +%Y-%m-%d)${LABEL:+-$LABEL}.md
report | tee "$file"
bench_log "wrote $file"
