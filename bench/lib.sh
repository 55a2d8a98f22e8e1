# shellcheck shell=bash
# Sourced by the bench/*.sh scripts: logging, a private temporary directory, background processes that are
# always stopped on exit, free loopback ports, and `pgward demo` started and parsed.
#
# Everything a script starts goes through bench_spawn, so the EXIT trap can stop it; every wait has a
# deadline, so a stuck pgward, PostgreSQL or pgbouncer ends the run with a message instead of a hang.

BENCH_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BENCH_HOST=127.0.0.1
BENCH_PIDS=()
BENCH_NAMES=()
BENCH_TMP=""

# psql and pgbench read these; an inherited PGOPTIONS or service file must not change what is measured.
# TLS is off on every path: pgward's demo offers it and psql would take it, which would compare TLS
# through pgward with plaintext elsewhere.
unset PGSERVICE PGSERVICEFILE PGOPTIONS PGHOSTADDR PGSSLCERT PGSSLKEY PGSSLROOTCERT PGPASSFILE PGTARGETSESSIONATTRS
export PGSSLMODE=disable PGGSSENCMODE=disable PGCONNECT_TIMEOUT=10

bench_log() {
    printf '%s %s: %s\n' "$(date +%H:%M:%S)" "${BENCH_SCRIPT:-bench}" "$*" >&2
}

bench_die() {
    printf '%s %s: FAILED: %s\n' "$(date +%H:%M:%S)" "${BENCH_SCRIPT:-bench}" "$*" >&2
    exit 1
}

# Prints the last lines of a log file to stderr, indented, when it exists.
bench_tail() {
    local file=$1 lines=${2:-20}
    if [ -s "$file" ]; then
        printf '  --- last %s lines of %s ---\n' "$lines" "$(basename "$file")" >&2
        tail -n "$lines" "$file" | sed 's/^/  | /' >&2
    fi
}

# Creates the temporary directory and installs the traps. Call once, first.
bench_init() {
    BENCH_SCRIPT=$1
    BENCH_TMP=$(mktemp -d "${TMPDIR:-/tmp}/pgward-bench.XXXXXX")
    # Traversable (not listable) so that a server run as nobody can reach its own subdirectory.
    chmod 711 "$BENCH_TMP"
    trap bench_cleanup EXIT
    trap 'bench_log "interrupted"; exit 130' INT
    trap 'bench_log "terminated"; exit 143' TERM
}

# Runs "$@" in the background with stdout and stderr in $BENCH_TMP/<name>.out and .err, and remembers
# its pid for the cleanup. The pid is in BENCH_LAST_PID.
bench_spawn() {
    local name=$1
    shift
    "$@" >"$BENCH_TMP/$name.out" 2>"$BENCH_TMP/$name.err" </dev/null &
    BENCH_LAST_PID=$!
    BENCH_PIDS+=("$BENCH_LAST_PID")
    BENCH_NAMES+=("$name")
}

# Sends SIGTERM and waits up to $2 seconds for the process to exit; then SIGKILL.
bench_stop() {
    local pid=$1 grace=$2 name=$3 deadline
    kill -0 "$pid" 2>/dev/null || return 0
    kill -TERM "$pid" 2>/dev/null || return 0
    deadline=$((SECONDS + grace))
    while kill -0 "$pid" 2>/dev/null && [ "$SECONDS" -lt "$deadline" ]; do
        sleep 0.2
    done
    if kill -0 "$pid" 2>/dev/null; then
        bench_log "$name (pid $pid) did not stop within ${grace}s; killing it"
        kill -KILL "$pid" 2>/dev/null || true
    fi
    wait "$pid" 2>/dev/null || true
}

# The EXIT trap: stops what was started, newest first, then removes the temporary directory (it holds
# the demo's superuser password for pgbouncer).
bench_cleanup() {
    local status=$? i pid name child
    trap - EXIT INT TERM
    set +e
    for ((i = ${#BENCH_PIDS[@]} - 1; i >= 0; i--)); do
        pid=${BENCH_PIDS[$i]}
        name=${BENCH_NAMES[$i]}
        kill -0 "$pid" 2>/dev/null || continue
        bench_log "stopping $name (pid $pid)"
        if [ "$name" = demo ]; then
            # pgward demo stops its PostgreSQL on SIGTERM (pg_ctl stop, up to 30 s). Should it have to be
            # killed, PostgreSQL (its child) would be left running, so it gets a fast shutdown here.
            local children
            children=$(ps -o pid= --ppid "$pid" 2>/dev/null)
            bench_stop "$pid" 60 "$name"
            for child in $children; do
                if kill -0 "$child" 2>/dev/null; then
                    bench_log "PostgreSQL (pid $child) outlived the demo; fast shutdown"
                    kill -INT "$child" 2>/dev/null
                fi
            done
        else
            bench_stop "$pid" 20 "$name"
        fi
    done
    if [ "$status" -ne 0 ] && [ -n "$BENCH_TMP" ]; then
        for name in "${BENCH_NAMES[@]}"; do
            bench_tail "$BENCH_TMP/$name.err" 15
        done
    fi
    [ -n "$BENCH_TMP" ] && rm -rf "$BENCH_TMP"
    exit "$status"
}

# BENCH_PORTS="P1 P2 ...": the only ports the scripts' servers may listen on, taken in order (a machine where other
# servers come and go); unset, every server gets a free port of its own.
read -r -a BENCH_PORT_LIST <<<"${BENCH_PORTS:-}"

# Sets BENCH_PORT to the next port of BENCH_PORTS, or to $1 when BENCH_PORTS is unset (0: the server picks one).
bench_take_port() {
    if [ -z "${BENCH_PORTS:-}" ]; then
        BENCH_PORT=$1
        return 0
    fi
    [ "${#BENCH_PORT_LIST[@]}" -gt 0 ] || bench_die "BENCH_PORTS has too few ports for this run"
    BENCH_PORT=${BENCH_PORT_LIST[0]}
    BENCH_PORT_LIST=("${BENCH_PORT_LIST[@]:1}")
}

# Prints a TCP port on 127.0.0.1 that nothing listens on (a hint: the caller's server still has to bind it).
bench_free_port() {
    local port tries=0
    while [ "$tries" -lt 200 ]; do
        port=$((20000 + RANDOM % 40000))
        tries=$((tries + 1))
        if [ -z "$(ss -Htln "sport = :$port" 2>/dev/null)" ]; then
            echo "$port"
            return 0
        fi
    done
    bench_die "found no free port on $BENCH_HOST"
}

# Waits up to $1 seconds for "$3" to appear in file $2 while process $4 lives.
bench_wait_for_line() {
    local timeout=$1 file=$2 pattern=$3 pid=$4 name=$5 deadline
    deadline=$((SECONDS + timeout))
    until grep -q -- "$pattern" "$file" 2>/dev/null; do
        if ! kill -0 "$pid" 2>/dev/null; then
            bench_tail "$BENCH_TMP/$name.out" 30
            bench_tail "$BENCH_TMP/$name.err" 30
            bench_die "$name exited before it was ready"
        fi
        if [ "$SECONDS" -ge "$deadline" ]; then
            bench_tail "$BENCH_TMP/$name.out" 30
            bench_tail "$BENCH_TMP/$name.err" 30
            bench_die "$name was not ready within ${timeout}s"
        fi
        sleep 0.5
    done
}

# psql with no psqlrc, stopping at the first error, bounded in time. Usage: bench_psql PORT USER PASSWORD DB ARGS...
bench_psql() {
    local port=$1 user=$2 password=$3 db=$4
    shift 4
    PGPASSWORD=$password timeout --kill-after=5 "${BENCH_PSQL_TIMEOUT:-120}" \
        psql -X -q -v ON_ERROR_STOP=1 -h "$BENCH_HOST" -p "$port" -U "$user" -d "$db" "$@"
}

# Starts `pgward demo` on free ports (BENCH_DEMO_PORT and BENCH_DEMO_PG_PORT choose them) and sets DEMO_PID
# (the java process), DEMO_PORT (pgward), PG_PORT,
# PG_PASSWORD (the superuser's), PG_VERSION. The first run builds pgward, hence the long default deadline.
# shellcheck disable=SC2034 # the variables are the result, read by the calling script
bench_start_demo() {
    local scale=$1 line uri
    bench_log "starting pgward demo --scale $scale (the first run builds pgward)"
    # The launcher execs java, so the pid is pgward's JVM.
    # BENCH_DEMO_PORT / BENCH_DEMO_PG_PORT name the demo's ports; otherwise the next of BENCH_PORTS, or free ones.
    local pgward_port pg_port
    if [ -n "${BENCH_DEMO_PORT:-}" ]; then pgward_port=$BENCH_DEMO_PORT; else bench_take_port 0; pgward_port=$BENCH_PORT; fi
    if [ -n "${BENCH_DEMO_PG_PORT:-}" ]; then pg_port=$BENCH_DEMO_PG_PORT; else bench_take_port 0; pg_port=$BENCH_PORT; fi
    bench_spawn demo "$BENCH_ROOT/pgward" demo --port "$pgward_port" --pg-port "$pg_port" --scale "$scale"
    DEMO_PID=$BENCH_LAST_PID
    bench_wait_for_line "${BENCH_DEMO_TIMEOUT:-600}" "$BENCH_TMP/demo.out" 'PostgreSQL directly:' "$DEMO_PID" demo
    line=$(grep -m1 'pgward is listening on' "$BENCH_TMP/demo.out")
    DEMO_PORT=$(sed -E 's/.*listening on 127\.0\.0\.1:([0-9]+).*/\1/' <<<"$line")
    PG_VERSION=$(sed -E 's/.*in front of PostgreSQL ([^ ]+) .*/\1/' <<<"$line")
    uri=$(grep -m1 'PostgreSQL directly:' "$BENCH_TMP/demo.out" | sed -E 's/.*psql "([^"]+)".*/\1/')
    if [[ ! $uri =~ ^postgresql://postgres:([^@]+)@127\.0\.0\.1:([0-9]+)/shop$ ]]; then
        bench_die "could not parse the demo's PostgreSQL URI from its banner"
    fi
    PG_PASSWORD=${BASH_REMATCH[1]}
    PG_PORT=${BASH_REMATCH[2]}
    [[ $DEMO_PORT =~ ^[0-9]+$ ]] || bench_die "could not parse pgward's port from the demo banner"
    if ! tr '\0' ' ' <"/proc/$DEMO_PID/cmdline" | grep -q 'pgward-demo.jar demo'; then
        bench_die "pid $DEMO_PID is not pgward's JVM: $(tr '\0' ' ' <"/proc/$DEMO_PID/cmdline")"
    fi
    bench_log "demo up: pgward 127.0.0.1:$DEMO_PORT (pid $DEMO_PID), PostgreSQL $PG_VERSION 127.0.0.1:$PG_PORT"
}

# Facts about the machine and the software, as Markdown list items.
bench_environment() {
    local java
    java=$(readlink "/proc/$DEMO_PID/exe" 2>/dev/null || true)
    echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC')"
    echo "- machine: $(nproc) CPUs ($(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)), $(awk '/MemTotal/ { printf "%.0f GiB RAM", $2 / 1048576 }' /proc/meminfo), Linux $(uname -r)"
    echo "- PostgreSQL: $PG_VERSION (embedded, started by \`pgward demo\`; fsync off)"
    echo "- pgward: $(git -C "$BENCH_ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)$(git -C "$BENCH_ROOT" diff --quiet HEAD -- . ':!bench' 2>/dev/null || echo ' (with local changes)') on $(if [ -n "$java" ]; then "$java" -version 2>&1 | head -n 1; else echo 'java'; fi); JVM options: the launcher's for \`pgward run\` (PGWARD_JVM_OPTS changes them), the JVM's defaults for the demo"
}
